package memplan

import (
	"errors"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/profile"
	"github.com/ckpt-hpc/ckpt/reservation"
)

// ErrHeavyTail is wrapped by the error of PlanApp (and CheckModel) when a
// task law is too heavy-tailed for the planner.
var ErrHeavyTail = errors.New("the task laws are too heavy-tailed for the planner")

// MaxMemMargin is the largest AppPlanOptions.MemMargin: a request of 11
// times the model's memory is already far beyond a headroom.
const MaxMemMargin = 10

// MaxMemory is the largest memory request, in GB, a plan may carry (one
// exabyte): larger requests come from a unit error in a profile (a memory in
// bytes where GB are meant) and would overflow a scheduler's request in MiB.
// It is profile.MaxMem, the bound of a task's memory.
const MaxMemory = profile.MaxMem

// CheckModel refuses an application model the planner would turn into a
// wrong plan: the planner works on the law of the total walltime (total,
// from app.Total), discretised on a grid when a task is not Normal, and a
// task law of heavy tail (a Pareto) stretches that grid until short tasks
// round to 0. It refuses a task law of infinite or undefined mean, and a
// total whose mean is more than 1% off the sum of the task means. The errors
// wrap ErrHeavyTail. O(n) mean evaluations for n tasks.
func CheckModel(app *profile.App, total distribution.Distribution) error {
	for i, t := range app.Tasks {
		if m := t.Walltime.Mean(); math.IsInf(m, 0) || math.IsNaN(m) {
			return fmt.Errorf("%w: task %d (%s) has mean %v; use a lighter family (normal, the paper's)", ErrHeavyTail, i+1, t.Walltime, m)
		}
	}
	if m, want := total.Mean(), app.MeanWalltime(); !(math.Abs(m-want) <= 0.01*want) {
		return fmt.Errorf("%w: discretised, their total has mean %.4g s instead of %.4g s; use a lighter family (normal, the paper's)", ErrHeavyTail, m, want)
	}
	return nil
}

// DescribeTotal is a short description of the law of the total walltime:
// its spec when every task is Normal (the exact sum), otherwise a summary of
// the grid convolution, whose spec would list thousands of points.
func DescribeTotal(d distribution.Distribution) string {
	if n, ok := d.(distribution.Normal); ok {
		return fmt.Sprintf("normal:mu=%.6g,sigma=%.6g", n.Mu, n.Sigma)
	}
	return fmt.Sprintf("sum of the task laws on a grid: mean %.5g s, median %.5g s, 99th percentile %.5g s", d.Mean(), d.Quantile(0.5), d.Quantile(0.99))
}

// checkTotal refuses, in words that describe the total briefly, the bounded
// totals reservation.Law would refuse quoting their full spec (a grid
// convolution of thousands of points).
func checkTotal(total distribution.Distribution) error {
	if _, ok := total.(distribution.Normal); ok {
		return nil // reservation.Law's errors quote its short spec
	}
	lo, hi := total.Support()
	switch {
	case lo < 0 || math.IsInf(hi, 1):
		return nil
	case hi <= 0:
		return fmt.Errorf("the total walltime law (%s) puts all its probability on 0", DescribeTotal(total))
	case hi > reservation.MaxWalltime:
		return fmt.Errorf("the total walltime law (%s) reaches %.3g s, beyond the limit of %.0e s on walltimes; check the units of the task laws (seconds)",
			DescribeTotal(total), hi, reservation.MaxWalltime)
	}
	return nil
}

// OptionError reports an AppPlanOptions field out of range:
// "memory margin 1e+300, want a value in [0, 10]". Field is the Go field
// ("MemMargin", "Ckpt.Bandwidth"), so that a command line can name its own
// flag instead of Name.
type OptionError struct {
	Field string // AppPlanOptions field, "Ckpt.Latency" for a nested one
	Name  string // the option in words: "memory margin"
	Value string // the value, as %v formats it: "1e+300"
	Unit  string // its unit ("s", "GB/s"), or ""
	Want  string // the range: "want a value in [0, 10]"
}

// Error is "Name Value[ Unit], Want", on one line.
func (e *OptionError) Error() string {
	v := e.Value
	if e.Unit != "" {
		v += " " + e.Unit
	}
	return e.Name + " " + v + ", " + e.Want
}

// Validate reports the first option out of range as an *OptionError. The
// checkpoint cost is checked as profile.CheckpointCost.Validate checks it;
// durations are at most reservation.MaxWalltime.
func (o AppPlanOptions) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for _, c := range []struct {
		ok                      bool
		field, name, unit, want string
		value                   any
	}{
		{o.N >= 2 && o.N <= reservation.MaxGridPoints, "N", "discretisation points", "",
			fmt.Sprintf("want at least 2 and at most %d (the planner takes O(n²) time)", reservation.MaxGridPoints), o.N},
		{o.TailMass >= 0 && o.TailMass < 1, "TailMass", "tail mass", "", "want a value in [0, 1) (0: the default)", o.TailMass},
		{o.CkptTau >= 0 && o.CkptTau < 1, "CkptTau", "checkpoint tau", "", "want a value in [0, 1)", o.CkptTau},
		{o.MemTau >= 0 && o.MemTau < 1, "MemTau", "memory tau", "", "want a value in [0, 1)", o.MemTau},
		{o.V2Eps > 0 && o.V2Eps < 1, "V2Eps", "mem-all-ckpt-v2 epsilon", "", "want a value in (0, 1)", o.V2Eps},
		{o.MemMargin >= 0 && o.MemMargin <= MaxMemMargin, "MemMargin", "memory margin", "", fmt.Sprintf("want a value in [0, %d]", MaxMemMargin), o.MemMargin},
		{o.Restart >= 0 && o.Restart <= reservation.MaxWalltime, "Restart", "restart cost", "s", fmt.Sprintf("want a value in [0, %.0e]", reservation.MaxWalltime), o.Restart},
		{o.Steps >= 0, "Steps", "timeline steps", "", "want >= 0 (0: the default)", o.Steps},
		{o.MaxLength >= 0 && o.MaxLength <= reservation.MaxWalltime, "MaxLength", "longest reservation", "s", fmt.Sprintf("want a value in [0, %.0e] (0: no bound)", reservation.MaxWalltime), o.MaxLength},
		{o.Ckpt.Latency >= 0 && o.Ckpt.Latency <= reservation.MaxWalltime, "Ckpt.Latency", "checkpoint latency", "s", fmt.Sprintf("want a value in [0, %.0e]", reservation.MaxWalltime), o.Ckpt.Latency},
		{o.Ckpt.Bandwidth >= profile.MinBandwidth && finite(o.Ckpt.Bandwidth), "Ckpt.Bandwidth", "checkpoint bandwidth", "GB/s", fmt.Sprintf("want a finite value >= %g", profile.MinBandwidth), o.Ckpt.Bandwidth},
	} {
		if !c.ok {
			return &OptionError{Field: c.field, Name: c.name, Value: fmt.Sprint(c.value), Unit: c.unit, Want: c.want}
		}
	}
	return nil
}

// checkMemory refuses a request above MaxMemory.
func checkMemory(peak, grow float64) error {
	if r := peak * grow; !(r <= MaxMemory) {
		return fmt.Errorf("memory request %.3g GB (peak %.3g GB with margin %g) exceeds the limit of %.0e GB; check the units of mem (GB)", r, peak, grow-1, float64(MaxMemory))
	}
	return nil
}
