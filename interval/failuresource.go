package interval

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// MaxDuration is the largest duration, in seconds, a task's work, costs or
// MTBF may have: 10¹⁰ s, about 317 years, the limit reservation puts on
// walltimes. Beyond it a duration is almost certainly in the wrong unit,
// and Eq. (4) and the exact expectations lose every digit.
const MaxDuration = 1e10

// FailureSource says where a task's failures come from; Load resolves it.
// It is the one place ckpt turns failure inputs into E(Y), an MTBF or a
// law: given numbers (ExpectedFailures, MTBF), a law spec (Dist), a list of
// failure times to replay (FailureTimes), or failure history estimated
// from a file: a GloudSim task trace (GloudSim), the LANL failure log
// (LANL), a Failure Trace Archive data set (FTA) or Google cluster task
// events (Google). At most one file or spec; ExpectedFailures and MTBF may
// be given together, and ExpectedFailures beside LANL (which gives the
// MTBF).
type FailureSource struct {
	// ExpectedFailures is E(Y), the expected number of failures during the
	// task (MNOF), finite and >= 0; nil when not given.
	ExpectedFailures *float64 `json:"expected_failures,omitempty"`
	// MTBF is the mean time between failures in seconds, in
	// (0, MaxDuration]; 0 when not given.
	MTBF float64 `json:"mtbf_s,omitempty"`
	// Dist is a distribution spec (distribution.Parse) of the times
	// between failures, e.g. weibull:k=0.7,lambda=6h.
	Dist string `json:"dist,omitempty"`
	// FailureTimes is a file of failure times to replay, one a line from
	// the task's start (ReadFailureTimes).
	FailureTimes string `json:"failure_times,omitempty"`
	// GloudSim is a GloudSim task trace (*.dat): E(Y) and the MTBF of the
	// tasks of Priority whose work is below MaxLength (TraceFilter).
	GloudSim string `json:"gloudsim,omitempty"`
	// Priority is the priority group of GloudSim or Google, as in the
	// file (Google: 0–11, which the paper prints 1–12); -1: every group.
	// Only read with GloudSim or Google.
	Priority int `json:"priority"`
	// MaxLength keeps, with GloudSim, the tasks whose work is below it, in
	// seconds; 0: no limit.
	MaxLength float64 `json:"max_length_s,omitempty"`
	// LANL is the LANL failure log (CSV): the MTBF of System and the law
	// fitted to its inter-event times.
	LANL string `json:"lanl,omitempty"`
	// System is the LANL system number; -1: none chosen (the error lists
	// the systems). Only read with LANL.
	System int `json:"system"`
	// FTA is a Failure Trace Archive event trace, or its folder: for a task
	// on Nodes typical nodes, E(Y) = Nodes·Te/node MTBF.
	FTA string `json:"fta,omitempty"`
	// Nodes is the number of nodes the task runs on with FTA, >= 1.
	Nodes int `json:"nodes,omitempty"`
	// Google is a Google cluster trace v2 task_events table (.csv or
	// .csv.gz): E(Y) and the MTBF of the tasks of Priority.
	Google string `json:"google,omitempty"`
}

// Failures is a FailureSource loaded for a task.
type Failures struct {
	// EY and MTBF are E(Y) and the MTBF in seconds; NaN when the source
	// does not give one (Corollary 1 gives it from the other).
	EY, MTBF float64
	// Law draws the times between failures (for simulation): the law of
	// Dist, the exponential at a given MTBF (or at Te/E(Y)), LANL's best fit
	// (nil when no law fits); nil for the
	// estimates of GloudSim, FTA and Google and for FailureTimes.
	Law distribution.Distribution
	// Replay holds the times between the failures of FailureTimes.
	Replay []float64
	// Source describes where the failures came from, for a report.
	Source string
	// Data is the history the estimate came from, for a picture (nil for
	// given numbers); its Fits are filled when Load is asked to fit.
	Data *FailureData
}

// LANLMinFailures is the least number of failures a LANL system needs
// to be used.
const LANLMinFailures = 2

// files lists the file or spec fields that are set, by JSON name.
func (s FailureSource) files() []string {
	var out []string
	for _, f := range []struct{ name, v string }{{"dist", s.Dist}, {"failure_times", s.FailureTimes}, {"gloudsim", s.GloudSim},
		{"lanl", s.LANL}, {"fta", s.FTA}, {"google", s.Google}} {
		if f.v != "" {
			out = append(out, f.name)
		}
	}
	return out
}

