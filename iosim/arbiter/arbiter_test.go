package arbiter

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Hand-computed decision. At now = 1000, μ_ind = 1e6:
//
//	0: input,      q=10, v=100, requested at 900  (d=100)
//	1: checkpoint, q=50, C=400, last checkpoint at 0 (d=1000), R=400
//	2: output,     q=20, v=50,  requested at 990  (d=10)
//
// W_0 = q2(d2+v0) + (v0 q1²/μ)(R1+d1+v0/2) = 20·110 + 100·2500/1e6·1450 = 2200 + 362.5 = 2562.5
// W_1 = q0(d0+C1) + q2(d2+C1) = 10·500 + 20·410 = 13200
// W_2 = q0(d0+v2) + (v2 q1²/μ)(R1+d1+v2/2) = 10·150 + 50·2500/1e6·1425 = 1500 + 178.125 = 1678.125
//
// so the output (2) gets the token. As printed, Eqs. (1)–(2) multiply the
// idle sums by v too: W_0 = 100·(2200+3.625) = 220362.5,
// W_1 = 400·13200 = 5.28e6, W_2 = 50·(1500+3.5625) = 75178.125: also 2.
func TestLeastWasteHand(t *testing.T) {
	w := []Request{
		{Job: 0, Kind: Input, Nodes: 10, Duration: 100, Since: 900, Seq: 0},
		{Job: 1, Kind: Checkpoint, Nodes: 50, Duration: 400, LastCheckpoint: 0, Recovery: 400, Seq: 1},
		{Job: 2, Kind: Output, Nodes: 20, Duration: 50, Since: 990, Seq: 2},
	}
	env := Env{NodeMTBF: 1e6}
	want := []float64{2562.5, 13200, 1678.125}
	wantP := []float64{220362.5, 5.28e6, 75178.125}
	for i := range w {
		if got := (LeastWaste{}).Waste(1000, w, i, env.NodeMTBF); math.Abs(got-want[i]) > 1e-9 {
			t.Errorf("W_%d = %v, want %v", i, got, want[i])
		}
		if got := (LeastWaste{Printed: true}).Waste(1000, w, i, env.NodeMTBF); math.Abs(got-wantP[i]) > 1e-6 {
			t.Errorf("printed W_%d = %v, want %v", i, got, wantP[i])
		}
	}
	if i := (LeastWaste{}).Pick(1000, w, env); i != 2 {
		t.Errorf("picked %d, want 2", i)
	}
	// The two forms disagree when a long idle request competes with a
	// risky checkpoint: the printed form over-weights idleness by v.
	w2 := []Request{
		{Job: 0, Kind: Input, Nodes: 1, Duration: 1000, Since: 0, Seq: 0},
		{Job: 1, Kind: Checkpoint, Nodes: 1000, Duration: 10, LastCheckpoint: 0, Recovery: 10, Seq: 1},
	}
	// consistent: W_0 = 1000·1e6/1e6·(10+0+500) = 510000; W_1 = 1·(0+10) = 10 → pick 1
	// printed:    W_0 = 1000·(0 + 1e6/1e6·510) = 510000; W_1 = 10·10 = 100 → pick 1 as well
	if i := (LeastWaste{}).Pick(0, w2, env); i != 1 {
		t.Errorf("picked %d, want 1", i)
	}
	// Ties go to the earlier request.
	w3 := []Request{{Kind: Input, Nodes: 1, Duration: 1, Seq: 5}, {Kind: Input, Nodes: 1, Duration: 1, Seq: 3}}
	if i := (LeastWaste{}).Pick(0, w3, env); i != 1 {
		t.Errorf("tie: picked %d, want 1 (earlier seq)", i)
	}
}

