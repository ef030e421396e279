package capacity

import (
	"math"
	"testing"
)

func TestFiniteYieldBoundHandComputed(t *testing.T) {
	pl := Platform{PMin: 2, PMax: 2, Delta: 0}
	// Two jobs of 2 processors and 5 units of work on 2 processors for 10:
	// the fairest schedule shares the machine and both finish at 10 → 0.5.
	in := &Instance{Platform: pl, Sections: []Section{{2, 10}}, Jobs: []Job{{P: 2, C: 1, R: 1, Length: 5}, {P: 2, C: 1, R: 1, Length: 5}}}
	if y := FiniteYieldBound(in, 1e-9); math.Abs(y-0.5) > 1e-6 {
		t.Fatalf("got %v, want 0.5", y)
	}
	// The second released at 5: one after the other, both at yield 1.
	in.Jobs[1].Release = 5
	in.Sections[0].Length = 20
	if y := FiniteYieldBound(in, 1e-9); y != 1 {
		t.Fatalf("got %v, want 1", y)
	}
	// Released at 2 instead: they overlap on [2, 10]; Y is limited by the
	// area: by d = 2 + 5/Y both need 20 units on 2 processors, so
	// 2·(2 + 5/Y) ≥ 20 → Y ≤ 5/8.
	in.Jobs[1].Release = 2
	if y := FiniteYieldBound(in, 1e-9); math.Abs(y-5.0/8) > 1e-6 {
		t.Fatalf("got %v, want 0.625", y)
	}
}

// Infinite jobs of width ≤ P_min with Σ p_j ≥ P_max: the flow bound is the
// aggregate capacity Σ P_i L_i / (Σ p_j · T_total) (no checkpoint cost in
// the relaxation).
func TestFiniteYieldBoundInfiniteJobs(t *testing.T) {
	for seed := range uint64(5) {
		in := smallInstance(seed, 15)
		var area, total float64
		for _, s := range in.Sections {
			area += float64(s.P) * s.Length
			total += s.Length
		}
		sp := 0
		for _, jb := range in.Jobs {
			sp += jb.P
		}
		want := area / float64(sp) / total
		if y := FiniteYieldBound(in, 1e-10); math.Abs(y-want) > 1e-7 {
			t.Fatalf("seed %d: flow bound %v, closed form %v", seed, y, want)
		}
		// and it is above the Section 3.4 bound, which also charges C and R.
		if _, yb := Bounds(in); yb > FiniteYieldBound(in, 1e-10)+1e-9 {
			t.Fatalf("Section 3.4 bound %v above the relaxation", yb)
		}
	}
}