// Validate checks the source's numbers and that it names one source;
// errors name the field (prefixed "failures."). It reads no file.
func (s FailureSource) Validate() error {
	files := s.files()
	ey := s.ExpectedFailures
	if s.MTBF != 0 {
		if err := checkDuration("failures.mtbf_s", s.MTBF, false); err != nil {
			return err
		}
	}
	switch {
	case ey != nil && !(*ey >= 0 && !math.IsInf(*ey, 0)):
		return usage.Fieldf("failures.expected_failures", "must be a finite number >= 0, got %v", *ey)
	case !(s.MaxLength >= 0):
		return usage.Fieldf("failures.max_length_s", "must be >= 0 (0: no limit), got %v", s.MaxLength)
	case s.Priority < -1:
		return usage.Fieldf("failures.priority", "must be a priority group >= 0, or -1 for all, got %d", s.Priority)
	case s.System < -1:
		return usage.Fieldf("failures.system", "must be a system number >= 0 (-1: none chosen), got %d", s.System)
	case s.FTA != "" && s.Nodes < 1:
		return usage.Fieldf("failures.nodes", "with fta, the number of nodes must be >= 1, got %d", s.Nodes)
	case len(files) > 1:
		return usage.Fieldf("failures", "give one of %v, not %v together", []string{"dist", "failure_times", "gloudsim", "lanl", "fta", "google"}, files)
	case len(files) == 0 && ey == nil && s.MTBF == 0:
		return usage.Fieldf("failures", "give the expected number of failures E(Y), the MTBF, a law, failure times or a failure history (gloudsim, lanl, fta, google)")
	case len(files) == 1 && files[0] != "lanl" && (ey != nil || s.MTBF != 0):
		return usage.Fieldf("failures."+files[0], "gives the failures itself: do not give E(Y) or the MTBF too")
	case s.LANL != "" && s.MTBF != 0:
		return usage.Fieldf("failures.lanl", "estimates the MTBF: do not give the MTBF too")
	case s.MaxLength != 0 && s.GloudSim == "":
		return usage.Fieldf("failures.max_length_s", "goes with gloudsim")
	case s.Nodes != 0 && s.FTA == "":
		return usage.Fieldf("failures.nodes", "goes with fta")
	}
	return nil
}

// Load reads the source for a task of work te seconds (FTA's E(Y) depends
// on it; so does the exponential law of a given E(Y)). With fit, the laws
// FitInterFailure (FTAFitFamilies for FTA) fits to the history are kept
// in Data for a picture; LANL always fits (its law is the best fit).
// Every error is a usage error: the source's values or files are wrong.
func (s FailureSource) Load(te float64, fit bool) (Failures, error) {
	if err := s.Validate(); err != nil {
		return Failures{}, err
	}
	out := Failures{EY: math.NaN(), MTBF: math.NaN(), Source: "given"}
	if s.ExpectedFailures != nil {
		out.EY = *s.ExpectedFailures
	}
	if s.MTBF != 0 {
		out.MTBF = s.MTBF
	}
	var err error
	switch {
	case s.Dist != "":
		if out.Law, err = distribution.Parse(s.Dist); err != nil {
			return out, usage.Fieldf("failures.dist", "%v", err)
		}
		out.MTBF, out.Source = out.Law.Mean(), out.Law.String()
	case s.FailureTimes != "":
		err = s.loadReplay(&out)
	case s.GloudSim != "":
		err = s.loadGloudSim(&out, fit)
	case s.LANL != "":
		err = s.loadLANL(&out)
	case s.FTA != "":
		err = s.loadFTA(&out, te, fit)
	case s.Google != "":
		err = s.loadGoogle(&out)
	case s.MTBF != 0:
		out.Law = distribution.Exponential{Rate: 1 / s.MTBF}
	case out.EY > 0 && te > 0:
		out.Law = distribution.Exponential{Rate: out.EY / te}
	}
	return out, err
}

func (s FailureSource) loadReplay(out *Failures) error {
	fh, err := usage.Open(s.FailureTimes)
	if err != nil {
		return err
	}
	defer fh.Close()
	gaps, err := ReadFailureTimes(fh)
	if err != nil {
		return usage.Fieldf("failures.failure_times", "%s: %v", s.FailureTimes, err)
	}
	if gaps == nil {
		gaps = []float64{}
	}
	out.Replay, out.MTBF = gaps, MeanGap(gaps)
	out.Source = fmt.Sprintf("replay of %s (%d failures)", s.FailureTimes, len(gaps))
	return nil
}

func (s FailureSource) loadGloudSim(out *Failures, fit bool) error {
	filter := TraceFilter{Priority: s.Priority, MaxLength: math.Inf(1)}
	if s.MaxLength > 0 {
		filter.MaxLength = s.MaxLength
	}
	tr, err := trace.ReadGloudSimFile(s.GloudSim)
	if err != nil {
		return usage.Wrap(err)
	}
	tasks := TasksFromGloudSim(tr)
	st, err := EstimateFiltered(tasks, filter)
	if err != nil {
		return usage.Fieldf("failures.gloudsim", "%s: %v", s.GloudSim, err)
	}
	out.EY, out.MTBF = st.Model()
	if fit {
		iv := FailureIntervals(filter.Select(tasks))
		fits, _ := FitInterFailure(iv)
		out.Data = &FailureData{Source: fmt.Sprintf("%s (%s)", filepath.Base(s.GloudSim), filter), Intervals: iv, Fits: fits, MTBF: st.MTBF}
	}
	out.Source = fmt.Sprintf("%s: %d tasks (%s), %d failures: MNOF %.4g, MTBF %.4g s",
		s.GloudSim, st.Tasks, filter, st.Failures, st.MNOF, st.MTBF)
	return nil
}