// The authors' heuristic (Swapped) on TestLeastWasteHand's requests:
//
//	W_0 (v=100) = q1(d1+v) + q2²/μ(R2+d2+v/2) = 50·1100 + 400/1e6·60 = 55000.024
//	W_1 (v=400) = q0²/μ(R0+d0+v/2) + q2²/μ(R2+d2+v/2) = 100/1e6·300 + 400/1e6·210 = 0.114
//	W_2 (v=50)  = q0²/μ(R0+d0+v/2) + q1(d1+v) = 100/1e6·125 + 50·1050 = 52500.0125
//
// so the checkpoint (1) gets the token, where the text's form gives it to
// the output (2).
func TestLeastWasteSwappedHand(t *testing.T) {
	w := []Request{
		{Job: 0, Kind: Input, Nodes: 10, Duration: 100, Since: 900, Seq: 0},
		{Job: 1, Kind: Checkpoint, Nodes: 50, Duration: 400, LastCheckpoint: 0, Recovery: 400, Seq: 1},
		{Job: 2, Kind: Output, Nodes: 20, Duration: 50, Since: 990, Seq: 2},
	}
	env := Env{NodeMTBF: 1e6}
	want := []float64{55000.024, 0.114, 52500.0125}
	sw := LeastWaste{Swapped: true}
	for i := range w {
		if got := sw.Waste(1000, w, i, env.NodeMTBF); math.Abs(got-want[i]) > 1e-9 {
			t.Errorf("swapped W_%d = %v, want %v", i, got, want[i])
		}
	}
	if i := sw.Pick(1000, w, env); i != 1 {
		t.Errorf("swapped picked %d, want 1", i)
	}
	if i := (LeastWaste{}).Pick(1000, w, env); i != 2 {
		t.Errorf("text's form picked %d, want 2", i)
	}
}

func TestFCFS(t *testing.T) {
	w := []Request{{Seq: 4}, {Seq: 2}, {Seq: 9}}
	if i := (FCFS{}).Pick(0, w, Env{}); i != 1 {
		t.Fatalf("picked %d", i)
	}
}

func genRequests(t *rapid.T) ([]Request, float64, Env) {
	n := rapid.IntRange(1, 12).Draw(t, "n")
	now := rapid.Float64Range(0, 1e6).Draw(t, "now")
	w := make([]Request, n)
	for i := range w {
		w[i] = Request{
			Job:            i,
			Kind:           Kind(rapid.IntRange(0, 4).Draw(t, "kind")),
			Nodes:          rapid.IntRange(1, 10000).Draw(t, "q"),
			Duration:       rapid.Float64Range(0, 5000).Draw(t, "v"),
			Since:          rapid.Float64Range(0, now).Draw(t, "since"),
			LastCheckpoint: rapid.Float64Range(0, now).Draw(t, "last"),
			Recovery:       rapid.Float64Range(0, 5000).Draw(t, "R"),
			Seq:            uint64(rapid.IntRange(0, 20).Draw(t, "seq")),
		}
		w[i].Bytes = w[i].Duration * 1e9
	}
	return w, now, Env{NodeMTBF: rapid.Float64Range(1e3, 1e9).Draw(t, "mu"), Bandwidth: 1e9}
}

// Least-Waste picks a request whose W is minimal (exhaustive check of the
// argmin, independent of Pick's loop) and FCFS the smallest Seq.
func TestPickIsArgmin(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w, now, env := genRequests(t)
		i := (LeastWaste{}).Pick(now, w, env)
		wi := (LeastWaste{}).Waste(now, w, i, env.NodeMTBF)
		for j := range w {
			if wj := (LeastWaste{}).Waste(now, w, j, env.NodeMTBF); wj < wi || (wj == wi && w[j].Seq < w[i].Seq) {
				t.Fatalf("picked %d (W=%v, seq %d) but %d has W=%v seq %d", i, wi, w[i].Seq, j, wj, w[j].Seq)
			}
		}
		f := (FCFS{}).Pick(now, w, env)
		for j := range w {
			if w[j].Seq < w[f].Seq {
				t.Fatalf("FCFS picked seq %d, %d waits", w[f].Seq, w[j].Seq)
			}
		}
	})
}

// Pick's precomputed terms give Waste's W_i bit for bit: on random
// requests (up to 200, past the stack buffers) every score equals Waste's
// and the pick is the one of the loop over Waste, printed or not.
func TestPickMatchesWasteLoop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w, now, env := genRequests(t)
		for extra := rapid.IntRange(0, 190).Draw(t, "extra"); extra > 0; extra-- {
			r := w[rapid.IntRange(0, len(w)-1).Draw(t, "copy")]
			r.Seq = uint64(rapid.IntRange(0, 20).Draw(t, "seq"))
			r.Duration = rapid.SampledFrom([]float64{0, r.Duration, 1}).Draw(t, "v")
			w = append(w, r)
		}
		// Full mantissas, so that a changed order of operations rounds
		// differently.
		now *= math.Pi / 3
		for i := range w {
			w[i].Since *= math.Pi / 3
			w[i].LastCheckpoint *= math.E / 3
			w[i].Recovery *= math.Sqrt2
			w[i].Duration *= math.Ln2
		}
		for _, lw := range []LeastWaste{{}, {Printed: true}} {
			for i, wi := range lw.scores(now, w, env.NodeMTBF, nil) {
				if want := lw.Waste(now, w, i, env.NodeMTBF); math.Float64bits(wi) != math.Float64bits(want) {
					t.Fatalf("%+v: score %d is %v, Waste %v", lw, i, wi, want)
				}
			}
			want, wantW := 0, 0.0
			for i := range w {
				wi := lw.Waste(now, w, i, env.NodeMTBF)
				if i == 0 || wi < wantW || (wi == wantW && w[i].Seq < w[want].Seq) {
					want, wantW = i, wi
				}
			}
			if got := lw.Pick(now, w, env); got != want {
				t.Fatalf("%+v: Pick %d, the loop over Waste %d (W %v against %v)", lw, got, want, lw.Waste(now, w, got, env.NodeMTBF), wantW)
			}
		}
	})
}

