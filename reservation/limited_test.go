package reservation

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// simulatedCost is the expected cost of s on the discrete law (values,
// probs) computed walltime by walltime, the way a chain runs it, with no
// use of Theorem 1: each reservation requests g⌈W/g⌉ (W = restart + work
// + δ(C + margin)); a job of walltime x pays αW̃ + β·used + γ for every
// reservation it runs, using the whole of each one it does not finish in.
// ok is false when a reservation of s is longer than maxLength (> 0) or s
// does not cover the law.
func simulatedCost(s Strategy, values, probs []float64, c Costs, maxLength float64) (float64, bool) {
	type res struct{ w, start, restart, milestone float64 }
	var rs []res
	saved, restart := 0.0, 0.0
	for _, st := range s {
		w := restart + st.Milestone - saved
		if st.Checkpoint {
			w += c.C + c.Margin
		}
		if c.Granularity > 0 {
			w = c.Granularity * math.Ceil(w/c.Granularity-1e-9)
		}
		if maxLength > 0 && w > maxLength {
			return 0, false
		}
		rs = append(rs, res{w: w, start: saved, restart: restart, milestone: st.Milestone})
		if st.Checkpoint {
			saved, restart = st.Milestone, c.R
		}
	}
	total := 0.0
	for i, x := range values {
		cost, done := 0.0, false
		for _, r := range rs {
			if x <= r.milestone {
				cost += c.Alpha*r.w + c.Beta*(r.restart+x-r.start) + c.Gamma
				done = true
				break
			}
			cost += (c.Alpha+c.Beta)*r.w + c.Gamma
		}
		if !done {
			return 0, false
		}
		total += probs[i] * cost
	}
	return total, true
}

// exhaustiveLimited is the least simulatedCost over every strategy whose
// milestones are values of the law, ending at the largest, with every
// checkpoint choice (on the last reservation too): 2^(n−1)·2^k strategies.
// ok is false when none fits maxLength.
func exhaustiveLimited(values, probs []float64, c Costs, class Class, maxLength float64) (float64, bool) {
	n := len(values)
	best, found := math.Inf(1), false
	for mask := 0; mask < 1<<(n-1); mask++ {
		var ms []float64
		for i := 0; i < n-1; i++ {
			if mask&(1<<i) != 0 {
				ms = append(ms, values[i])
			}
		}
		ms = append(ms, values[n-1])
		for ck := 0; ck < 1<<len(ms); ck++ {
			s := make(Strategy, len(ms))
			allButLast := true
			for k, m := range ms {
				s[k] = Step{Milestone: m, Checkpoint: ck&(1<<k) != 0}
				if k < len(ms)-1 && !s[k].Checkpoint {
					allButLast = false
				}
			}
			if class == NoCkpt && ck != 0 || class == AllCkpt && !allButLast {
				continue
			}
			if v, ok := simulatedCost(s, values, probs, c, maxLength); ok && v < best {
				best, found = v, true
			}
		}
	}
	return best, found
}

// smallLaw draws a discrete law of up to 6 values in seconds.
func smallLaw(t *rapid.T) ([]float64, []float64) {
	n := rapid.IntRange(1, 6).Draw(t, "n")
	values, probs := make([]float64, n), make([]float64, n)
	v, total := 0.0, 0.0
	for i := range values {
		v += float64(rapid.IntRange(1, 200).Draw(t, "gap")) + 0.25*float64(rapid.IntRange(0, 3).Draw(t, "frac"))
		values[i] = v
		probs[i] = float64(rapid.IntRange(1, 10).Draw(t, "w"))
		total += probs[i]
	}
	for i := range probs {
		probs[i] /= total
	}
	return values, probs
}