func (s FailureSource) loadLANL(out *Failures) error {
	recs, err := trace.ReadLANLFile(s.LANL)
	if err != nil {
		return usage.Wrap(err)
	}
	sys, err := LANLSystem(recs, s.System, LANLMinFailures)
	if err != nil {
		what := ""
		if s.System < 0 {
			what = "give a system; "
		}
		return usage.Fieldf("failures.lanl", "%s: %s%v", s.LANL, what, err)
	}
	best := "none"
	if law, err := sys.BestFit(); err == nil {
		out.Law, best = law, law.String()
	}
	out.MTBF = sys.MTBF
	out.Data = &FailureData{Source: fmt.Sprintf("LANL system %d", sys.System), Intervals: sys.Intervals, Fits: sys.Fits, MTBF: sys.MTBF}
	out.Source = fmt.Sprintf("%s: system %d, %d failures, MTBF %.4g s; best fit of the inter-event times (AIC): %s",
		s.LANL, sys.System, sys.Failures, sys.MTBF, best)
	return nil
}

// FTAFitFamilies are the laws FitFTA fits to a Failure Trace Archive
// sample of inter-failure times.
var FTAFitFamilies = []string{"exponential", "weibull", "lognormal", "gamma"}

// FitFTA fits FTAFitFamilies to the inter-failure times an FTA estimate
// sampled, by maximum likelihood, best AIC first (distribution.FitRanked);
// nil for fewer than 2 samples. O(N log N).
func FitFTA(s trace.FTAStats) []distribution.Candidate {
	if len(s.Sample) < 2 {
		return nil
	}
	return distribution.FitRanked(s.Sample, FTAFitFamilies, distribution.ByAIC)
}

// ReadFTA estimates the statistics of an FTA data set (a folder or its
// event trace; trace.ReadFTAFile) with the reservoir sampling seeded by
// seed; a missing file or a bad line is a usage error.
func ReadFTA(path string, seed uint64) (trace.FTAStats, error) {
	st, err := trace.ReadFTAFile(path, trace.FTAOptions{Seed: seed})
	return st, usage.Wrap(err)
}

func (s FailureSource) loadFTA(out *Failures, te float64, fit bool) error {
	st, err := ReadFTA(s.FTA, 0)
	if err != nil {
		return err
	}
	if st.Failures == 0 {
		return usage.Fieldf("failures.fta", "%s: no failure in the trace, no MTBF to estimate", s.FTA)
	}
	nodes := s.Nodes
	out.EY = st.ExpectedFailuresOn(te, nodes)
	out.MTBF = float64(st.NodeMTBF) / float64(nodes)
	if fit {
		out.Data = &FailureData{Source: "FTA " + filepath.Base(s.FTA) + ", one node (fits only)", MTBF: float64(st.NodeMTBF), Fits: FitFTA(st)}
	}
	out.Source = fmt.Sprintf("%s: %d nodes, %d failures, node MTBF %.4g s; on %d node(s): E(Y) %.4g, MTBF %.4g s",
		s.FTA, len(st.Nodes), st.Failures, float64(st.NodeMTBF), nodes, out.EY, out.MTBF)
	return nil
}

// ReadGoogle estimates MNOF and MTBF per priority from a Google task
// events table (trace.EstimateGoogle); a missing file or a bad line is a
// usage error.
func ReadGoogle(path string) ([]trace.GooglePriorityStats, error) {
	fh, err := usage.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := trace.EstimateGoogle(fh, filepath.Base(path))
	return st, usage.Wrap(err)
}

func (s FailureSource) loadGoogle(out *Failures) error {
	stats, err := ReadGoogle(s.Google)
	if err != nil {
		return err
	}
	var sum trace.FailureCount
	for _, p := range stats {
		if s.Priority < 0 || p.Priority == s.Priority {
			sum = sum.Plus(p.FailureCount)
		}
	}
	if sum.Tasks == 0 {
		return usage.Fieldf("failures.google", "%s: no task of priority %d", s.Google, s.Priority)
	}
	st := statsOf(sum)
	out.EY, out.MTBF = st.Model()
	group := "all priorities"
	if s.Priority >= 0 {
		group = fmt.Sprintf("priority %d", s.Priority)
	}
	out.Source = fmt.Sprintf("%s: %d tasks (%s), %d failures: MNOF %.4g, MTBF %.4g s", s.Google, st.Tasks, group, st.Failures, st.MNOF, st.MTBF)
	return nil
}
