package capacity

import (
	"context"
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"
)

// TestSchedulePanelConserves checks the picture against the simulation:
// Trace's plans hold exactly as many checkpoints and recoveries as
// Simulate counts; the drawn area of each kind equals the plans'
// processor-time of that kind; the stack never exceeds P(t).
func TestSchedulePanelConserves(t *testing.T) {
	pr := Params{Sections: 30, PMax: 60, PMinFrac: 0.2, Delta: 0.1, Load: 2, AvgT: 100, CLo: 5, CHi: 20}
	for _, algo := range []string{"greedy-goodput", "dp-yield"} {
		in, err := Generate(rng.New(7), pr, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := New(algo)
		res, err := Simulate(in, a)
		if err != nil {
			t.Fatal(err)
		}
		a, _ = New(algo)
		tr, err := Trace(context.Background(), in, a, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want [3]float64 // processor-time by Kind
		ckpts, recs := 0, 0
		for _, s := range tr {
			for j, ivs := range s.Plan.Jobs {
				for _, iv := range ivs {
					want[iv.Kind] += float64(in.Jobs[j].P) * (iv.End - iv.Start)
					ckpts += b2i(iv.Kind == Checkpoint)
					recs += b2i(iv.Kind == Recover)
				}
			}
		}
		if ckpts != res.Checkpoints || recs != res.Recoveries {
			t.Errorf("%s: traced %d checkpoints, %d recoveries; Simulate counted %d, %d", algo, ckpts, recs, res.Checkpoints, res.Recoveries)
		}
		p := SchedulePanel("x", in, tr)
		var got [3]float64
		for _, r := range p.Rects {
			k := Run
			switch {
			case r.Solid && r.Style == styleCkpt:
				k = Checkpoint
			case r.Solid && r.Style == styleRecover:
				k = Recover
			}
			got[k] += (r.X1 - r.X0) * (r.Y1 - r.Y0)
		}
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-6*math.Max(1, want[k]) {
				t.Errorf("%s: %v area drawn %g, plans %g", algo, Kind(k), got[k], want[k])
			}
		}
		for _, s := range tr {
			for _, r := range p.Rects {
				if r.X0 >= s.Start && r.X1 <= s.Start+s.Plan.T && r.Y1 > float64(s.P)+1e-9 {
					t.Fatalf("%s: band up to %g above P = %d at t = %g", algo, r.Y1, s.P, r.X0)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