// The limited dynamic program is the exhaustive optimum under a longest
// reservation, a granularity and a margin, in every class, on small laws;
// its plan keeps within the bound, and Theorem 1 prices it at its cost.
func TestDynProgCountLimitedMatchesExhaustive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		values, probs := smallLaw(t)
		c := Costs{Alpha: 1, Beta: rapid.SampledFrom([]float64{0, 0.5}).Draw(t, "beta"), Gamma: rapid.SampledFrom([]float64{0, 30}).Draw(t, "gamma"),
			C: float64(rapid.IntRange(0, 60).Draw(t, "C")), R: float64(rapid.IntRange(0, 60).Draw(t, "R")),
			Margin: rapid.SampledFrom([]float64{0, 16}).Draw(t, "margin"), Granularity: rapid.SampledFrom([]float64{0, 60, 100}).Draw(t, "g")}
		maxLength := rapid.SampledFrom([]float64{0, 60, 120, 180, 300, 600}).Draw(t, "max")
		class := rapid.SampledFrom([]Class{Mixed, AllCkpt, NoCkpt}).Draw(t, "class")
		want, ok := exhaustiveLimited(values, probs, c, class, maxLength)
		s, got, err := DynProgCountLimited(values, probs, c, class, maxLength)
		if !ok {
			if !errors.Is(err, ErrNoPlanWithin) {
				t.Fatalf("no strategy fits %v, yet the DP gives %v (%v, err %v)", maxLength, s, got, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("exhaustive %v, DP error %v", want, err)
		}
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("%v %v %+v max %v %s: DP %v (%v), exhaustive %v", values, probs, c, maxLength, class, got, s, want)
		}
		sim, fits := simulatedCost(s, values, probs, c, maxLength)
		if !fits || math.Abs(sim-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("the DP's plan %v simulates to %v (fits %v), want %v", s, sim, fits, want)
		}
		d, _ := distribution.NewDiscrete(values, probs)
		if th1, err := ExpectedCost(s, d, c); err != nil || math.Abs(th1-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("Theorem 1 prices %v at %v (%v), want %v", s, th1, err, want)
		}
	})
}

// Without limits the limited program is Theorem 2's optimum (DynProgCount),
// on laws too large for the exhaustive search.
func TestDynProgCountLimitedUnboundedIsTheorem2(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		values, probs := make([]float64, n), make([]float64, n)
		v, total := 0.0, 0.0
		for i := range values {
			v += rapid.Float64Range(0.1, 100).Draw(t, "gap")
			values[i], probs[i] = v, rapid.Float64Range(0.01, 1).Draw(t, "p")
			total += probs[i]
		}
		for i := range probs {
			probs[i] /= total
		}
		c := Costs{Alpha: 1, Beta: rapid.Float64Range(0, 1).Draw(t, "beta"), Gamma: rapid.Float64Range(0, 10).Draw(t, "gamma"),
			C: rapid.Float64Range(0, 50).Draw(t, "C"), R: rapid.Float64Range(0, 50).Draw(t, "R")}
		class := rapid.SampledFrom([]Class{Mixed, AllCkpt, NoCkpt}).Draw(t, "class")
		_, want, err := DynProgCount(values, probs, c, class)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := DynProgCountLimited(values, probs, c, class, 0)
		if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("limited %v (%v), Theorem 2 %v", got, err, want)
		}
	})
}

