package interval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/trace"
)

// loadGloud reads one GloudSim trace of the data folder, or skips the test
// or benchmark with the missing file's name (fails under CI).
func loadGloud(t testing.TB, kind string) trace.GloudSimTrace {
	t.Helper()
	tr, err := trace.ReadGloudSimFile(datadirtest.ForTest(t, trace.GloudSimData(kind)...))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// loadLANL reads the LANL failure log of the data folder, or skips.
func loadLANL(t testing.TB) []trace.LANLFailure {
	t.Helper()
	recs, err := trace.ReadLANLFile(datadirtest.ForTest(t, trace.LANLData...))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// The per-priority MTBF we estimate (mean of all failure intervals of the
// group) is the pjcMeanLength GloudSim wrote in the file for that group: an
// independent computation of the same quantity.
func TestEstimateMatchesGloudSimGroupMeans(t *testing.T) {
	for _, kind := range []string{"single", "batch", "mix"} {
		tr := loadGloud(t, kind)
		tasks := TasksFromGloudSim(tr)
		byP := ByPriority(tasks, math.Inf(1))
		checked := 0
		for p, want := range tr.PriorityMeanLength {
			st, ok := byP[p]
			if !ok {
				if !math.IsNaN(want) {
					t.Errorf("%s priority %d: no task, file MTBF %v", kind, p, want)
				}
				continue
			}
			checked++
			got := st.MTBF
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > 1e-4*want {
				t.Errorf("%s priority %d: MTBF %v, file %v (%d tasks, %d failures)", kind, p, got, want, st.Tasks, st.Failures)
			}
		}
		if checked < 5 {
			t.Errorf("%s: only %d priority groups", kind, checked)
		}
	}
}

// Maximum-likelihood fits recover the generating law (Pareto MLE in
// closed form; the others through distribution.Fit) and AIC prefers it.
func TestFitInterFailureRecoversLaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	laws := map[string]distribution.Distribution{
		"pareto":      distribution.Pareto{Xm: 10, Alpha: 1.5},
		"exponential": distribution.Exponential{Rate: 0.01},
		"weibull":     distribution.Weibull{K: 0.5, Lambda: 100},
		"lognormal":   distribution.LogNormal{Mu: 4, Sigma: 1.5},
	}
	for fam, law := range laws {
		xs := make([]float64, 20000)
		for i := range xs {
			xs[i] = law.Rand(rng)
		}
		fits, dropped := FitInterFailure(append(xs, 0))
		if dropped != 1 {
			t.Errorf("%s: dropped %d, want 1", fam, dropped)
		}
		if fits[0].Family != fam {
			t.Errorf("%s data: best fit %s", fam, fits[0].Family)
		}
		if fits[0].KS > 0.02 {
			t.Errorf("%s: KS %v", fam, fits[0].KS)
		}
		if fam == "pareto" {
			p := fits[0].Dist.(distribution.Pareto)
			if math.Abs(p.Alpha-1.5) > 0.05 || math.Abs(p.Xm-10) > 0.01 {
				t.Errorf("pareto fit %+v", p)
			}
		}
	}
}

// Hand-computed group statistics.
func TestEstimateByHand(t *testing.T) {
	tasks := []TraceTask{
		{Priority: 1, Te: 500, Failures: []float64{10, 20}},
		{Priority: 1, Te: 800, Failures: nil},
		{Priority: 1, Te: 5000, Failures: []float64{1000}},
		{Priority: 2, Te: 100, Failures: []float64{4}},
	}
	byP := ByPriority(tasks, 1000)
	if s := byP[1]; s.Tasks != 2 || s.Failures != 2 || s.MNOF != 1 || s.MTBF != 15 {
		t.Errorf("priority 1 below 1000: %+v", s)
	}
	all := ByPriority(tasks, math.Inf(1))
	if s := all[1]; s.Tasks != 3 || s.MNOF != 1 || s.MTBF != 1030.0/3 {
		t.Errorf("priority 1: %+v", s)
	}
	if s := Estimate(nil); !math.IsNaN(s.MNOF) || !math.IsNaN(s.MTBF) {
		t.Errorf("empty: %+v", s)
	}
}

func TestLANLSystems(t *testing.T) {
	recs := loadLANL(t)
	sys := LANLSystems(recs, 100)
	if len(sys) < 10 {
		t.Fatalf("%d systems with >= 100 failures", len(sys))
	}
	for _, s := range sys {
		if len(s.Fits) != 4 || s.Fits[0].Dist == nil {
			t.Errorf("system %d: fits %+v", s.System, s.Fits)
		}
		// The exponential fit's mean is the mean inter-event time, which
		// is at least the MTBF of trace.MTBF (events merge simultaneous
		// failures, so there are fewer, longer intervals).
		for _, ft := range s.Fits {
			if e, ok := ft.Dist.(distribution.Exponential); ok && 1/e.Rate < s.MTBF*(1-1e-9) {
				t.Errorf("system %d: exponential mean %v < MTBF %v", s.System, 1/e.Rate, s.MTBF)
			}
		}
	}
}
