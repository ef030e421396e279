// Package jsontest draws the values on which a hand-written JSON encoder
// and encoding/json are most likely to part: floats where json changes its
// form and strings it escapes. The coordinator's answer encoder
// (coord/server) and record writer (coord/store) test themselves against
// encoding/json on them, each value judged by a Tally. For tests only (it imports pgregory.net/rapid);
// O(1) per draw.
package jsontest

import (
	"bytes"
	"math"

	"pgregory.net/rapid"
)

// Float draws float64s from everywhere encoding/json changes its form
// (zero and minus zero, around 1e-6 and 1e21, subnormals, the integers
// around 2⁵³), the wall clock's seconds, non-finite values (json's error)
// and any bit pattern.
func Float() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-6, math.Nextafter(1e-6, 0), 1e-7, 1.5e-9, 1e21,
			math.Nextafter(1e21, 0), 1e22, -1e21, 5e-324, math.MaxFloat64, 1, 40e9, 1795906630.2549033,
			math.NaN(), math.Inf(1), math.Inf(-1)}),
		rapid.Float64(),
		rapid.Map(rapid.Uint64(), math.Float64frombits),
		rapid.Map(rapid.Int64Range(-1e12, 1e12), func(i int64) float64 { return float64(i) / 1000 }),
		rapid.Map(rapid.Int64Range(-1<<55, 1<<55), func(i int64) float64 { return float64(i) }),
		rapid.SampledFrom([]float64{1 << 53, 1<<53 - 1, -(1<<53 - 1), 1<<53 + 2, -1 << 53, 1e15, 1e16, 123456789012345680}),
	)
}

// String draws the coordinator's ids and states, and strings json
// escapes: quotes, backslash, control bytes, HTML characters, U+2028 and
// U+2029, non-ASCII, invalid UTF-8.
func String() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "j1", "job-0001", "r7", "granted", "waiting", "released", "daly", "<a&b>", "a&b", "x>y", "y<",
			"q\"uote", "back\\slash", "tab\t", "\x00", "\x7f", "\u2028", "\u2029", "é", "\xff", "a\xc3"}),
		rapid.StringMatching(`[A-Za-z0-9._:-]{0,20}`),
		rapid.StringMatching(`[ -~]{0,12}`),
		rapid.String(),
	)
}

// Tally judges a hand-written encoder against encoding/json, value by
// value, and counts the values it wrote and declined.
type Tally struct{ Wrote, Declined int }

// Check fails t when the encoder wrote got (ok) where encoding/json fails
// (!jsonOK), wrote other bytes than json's want, or declined (!ok) a
// value it must write (mustWrite); else it counts v as written or
// declined.
func (c *Tally) Check(t interface{ Fatalf(string, ...any) }, v any, got []byte, ok bool, want []byte, jsonOK, mustWrite bool) {
	switch {
	case ok && !jsonOK:
		t.Fatalf("the hand encoder wrote %s where encoding/json fails on %#v", got, v)
	case ok && !bytes.Equal(got, want):
		t.Fatalf("the hand encoder on %#v:\n got %s\nwant %s", v, got, want)
	case !ok && mustWrite:
		t.Fatalf("the hand encoder declined %#v, whose strings are plain and floats finite", v)
	case ok:
		c.Wrote++
	default:
		c.Declined++
	}
}

// Both fails t unless the values checked took both paths.
func (c *Tally) Both(t interface{ Fatalf(string, ...any) }) {
	if c.Wrote == 0 || c.Declined == 0 {
		t.Fatalf("wrote %d, declined %d: both paths must be exercised", c.Wrote, c.Declined)
	}
}