func TestPoliciesAndKinds(t *testing.T) {
	for _, n := range []string{"oblivious", "ordered", "ordered-nb", "least-waste", "least-waste-printed"} {
		p, err := Policies.Lookup(n)
		if err != nil || p.Name != n || p.Token == (n == "oblivious") || (p.Token && p.Arbiter == nil) {
			t.Errorf("policy %s: %+v %v", n, p, err)
		}
	}
	for k := Input; k <= Output; k++ {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("kind %v round trip: %v %v", k, got, err)
		}
	}
	if _, err := ParseKind("bogus"); err == nil {
		t.Error("bogus kind accepted")
	}
}

// IntegerRisk, by hand (μ_ind = 1000 s, now = 100). Two waiting inputs: A
// (100 nodes, since 0, v = 10, Order 2) and B (10 nodes, since 50,
// v = 10, Order 1), recovery 1 s each. The swapped heuristic scores A by
// B's risk, 10²/1000·(1 + 50 + 5) = 5.6, and B by A's, 100²/1000·(1 + 100
// + 5) = 1060: A is served. With the integer division both score 0 and
// the tie goes to the smaller Order: B. With a checkpoint request C (50
// nodes, last checkpoint at 40, v = 20) also waiting, C scores 0 (the two
// inputs' risk terms vanish) and A, B score 50·(60 + 10) > 0: C is served.
func TestLeastWasteIntegerRiskHand(t *testing.T) {
	a := Request{Job: 1, Kind: Input, Nodes: 100, Duration: 10, Since: 0, Recovery: 1, Seq: 0, Order: 2}
	b := Request{Job: 2, Kind: Input, Nodes: 10, Duration: 10, Since: 50, Recovery: 1, Seq: 1, Order: 1}
	c := Request{Job: 3, Kind: Checkpoint, Nodes: 50, Duration: 20, Since: 90, LastCheckpoint: 40, Recovery: 20, Seq: 2, Order: 3}
	env := Env{NodeMTBF: 1000}
	sw := LeastWaste{Swapped: true}
	in := LeastWaste{Swapped: true, IntegerRisk: true}
	if w := sw.Waste(100, []Request{a, b}, 0, env.NodeMTBF); math.Abs(w-5.6) > 1e-9 {
		t.Errorf("swapped W_A = %v, want 5.6", w)
	}
	if w := sw.Waste(100, []Request{a, b}, 1, env.NodeMTBF); math.Abs(w-1060) > 1e-9 {
		t.Errorf("swapped W_B = %v, want 1060", w)
	}
	if got := sw.Pick(100, []Request{a, b}, env); got != 0 {
		t.Errorf("swapped picks %d, want 0 (A)", got)
	}
	if got := in.Pick(100, []Request{a, b}, env); got != 1 {
		t.Errorf("integer risk picks %d, want 1 (B, earlier in the list)", got)
	}
	if w := in.Waste(100, []Request{a, b, c}, 0, env.NodeMTBF); math.Abs(w-50*70) > 1e-9 {
		t.Errorf("integer risk W_A = %v, want 3500", w)
	}
	if got := in.Pick(100, []Request{a, b, c}, env); got != 2 {
		t.Errorf("integer risk with a checkpoint picks %d, want 2 (C)", got)
	}
}

