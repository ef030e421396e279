package slurm

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
)

// HistoryOptions tunes ReadHistory.
type HistoryOptions struct {
	// Format forces a layout (trace.HistoryPlain, trace.HistoryCSV or
	// trace.HistorySacct); empty detects it: a first line (neither blank
	// nor a "#" comment) with a "|" is sacct output, anything else is read
	// by trace.ReadWalltimes.
	Format trace.HistoryFormat
	// Column selects the CSV column (see trace.WalltimesOptions). It does not
	// apply to sacct output, where ElapsedRaw (else Elapsed) and the
	// comments that ckpt run leaves are read.
	Column string
	// States chooses the sacct states of lone jobs; the zero value is
	// DefaultRunsOptions. A state that is not a Slurm job state is an
	// error (RunsOptions.Validate).
	States RunsOptions
}

// History is a walltime history: its runs, complete or right-censored,
// with what was skipped and why.
type History struct {
	Runs
	// Format is the layout read.
	Format trace.HistoryFormat `json:"format"`
	// Column is the CSV column read.
	Column string `json:"column,omitempty"`
}

// ReadHistory reads the past walltimes of a job in any layout ckpt
// knows: sacct --parsable2 output (ReadSacct, then GroupRuns: a chain of
// reservations is one run, runs that never finished are censored, jobs in
// other states are skipped and counted), or a plain list or CSV column of
// walltimes (trace.ReadWalltimes), all complete runs in file order. A
// history without a run is an error that says what was skipped. The name
// is used in errors only. The input is read into memory once: O(bytes).
func ReadHistory(r io.Reader, name string, opt HistoryOptions) (History, error) {
	if err := opt.States.Validate(); err != nil {
		return History{}, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return History{}, fmt.Errorf("%s: %v", name, err)
	}
	format := opt.Format
	if format == trace.HistoryAuto && strings.Contains(firstLine(data), "|") {
		format = trace.HistorySacct
	}
	if format != trace.HistorySacct {
		h, err := trace.ReadWalltimes(bytes.NewReader(data), name, trace.WalltimesOptions{Format: format, Column: opt.Column})
		if err != nil {
			return History{}, err
		}
		out := History{Runs: Runs{Skipped: map[string]int{}, Complete: len(h.Values)}, Format: h.Format, Column: h.Column}
		for _, v := range h.Values {
			out.Runs.Runs = append(out.Runs.Runs, HistoryRun{Walltime: v})
		}
		return out, nil
	}
	if opt.Column != "" {
		return History{}, fmt.Errorf("%s: sacct output: the column cannot be chosen (ElapsedRaw, else Elapsed, and the ckpt comments are read)", name)
	}
	recs, err := ReadSacct(bytes.NewReader(data), name)
	if err != nil {
		return History{}, err
	}
	states := opt.States
	if states.Complete == nil && states.Censored == nil {
		states = DefaultRunsOptions
	}
	h := History{Runs: GroupRuns(recs, states), Format: trace.HistorySacct}
	if len(h.Runs.Runs) == 0 {
		return h, fmt.Errorf("%s: no runs in %d sacct jobs (skipped: %s); lone jobs count when %s (complete) or %s (censored)",
			name, len(recs), h.SkippedSummary(), orNone(states.Complete), orNone(states.Censored))
	}
	return h, nil
}

// SkippedSummary lists the skipped runs by reason, "3 state CANCELLED,
// 1 elapsed time 0", in the order of the reasons; "none" when nothing was
// skipped.
func (r Runs) SkippedSummary() string {
	var parts []string
	for _, why := range slices.Sorted(maps.Keys(r.Skipped)) {
		parts = append(parts, fmt.Sprintf("%d %s", r.Skipped[why], why))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func orNone(states []string) string {
	if len(states) == 0 {
		return "none"
	}
	return strings.Join(states, "|")
}

// firstLine returns the first line of data that is neither blank nor a
// "#" comment.
func firstLine(data []byte) string {
	for line := range strings.Lines(string(data)) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return ""
}