// On the minute grid, planning in whole minutes beats rounding up the
// continuous optimum, whose reservations fall between minutes, and is the
// exhaustive optimum of the grid; a longest reservation below the
// continuous plan's first gives the constrained optimum, not a refusal.
func TestSlurmGranularityBeatsRoundingUp(t *testing.T) {
	values := []float64{1102, 3481, 4051}
	probs := []float64{1.0 / 12, 5.0 / 12, 6.0 / 12}
	paper := Costs{Alpha: 1, C: 90, R: 75}
	cont, _, err := DynProgCount(values, probs, paper, Mixed)
	if err != nil {
		t.Fatal(err)
	}
	fractional := false
	for _, r := range Reservations(cont, paper) {
		fractional = fractional || math.Mod(r.Length, 60) != 0
	}
	if !fractional {
		t.Fatalf("the continuous plan %v has whole minutes: the test needs another law", Reservations(cont, paper))
	}
	slurm := paper
	slurm.Granularity, slurm.Margin = SlurmGranularity, DefaultSlurmMargin
	rounded, ok := simulatedCost(cont, values, probs, slurm, 0)
	if !ok {
		t.Fatal("the continuous plan does not cover the law")
	}
	s, got, err := DynProgCountLimited(values, probs, slurm, Mixed, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := exhaustiveLimited(values, probs, slurm, Mixed, 0)
	if math.Abs(got-want) > 1e-9*want || got > rounded {
		t.Fatalf("grid plan %v costs %v; exhaustive %v; the continuous plan rounded up %v", s, got, want, rounded)
	}
	if !(got < rounded) {
		t.Errorf("on this law the grid should do strictly better than rounding up: %v vs %v", got, rounded)
	}
	for _, r := range Reservations(s, slurm) {
		if math.Mod(r.Length, 60) != 0 {
			t.Errorf("reservation %+v is not whole minutes", r)
		}
	}
	t.Logf("continuous %v rounded up: %.2f; on the grid %v: %.2f", cont, rounded, s, got)
	// Bounds below the longest reservation of the grid plan, minute by
	// minute until no plan fits: the constrained optimum, never above the
	// bound, is the exhaustive one.
	longest := 0.0
	for _, r := range Reservations(s, slurm) {
		longest = math.Max(longest, r.Length)
	}
	for bound := longest - 60; ; bound -= 60 {
		s2, got2, err := DynProgCountLimited(values, probs, slurm, Mixed, bound)
		want2, ok2 := exhaustiveLimited(values, probs, slurm, Mixed, bound)
		if !ok2 {
			if !errors.Is(err, ErrNoPlanWithin) {
				t.Fatalf("bound %v: no plan fits, yet %v (%v)", bound, s2, err)
			}
			break
		}
		if err != nil || math.Abs(got2-want2) > 1e-9*want2 || !(got2 >= got) {
			t.Fatalf("bound %v: %v %v (%v), exhaustive %v, unbounded %v", bound, s2, got2, err, want2, got)
		}
		if k, w := exceeds(s2, slurm, bound); k > 0 {
			t.Fatalf("reservation %d needs %v > %v", k, w, bound)
		}
		t.Logf("at most %v: %v costs %.2f", bound, s2, got2)
	}
}

// A request with a longest reservation on the paper's continuous law
// (whose optimal first reservation is far longer) gets a plan within it,
// the bound in the report, and a limits line in the text.
func TestRunMaxRequest(t *testing.T) {
	r := DefaultRequest()
	r.N, r.NoBaselines = 500, true
	free, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	longest := 0.0
	for _, rv := range free.Reservations {
		longest = math.Max(longest, rv.Length)
	}
	r.MaxRequest = math.Round(longest / 2)
	r.Costs.Granularity, r.Costs.Margin = SlurmGranularity, DefaultSlurmMargin
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range rep.Reservations {
		if rv.Length > r.MaxRequest || math.Mod(rv.Length, 60) != 0 {
			t.Errorf("reservation %d: %v s (bound %v, whole minutes)", rv.Index, rv.Length, r.MaxRequest)
		}
		if rv.Checkpoint && rv.Margin != DefaultSlurmMargin {
			t.Errorf("reservation %d checkpoints without the margin: %+v", rv.Index, rv)
		}
	}
	if rep.MaxRequest != r.MaxRequest || !(rep.ExpectedCost > free.ExpectedCost) || rep.LowerBound != nil {
		t.Errorf("bounded %v (max %v, lower bound %v), free %v", rep.ExpectedCost, rep.MaxRequest, rep.LowerBound, free.ExpectedCost)
	}
	var b strings.Builder
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "limits: every reservation at most") || !strings.Contains(b.String(), "not proven under limits") {
		t.Errorf("text:\n%s", b.String())
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1), 30} {
		r.MaxRequest = bad
		if err := r.Validate(); fieldOf(err) != "MaxRequest" {
			t.Errorf("MaxRequest %v: %v", bad, err)
		}
	}
	r.MaxRequest = 60
	if _, err := Run(context.Background(), r); !errors.Is(err, ErrNoPlanWithin) || !strings.Contains(err.Error(), "1m00s") {
		t.Errorf("a one-minute bound: %v", err)
	}
}