// IntegerRisk keeps their integer quotient where it is not 0: with
// μ_ind = 1 s (1 000 ms), A's 100 nodes give ⌊10⁴/1000⌋ = 10 and B's 10
// nodes ⌊100/1000⌋ = 0. B is scored by A's risk, 10·(1 + 100 + 5) = 1060,
// A by B's, 0: A is served (with every term 0 the tie would give B).
func TestLeastWasteIntegerRiskNonZero(t *testing.T) {
	a := Request{Job: 1, Kind: Input, Nodes: 100, Duration: 10, Since: 0, Recovery: 1, Seq: 0, Order: 2}
	b := Request{Job: 2, Kind: Input, Nodes: 10, Duration: 10, Since: 50, Recovery: 1, Seq: 1, Order: 1}
	in := LeastWaste{Swapped: true, IntegerRisk: true}
	if w := in.Waste(100, []Request{a, b}, 1, 1); w != 1060 {
		t.Errorf("integer risk W_B = %v, want 1060", w)
	}
	if w := in.Waste(100, []Request{a, b}, 0, 1); w != 0 {
		t.Errorf("integer risk W_A = %v, want 0", w)
	}
	if got := in.Pick(100, []Request{a, b}, Env{NodeMTBF: 1}); got != 0 {
		t.Errorf("integer risk picks %d, want 0 (A)", got)
	}
}

// pickFiltered's tolerance is what keeps Pick's decision that of the
// O(n²) loop when scores differ in the last bits: copies of a few requests
// nudged by an ulp or two (so that W_i differ by rounding alone, where the
// O(n) estimate cannot tell them apart), with equal and unequal Seq, plus
// requests outside its preconditions (a request from the future, a zero
// node MTBF: negative or infinite terms), where it must fall back.
func TestPickFilteredNearTies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w, now, env := genRequests(t)
		base := len(w)
		for n := rapid.IntRange(filterMin, 120).Draw(t, "n"); len(w) < n; {
			r := w[rapid.IntRange(0, base-1).Draw(t, "copy")]
			for k := rapid.IntRange(0, 2).Draw(t, "ulps"); k > 0; k-- {
				r.Since = math.Nextafter(r.Since, math.Inf(rapid.IntRange(-1, 1).Draw(t, "dir")))
				r.Duration = math.Nextafter(r.Duration, math.Inf(1))
			}
			r.Seq = uint64(rapid.IntRange(0, 5).Draw(t, "seq"))
			w = append(w, r)
		}
		if rapid.IntRange(0, 5).Draw(t, "future") == 0 {
			w[0].Since = now + 1
		}
		if rapid.IntRange(0, 9).Draw(t, "mu0") == 0 {
			env.NodeMTBF = 0
		}
		for _, lw := range []LeastWaste{{}, {Printed: true}} {
			want, wantW := 0, 0.0
			for i := range w {
				wi := lw.Waste(now, w, i, env.NodeMTBF)
				if i == 0 || wi < wantW || (wi == wantW && w[i].Seq < w[want].Seq) {
					want, wantW = i, wi
				}
			}
			if got := lw.Pick(now, w, env); got != want && !math.IsNaN(wantW) {
				t.Fatalf("%+v: Pick %d, the loop over Waste %d (W %v against %v)", lw, got, want, lw.Waste(now, w, got, env.NodeMTBF), wantW)
			}
		}
	})
}

// The filter rules out all but a few candidates on requests like a
// simulation's (distinct times and sizes, mantissas in full): it is the
// O(n) path, not the O(n²) loop in disguise.
func TestPickFilteredPrunes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(filterMin, 200).Draw(t, "n")
		now := rapid.Float64Range(1e3, 1e7).Draw(t, "now")
		mu := rapid.Float64Range(1e4, 1e9).Draw(t, "mu")
		off := rapid.Float64Range(0, 1).Draw(t, "offset")
		frac := func(x float64) float64 { return x - math.Floor(x) }
		w := make([]Request, n)
		for j := range w {
			x := off + float64(j)
			w[j] = Request{Kind: Kind(j % 5), Nodes: 1 + int(9999*frac(x*math.Phi)),
				Duration: 1 + 4999*frac(x*math.Sqrt2), Since: now * frac(x*math.Pi),
				LastCheckpoint: now * frac(x*math.E), Recovery: 1 + 4999*frac(x*math.SqrtPi), Seq: uint64(j)}
		}
		for _, lw := range []LeastWaste{{}, {Printed: true}} {
			_, s, ok := lw.pickFiltered(now, w, mu)
			if !ok {
				t.Fatalf("%+v: pickFiltered fell back on valid requests", lw)
			}
			if s > 2 {
				t.Fatalf("%+v: %d of %d candidates survive the filter", lw, s, n)
			}
		}
	})
}
