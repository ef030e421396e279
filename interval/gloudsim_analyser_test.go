package interval

import (
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/trace"
)

// gloudsimLogs are the "tr" lines (mean WPR, lowest WPR) of the result logs
// the authors published with GloudSim (simFailureTrace/<trace>/<mode>/
// log-<formula>-<θ>.txt in nThanksForAllTheFish/gloudsim): the analyser's
// own output on these very traces, printed as Java floats. An oracle
// independent of this code; the paper's Table 6 and Fig. 9 round them.
var gloudsimLogs = []struct {
	file           string
	precise, young bool
	theta          float32
	mean, min      float32
}{
	{"single", true, false, 0.5, 0.94821435, 0.74171114},
	{"single", true, false, 1, 0.94729954, 0.7888036},
	{"single", true, true, 0.5, 0.9379311, 0.6325331},
	{"single", true, true, 1, 0.92497504, 0.5507433},
	{"single", false, false, 0.5, 0.9452773, 0.63192946},
	{"single", false, false, 1, 0.9408268, 0.65256274},
	{"single", false, true, 0.5, 0.91919196, 0.26124197},
	{"single", false, true, 1, 0.93411386, 0.39384615},
	{"batch", true, false, 0.5, 0.96026075, 0.74228674},
	{"batch", true, false, 1, 0.9566456, 0.7441176},
	{"batch", true, true, 0.5, 0.9544458, 0.7350955},
	{"batch", true, true, 1, 0.94693214, 0.6947177},
	{"batch", false, false, 0.5, 0.955094, 0.7167115},
	{"batch", false, false, 1, 0.9451525, 0.63414633},
	{"batch", false, true, 0.5, 0.9150871, 0.15526444},
	{"batch", false, true, 1, 0.9275414, 0.4620061},
	{"mix", true, false, 0.5, 0.94937813, 0.74171114},
	{"mix", true, false, 1, 0.9479231, 0.7441176},
	{"mix", true, true, 0.5, 0.9393454, 0.6325331},
	{"mix", true, true, 1, 0.92700845, 0.5507433},
	{"mix", false, false, 0.5, 0.9500272, 0.63192946},
	{"mix", false, false, 1, 0.94477516, 0.63414633},
	{"mix", false, true, 0.5, 0.891473, 0.069716804},
	{"mix", false, true, 1, 0.91757166, 0.39384615},
}

// TestGloudSimAnalyserMatchesAuthorsLogs: on the three traces, in both
// prediction modes, for both formulas and both θ, the analyser's average
// and lowest WPR equal the authors' logs to the last printed digit of a
// Java float.
func TestGloudSimAnalyserMatchesAuthorsLogs(t *testing.T) {
	groups := map[string][]GloudSimAnalyserGroup{}
	for _, c := range gloudsimLogs {
		g, ok := groups[c.file]
		if !ok {
			tr, err := trace.ReadGloudSimFile(datadirtest.ForTest(t, trace.GloudSimData(c.file)...))
			if err != nil {
				t.Fatal(err)
			}
			g = GloudSimAnalyserTrace(tr)
			groups[c.file] = g
		}
		r, err := GloudSimAnalyse(g, c.young, c.precise, c.theta, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.MeanWPR != c.mean || r.MinWPR != c.min {
			t.Errorf("%s precise=%v young=%v θ=%v: mean %v min %v; log %v %v", c.file, c.precise, c.young, c.theta, r.MeanWPR, r.MinWPR, c.mean, c.min)
		}
	}
}