// A discrete law whose runtimes are further apart than a bounded
// reservation reaches gets a plan that checkpoints between them, the
// exhaustive optimum over the law's values and the points added.
func TestRunMaxRequestBetweenRuntimes(t *testing.T) {
	values, probs := []float64{120, 300, 600}, []float64{0.5, 0.3, 0.2}
	c := Costs{Alpha: 1, C: 12, R: 6, Margin: 2, Granularity: SlurmGranularity}
	for _, bound := range []float64{240, 180, 120} {
		if _, _, err := DynProgCountLimited(values, probs, c, Mixed, bound); !errors.Is(err, ErrNoPlanWithin) {
			t.Fatalf("on the runtimes alone a %v s bound should leave no plan: %v", bound, err)
		}
		r := DefaultRequest()
		r.Walltime, r.Costs, r.MaxRequest, r.NoBaselines = LawSpec("discrete:120@0.5,300@0.3,600@0.2"), c, bound, true
		rep, err := Run(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		vs, ps := withCheckpointPoints(values, probs, c, bound)
		if len(vs) > 20 {
			t.Fatalf("%d points: too many for the exhaustive search", len(vs))
		}
		want, ok := exhaustiveLimited(vs, ps, c, Mixed, bound)
		if !ok || math.Abs(rep.ExpectedCost-want) > 1e-9*want {
			t.Errorf("bound %v: plan costs %v, exhaustive %v (%v)", bound, rep.ExpectedCost, want, ok)
		}
		if sim, fits := simulatedCost(rep.Result.Strategy, values, probs, c, bound); !fits || math.Abs(sim-want) > 1e-9*want {
			t.Errorf("bound %v: the plan simulates to %v (fits %v)", bound, sim, fits)
		}
	}
}

// A continuous law whose support starts beyond one bounded reservation's
// reach (uniform on [1 h, 3 h] under 30 min, C = R = 10 min) gets a plan:
// its grid gains checkpoint points below the first value, as a discrete
// law's gaps do. Before, every bound below 1 h 20 min was refused with
// "no plan keeps every reservation within". The plan checkpoints until
// the support starts, so it must make progress there: six reservations
// of at most 30 min, 10 min of work each after the first, reach 1 h.
func TestRunMaxRequestBeforeTheSupport(t *testing.T) {
	r := DefaultRequest()
	r.Walltime, r.NoBaselines, r.MaxRequest = LawSpec("uniform:a=1h,b=3h"), true, 1800
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	before := 0
	for _, rv := range rep.Reservations {
		if rv.Length > 1800 {
			t.Errorf("reservation %d: %v s > 1800", rv.Index, rv.Length)
		}
		if rv.Milestone < 3600 {
			before++
		}
	}
	// 20 min of work in the first (no restart), 10 min in each later one:
	// at least 5 checkpoints fall before 1 h.
	if before < 5 || rep.Reservations[len(rep.Reservations)-1].Milestone < 3*3600-1e-6 {
		t.Errorf("%d reservations before the support; plan %+v", before, rep.Reservations)
	}
}

// A bound shorter than the granularity's step still gets checkpoint
// points: two runs of 61.9 s and 63.2 s, C = 1 s, R = 22 s, margin 18 s,
// Slurm's minute, at most 60 s per reservation. The first reservation
// saves up to 60 − 18 − 1 = 41 s of work (the margin is reserved with a
// checkpoint), and a second one without checkpoint finishes 60 − 22 = 38 s
// more: two reservations (41 + 38 ≥ 63.2) make a plan, and one cannot. With
// the points spaced by the granularity alone (60 s) there were none below
// 61.9 s and the plan was refused as "no plan fits".
func TestRunMaxRequestBelowTheGranularity(t *testing.T) {
	values, probs := []float64{61.9, 63.2}, []float64{0.5, 0.5}
	c := Costs{Alpha: 1, C: 1, R: 22, Margin: 18, Granularity: SlurmGranularity}
	const bound = 60
	vs, ps := withCheckpointPoints(values, probs, c, bound)
	if len(vs) > 20 {
		t.Fatalf("%d points: too many for the exhaustive search", len(vs))
	}
	want, ok := exhaustiveLimited(vs, ps, c, Mixed, bound)
	if !ok {
		t.Fatalf("the exhaustive search over %v finds no plan", vs)
	}
	s, cost, err := DynProgCountLimited(vs, ps, c, Mixed, bound)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cost-want) > 1e-9*want {
		t.Errorf("plan costs %v, exhaustive %v", cost, want)
	}
	if sim, fits := simulatedCost(s, values, probs, c, bound); !fits || math.Abs(sim-want) > 1e-9*want {
		t.Errorf("the plan simulates to %v (fits %v), want %v", sim, fits, want)
	}
	r := DefaultRequest()
	r.Walltime, r.Costs, r.MaxRequest, r.NoBaselines = LawSpec("discrete:61.9@0.5,63.2@0.5"), c, bound, true
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Result.Strategy); n != 2 {
		t.Errorf("%d reservations; two suffice and one cannot", n)
	}
}
