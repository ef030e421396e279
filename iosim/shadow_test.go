package iosim

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// shadowTime's heap gives what sorting every planned end gave (the
// scheduler before issue 25): random ends with many ties in time, NaN
// and +Inf among them, any free count and request.
func TestShadowTimeMatchesSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "n")
		ends := make([]release, n)
		for i := range ends {
			ti := float64(rapid.IntRange(0, 8).Draw(t, "t"))
			switch rapid.IntRange(0, 20).Draw(t, "special") {
			case 0:
				ti = math.NaN()
			case 1:
				ti = math.Inf(1)
			}
			ends[i] = release{t: ti, q: rapid.IntRange(1, 50).Draw(t, "q"), i: i}
		}
		ends = rapid.Permutation(ends).Draw(t, "order") // the heap must not rely on the input order
		free := rapid.IntRange(0, 100).Draw(t, "free")
		q := rapid.IntRange(1, 400).Draw(t, "want")
		sorted := slices.Clone(ends)
		slices.SortStableFunc(sorted, func(a, b release) int {
			if c := cmp.Compare(a.t, b.t); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		wantT, wantX := math.Inf(1), 0
		avail := free
		for _, e := range sorted {
			if avail += e.q; avail >= q {
				wantT, wantX = e.t, avail-q
				break
			}
		}
		gotT, gotX := shadowTime(slices.Clone(ends), free, q)
		if math.Float64bits(gotT) != math.Float64bits(wantT) || gotX != wantX {
			t.Fatalf("shadowTime %v, %d; the sorted ends give %v, %d", gotT, gotX, wantT, wantX)
		}
	})
}
