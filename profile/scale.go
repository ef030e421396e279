package profile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/units"
)

// Scaled returns a copy of a whose task i runs factors[i] times longer:
// X'_i = factors[i]·X_i, memory M_i unchanged. It is the per-phase transfer
// of Section 4.5 (a model trained on one machine, each phase slowed by its
// own factor on another). Only Normal task laws (the paper's) are scaled,
// exactly: N(μ, σ) becomes N(f·μ, f·σ). It refuses a factor count other
// than the task count, a factor that is not finite and > 0, and any other
// law family. O(n) for n tasks.
func (a *App) Scaled(factors []float64) (*App, error) {
	if len(factors) != len(a.Tasks) {
		return nil, fmt.Errorf("%d slowdown factors for %d tasks", len(factors), len(a.Tasks))
	}
	out := &App{Name: a.Name, Tasks: make([]Task, len(a.Tasks))}
	for i, t := range a.Tasks {
		f := factors[i]
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("task %d: slowdown factor %v, want a finite value > 0", i+1, f)
		}
		n, ok := t.Walltime.(distribution.Normal)
		if !ok {
			return nil, fmt.Errorf("task %d: scaling supports Normal walltime laws, not %s", i+1, t.Walltime)
		}
		t.Walltime = distribution.Normal{Mu: f * n.Mu, Sigma: f * n.Sigma}
		out.Tasks[i] = t
	}
	return out, nil
}

// ReadPhaseTimes reads the phase walltimes of runs on another machine, the
// only output Section 4.5 assumes there: one run per line, its phase
// durations separated by commas, semicolons, tabs or spaces, each in the
// grammar of units.ParseSeconds (600, 10m, 00:10:00). Blank lines and
// lines starting with # are skipped; a first line whose first field is not
// a duration is a header and skipped too. It refuses an empty file, a
// duration it cannot read or below 0, and runs of different phase counts.
// O(size of the input).
func ReadPhaseTimes(r io.Reader) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out [][]float64
	line, header := 0, true // header: the first non-blank line may be a header
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fields := strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == ';' || c == ' ' || c == '\t' })
		if len(fields) == 0 {
			continue
		}
		first := header
		header = false
		if _, err := units.ParseSeconds(fields[0]); err != nil && first {
			continue
		}
		if len(fields) > MaxTasks {
			return nil, fmt.Errorf("line %d: %w: %d phases, more than %d", line, ErrTooLarge, len(fields), MaxTasks)
		}
		run := make([]float64, 0, len(fields))
		for i, f := range fields {
			d, err := units.ParseSeconds(f)
			if err != nil {
				return nil, fmt.Errorf("line %d, phase %d: %w", line, i+1, err)
			}
			if !(d >= 0 && d <= MaxSeconds) {
				return nil, fmt.Errorf("line %d, phase %d: duration %v s, want a value in [0, %.0e]", line, i+1, d, float64(MaxSeconds))
			}
			run = append(run, d)
		}
		if len(out) > 0 && len(run) != len(out[0]) {
			return nil, fmt.Errorf("line %d: %d phases, the first run has %d", line, len(run), len(out[0]))
		}
		out = append(out, run)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no run (one line of phase walltimes per run)")
	}
	return out, nil
}
