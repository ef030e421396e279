package output

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// AppendJSONFloat writes json.Marshal's bytes for every finite float64:
// arbitrary bit patterns, the integers around 2⁵³, and the edges of the
// exponent form (1e-6, 1e21), signed zeros included.
func TestAppendJSONFloatIsMarshal(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, f float64) {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if got := AppendJSONFloat(nil, f); string(got) != string(want) {
			t.Fatalf("AppendJSONFloat(%v) = %s, json.Marshal %s", f, got, want)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 1e-6, math.Nextafter(1e-6, 0), 1e-7, 1e21, math.Nextafter(1e21, 0),
		1 << 53, 1<<53 - 1, 1<<53 + 2, -(1 << 53), 1 << 63, 1e300, 5e-324, math.MaxFloat64, -math.MaxFloat64, 0.1, 123456.789} {
		check(t, f)
	}
	rapid.Check(t, func(t *rapid.T) {
		f := math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		check(t, f)
		check(t, math.Trunc(f/1e3)) // many whole numbers
	})
}

// JSONPlain never says plain what json.Marshal writes otherwise, and says
// plain every printable-ASCII string json writes as itself (non-ASCII is
// left to encoding/json: U+2028, U+2029 and invalid UTF-8 are rewritten).
func TestJSONPlainIsMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ -~]{0,12}`)).Draw(t, "s")
		b, _ := json.Marshal(s)
		same := string(b) == `"`+s+`"`
		ascii := !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r >= 0x7f })
		if JSONPlain(s) && !same || same && ascii && !JSONPlain(s) {
			t.Fatalf("JSONPlain(%q) = %v; json.Marshal writes %s", s, JSONPlain(s), b)
		}
	})
}
