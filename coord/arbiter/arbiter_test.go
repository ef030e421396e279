package arbiter

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim"
	"pgregory.net/rapid"
)

// Hand-computed decision (the same scenario as iosim's TestLeastWasteHand,
// worked independently): at now = 1000, μ_ind = 1e6,
//
//	0: input,      q=10, v=100, requested at 900  (d=100)
//	1: checkpoint, q=50, C=400, last checkpoint at 0 (d=1000), R=400
//	2: output,     q=20, v=50,  requested at 990  (d=10)
//
// W_0 = 20·110 + 100·2500/1e6·1450 = 2562.5, W_1 = 10·500 + 20·410 = 13200,
// W_2 = 10·150 + 50·2500/1e6·1425 = 1678.125: the output (2) wins.
func TestLeastWasteHand(t *testing.T) {
	w := []Request{
		{Job: 0, Kind: Input, Nodes: 10, Duration: 100, Since: 900, Seq: 0},
		{Job: 1, Kind: Checkpoint, Nodes: 50, Duration: 400, LastCheckpoint: 0, Recovery: 400, Seq: 1},
		{Job: 2, Kind: Output, Nodes: 20, Duration: 50, Since: 990, Seq: 2},
	}
	want := []float64{2562.5, 13200, 1678.125}
	for i := range w {
		if got := (LeastWaste{}).Waste(1000, w, i, 1e6); math.Abs(got-want[i]) > 1e-9 {
			t.Errorf("W_%d = %v, want %v", i, got, want[i])
		}
	}
	if i := (LeastWaste{}).Pick(1000, w, Env{NodeMTBF: 1e6}); i != 2 {
		t.Errorf("picked %d, want 2", i)
	}
	if i := (FCFS{}).Pick(0, []Request{{Seq: 4}, {Seq: 2}, {Seq: 9}}, Env{}); i != 1 {
		t.Errorf("FCFS picked %d, want 1", i)
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

func toIOSim(w []Request) []iosim.Request {
	out := make([]iosim.Request, len(w))
	for i, r := range w {
		out[i] = iosim.Request{Job: r.Job, Kind: iosim.Kind(r.Kind), Nodes: r.Nodes, Bytes: r.Bytes,
			Duration: r.Duration, Since: r.Since, LastCheckpoint: r.LastCheckpoint, Recovery: r.Recovery, Seq: r.Seq}
	}
	return out
}

// The policies are the simulator's, decision for decision: the oracle is
// iosim's own arbiters on the same queues (kinds have the same values).
func TestSameDecisionsAsIOSim(t *testing.T) {
	if iosim.Checkpoint != iosim.Kind(Checkpoint) || iosim.Output != iosim.Kind(Output) {
		t.Fatal("kind values differ from iosim's")
	}
	rapid.Check(t, func(t *rapid.T) {
		w, now, env := genRequests(t)
		iw := toIOSim(w)
		ienv := iosim.Env{NodeMTBF: env.NodeMTBF, Bandwidth: env.Bandwidth}
		for _, printed := range []bool{false, true} {
			if a, b := (LeastWaste{Printed: printed}).Pick(now, w, env), (iosim.LeastWaste{Printed: printed}).Pick(now, iw, ienv); a != b {
				t.Fatalf("least-waste printed=%v: picked %d, iosim %d", printed, a, b)
			}
		}
		if a, b := (FCFS{}).Pick(now, w, env), (iosim.FCFS{}).Pick(now, iw, ienv); a != b {
			t.Fatalf("fcfs: picked %d, iosim %d", a, b)
		}
	})
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
