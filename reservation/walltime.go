package reservation

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/usage"
)

// DefaultLaw is the walltime law planned for when a Request names none:
// the paper's neuroscience example (Section 4.4, Fig. 7), a LogNormal of
// mean 21.4 h and standard deviation 19.7 h.
const DefaultLaw = "lognormal:mean=21.4h,sd=19.7h"

// WalltimeSource is where a job's walltime law comes from: a value that
// loads itself. LawSpec is a law given by its parameters; a history of past
// runs (a file of walltimes or sacct output) is slurm.HistorySource, which
// reads it and learns the law with FromHistory.
type WalltimeSource interface {
	// Validate checks the source's own fields without reading anything;
	// its error names the bad field.
	Validate() error
	// LoadWalltime loads the law. Errors caused by the input (a missing
	// file, a malformed line, a law out of range) are usage errors.
	LoadWalltime(ctx context.Context) (Walltime, error)
}

// Walltime is a walltime law ready to plan for, with where it came from.
type Walltime struct {
	// Law is the law as given or learnt, before truncation (see Law).
	Law distribution.Distribution
	// Source describes it for the report.
	Source LawSource
	// History holds the complete runs' walltimes in seconds, oldest first,
	// for the practitioners' baselines; nil for a law given by its spec.
	History []float64
	// Warnings about the law (a poor fit, skipped runs), one line each.
	Warnings []string
}

// LawSpec is a walltime law given as distribution.Parse reads it, e.g.
// "weibull:k=0.5,lambda=1h" (plain numbers are seconds).
type LawSpec string

// Validate refuses an empty spec.
func (s LawSpec) Validate() error {
	if strings.TrimSpace(string(s)) == "" {
		return usage.Fieldf("Walltime", "empty law spec")
	}
	return nil
}

// LoadWalltime parses the spec.
func (s LawSpec) LoadWalltime(context.Context) (Walltime, error) {
	d, err := distribution.Parse(string(s))
	if err != nil {
		return Walltime{}, usage.Wrap(err)
	}
	return Walltime{Law: d, Source: LawSource{Spec: d.String(), Mean: finite(d.Mean()), Median: finite(d.Quantile(0.5))}}, nil
}

// LawSource describes where the walltime law came from: the "law" object of
// the plan's JSON. Times are in seconds.
type LawSource struct {
	Spec   string   `json:"spec"`
	Mean   *float64 `json:"mean_s"` // nil when infinite (Pareto, alpha <= 1)
	Median *float64 `json:"median_s"`
	// History names the file of past runs ("stdin" for -), Runs counts them.
	History string `json:"history,omitempty"`
	Runs    int    `json:"runs,omitempty"`
	// Sacct counts, for a sacct history, the complete, censored and
	// skipped runs.
	Sacct *SacctCounts `json:"sacct,omitempty"`
	// Fit is the method that learnt the law (auto, empirical, a family)
	// and Fits the candidates of auto, by increasing BIC.
	Fit  string    `json:"fit,omitempty"`
	Fits []FitInfo `json:"fits,omitempty"`
	// KS is the Kolmogorov-Smirnov statistic of the fitted law against the
	// runs and KSCritical its 1% critical value 1.63/sqrt(runs) (absent
	// for --fit empirical).
	KS         *float64 `json:"ks,omitempty"`
	KSCritical *float64 `json:"ks_critical,omitempty"`
}

// FitInfo is one family fitted by --fit auto.
type FitInfo struct {
	Family string   `json:"family"`
	Spec   string   `json:"spec,omitempty"`
	AIC    float64  `json:"aic,omitempty"`
	BIC    float64  `json:"bic,omitempty"`
	KS     *float64 `json:"ks,omitempty"` // nil when runs are censored
	Note   string   `json:"note,omitempty"`
}

// SacctCounts are the runs of a sacct history: complete, censored (still
// running at their elapsed time) and skipped, by reason.
type SacctCounts struct {
	Complete int            `json:"complete"`
	Censored int            `json:"censored"`
	Skipped  map[string]int `json:"skipped"`
}

