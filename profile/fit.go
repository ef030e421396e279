package profile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// FitApp fits the chain model of Eq. (1) to runs: task i's law is the
// maximum-likelihood fit of family to the durations of phase i, and M_i is
// the largest peak of phase i over the runs (the peak does not depend on
// the input, so the maximum of a few runs estimates it). family is any of
// distribution.FitFamilies ("normal" as in Section 3.2).
//
// A fit needs at least 2 runs, each with the same number of phases. When a
// phase has the same duration in every run (no spread to fit) its law is a
// Normal of standard deviation 1 s around that duration.
func FitApp(name string, runs []Run, family string) (*App, error) {
	if len(runs) < 2 {
		id := ""
		if len(runs) == 1 {
			id = " (run " + runs[0].ID + ")"
		}
		return nil, fmt.Errorf("fitting a walltime law per phase needs at least 2 runs, got %d%s", len(runs), id)
	}
	if !slices.Contains(distribution.FitFamilies(), family) {
		return nil, fmt.Errorf("fit family %q is not one of %s", family, strings.Join(distribution.FitFamilies(), ", "))
	}
	n := len(runs[0].Phases)
	if n == 0 {
		return nil, fmt.Errorf("run %s has no phase", runs[0].ID)
	}
	for _, r := range runs {
		if len(r.Phases) != n {
			return nil, fmt.Errorf("run %s has %d phases, run %s has %d", r.ID, len(r.Phases), runs[0].ID, n)
		}
	}
	a := &App{Name: name}
	for i := range n {
		xs := make([]float64, len(runs))
		peak := 0.0
		for k, r := range runs {
			xs[k] = r.Phases[i].Duration
			peak = math.Max(peak, r.Phases[i].Peak)
		}
		d, err := fitOne(family, xs)
		if err != nil {
			return nil, fmt.Errorf("task %d: %w", i+1, err)
		}
		a.Tasks = append(a.Tasks, Task{Name: fmt.Sprintf("task%d", i+1), Walltime: d, Mem: peak})
	}
	return a, nil
}

func fitOne(family string, xs []float64) (distribution.Distribution, error) {
	same := true
	for _, x := range xs[1:] {
		same = same && x == xs[0]
	}
	if same {
		return distribution.Normal{Mu: xs[0], Sigma: 1}, nil
	}
	return distribution.Fit(family, xs)
}

// Walltimes returns the total walltime of every run.
func Walltimes(runs []Run) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.Walltime()
	}
	return out
}
