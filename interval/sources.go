package interval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

// TraceFilter selects the tasks of a trace from which E(Y) and the MTBF
// are estimated, as in Table 7 of the paper: one priority group, and tasks
// whose work is below a limit.
type TraceFilter struct {
	// Priority is the priority group as written in the trace (Google:
	// 0–11, which the paper prints 1–12); negative selects every group.
	Priority int
	// MaxLength keeps the tasks whose work Te is below it, > 0; +Inf
	// keeps every task.
	MaxLength float64
}

// AllTasks is the filter that keeps every task.
var AllTasks = TraceFilter{Priority: -1, MaxLength: math.Inf(1)}

// Keep reports whether the filter selects t.
func (f TraceFilter) Keep(t TraceTask) bool {
	return (f.Priority < 0 || t.Priority == f.Priority) && t.Te < f.MaxLength
}

// String describes the filter: "priority 1, work < 16m40s".
func (f TraceFilter) String() string {
	group := "all priorities"
	if f.Priority >= 0 {
		group = fmt.Sprintf("priority %d", f.Priority)
	}
	return fmt.Sprintf("%s, work < %s", group, units.FormatSeconds(f.MaxLength))
}

// Select returns the tasks the filter keeps, in order. O(len(tasks)).
func (f TraceFilter) Select(tasks []TraceTask) []TraceTask {
	var out []TraceTask
	for _, t := range tasks {
		if f.Keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// EstimateFiltered is Estimate over the tasks the filter keeps; an error
// when it keeps none (or MaxLength is not > 0). O(len(tasks) + failures).
func EstimateFiltered(tasks []TraceTask, f TraceFilter) (Stats, error) {
	if !(f.MaxLength > 0) {
		return Stats{}, fmt.Errorf("task-length limit must be > 0, got %v", f.MaxLength)
	}
	sel := f.Select(tasks)
	if len(sel) == 0 {
		return Stats{}, fmt.Errorf("no task of %s", f)
	}
	return Estimate(sel), nil
}

// Model returns E(Y) and the MTBF that the statistics give a task of
// the group: the MNOF, and the MTBF, +Inf when no task failed (NaN for an
// empty group).
func (s Stats) Model() (ey, mtbf float64) {
	if s.Tasks > 0 && s.Failures == 0 {
		return s.MNOF, math.Inf(1)
	}
	return s.MNOF, s.MTBF
}

// LANLSystemNumbers lists, in increasing order, the systems of a LANL
// failure log with at least minFailures failures. O(n log n).
func LANLSystemNumbers(recs []trace.LANLFailure, minFailures int) []int {
	var out []int
	for _, s := range trace.GroupLANLBySystem(recs) {
		if len(s.Failures) >= minFailures {
			out = append(out, s.System)
		}
	}
	return out
}

// LANLSystem returns the statistics and fits of one system of a LANL
// failure log (as LANLSystems, for that system alone), or an error that
// lists the systems with at least minFailures failures when it has fewer
// or when system is negative (none chosen). O(n log n).
func LANLSystem(recs []trace.LANLFailure, system, minFailures int) (SystemFailures, error) {
	if system < 0 {
		known := LANLSystemNumbers(recs, minFailures)
		if len(known) == 0 {
			return SystemFailures{}, fmt.Errorf("no system with at least %d failures", minFailures)
		}
		return SystemFailures{}, fmt.Errorf("no system chosen (systems: %s)", joinInts(known))
	}
	var mine []trace.LANLFailure
	for _, r := range recs {
		if r.System == system {
			mine = append(mine, r)
		}
	}
	if s := LANLSystems(mine, minFailures); len(s) == 1 {
		return s[0], nil
	}
	known := LANLSystemNumbers(recs, minFailures)
	if len(known) == 0 {
		return SystemFailures{}, fmt.Errorf("no system with at least %d failures", minFailures)
	}
	return SystemFailures{}, fmt.Errorf("no system %d with at least %d failures (systems: %s)", system, minFailures, joinInts(known))
}

// joinInts writes the numbers separated by ", ".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