// skippedSummary lists the skipped runs by reason, "3 state CANCELLED,
// 1 elapsed time 0", in the order of the reasons; "none" when nothing was
// skipped.
func (s SacctCounts) skippedSummary() string {
	var parts []string
	for _, why := range slices.Sorted(maps.Keys(s.Skipped)) {
		parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[why], why))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// LearnedHistory is a law learnt from past runs, as FromHistory takes it.
type LearnedHistory struct {
	// Name names the history ("stdin" for standard input).
	Name string
	// Walltimes are the runs' walltimes in seconds, oldest first, and
	// Censored says which are right-censored (still running then).
	Walltimes []float64
	Censored  []bool
	// Sacct is set for a sacct history.
	Sacct *SacctCounts
	// Fit is the fit (distribution.FitHistoryCensored) and Method the
	// method asked for.
	Fit    distribution.HistoryFit
	Method string
}

// CheckWalltimes refuses a history with a walltime beyond MaxWalltime:
// almost certainly a unit error, which no truncation should hide.
func CheckWalltimes(name string, walltimes []float64) error {
	for _, w := range walltimes {
		if w > MaxWalltime {
			return usage.Errorf("%s: a walltime of %.3g s is beyond the limit of %.0e s; check the units (seconds)", name, w, MaxWalltime)
		}
	}
	return nil
}

// FromHistory is the Walltime of a law learnt from past runs: its source
// with the fitted candidates and the Kolmogorov-Smirnov check, a warning
// when that check fails or sacct jobs were skipped, and the complete runs
// for the baselines. It is where every history source ends.
func FromHistory(h LearnedHistory) Walltime {
	var w Walltime
	for i, t := range h.Walltimes {
		if i >= len(h.Censored) || !h.Censored[i] {
			w.History = append(w.History, t)
		}
	}
	src := LawSource{History: h.Name, Runs: len(h.Walltimes), Fit: h.Method, Sacct: h.Sacct}
	if s := h.Sacct; s != nil && len(s.Skipped) > 0 {
		w.Warnings = append(w.Warnings, fmt.Sprintf("%s: skipped %s", h.Name, s.skippedSummary()))
	}
	hf := h.Fit
	if !math.IsNaN(hf.KS) {
		src.KS, src.KSCritical = &hf.KS, &hf.KSCritical
		if msg := hf.Warning(h.Name); msg != "" {
			w.Warnings = append(w.Warnings, msg)
		}
	}
	d := hf.Law
	src.Spec, src.Fits, src.Mean, src.Median = d.String(), fitInfos(hf.Candidates), finite(d.Mean()), finite(d.Quantile(0.5))
	if disc, isDiscrete := d.(*distribution.Discrete); isDiscrete {
		censored := len(h.Walltimes) - len(w.History)
		src.Spec = fmt.Sprintf("empirical law of %d runs (%d distinct values)", len(h.Walltimes), len(disc.Values))
		if censored > 0 {
			src.Spec = fmt.Sprintf("Kaplan-Meier estimate of %d runs, %d censored (%d distinct values)", len(h.Walltimes), censored, len(disc.Values))
		}
	}
	w.Law, w.Source = d, src
	return w
}

// fitInfos turns FitHistory's ranked candidates into the report's rows.
func fitInfos(cands []distribution.Candidate) []FitInfo {
	var infos []FitInfo
	for _, c := range cands {
		info := FitInfo{Family: c.Family, AIC: c.AIC, BIC: c.BIC, KS: finite(c.KS)}
		if c.Dist != nil {
			info.Spec = c.Dist.String()
		}
		if c.Skipped != "" {
			info = FitInfo{Family: c.Family, Note: "skipped: " + c.Skipped}
		}
		infos = append(infos, info)
	}
	return infos
}

// finite turns NaN and ±Inf into JSON null.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
