package slurm

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/units"
)

// Find loads chain id: a chain folder path, or a chain id under Root.
func Find(id string) (*State, error) {
	dir := id
	if !strings.ContainsRune(id, filepath.Separator) {
		root, err := Root()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(root, id)
	}
	return Load(dir)
}

// ParseAhead reads a rolling window as ckpt reserve --ahead takes it: a
// number >= 1, or "all" (0: every reservation up front).
func ParseAhead(s string) (int, error) {
	if s == "all" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q: want a number >= 1 or all", s)
	}
	return n, nil
}

// WriteText renders the status as ckpt chain status prints it: a summary
// line, then one row per reservation, then the warnings.
func (cs ChainStatus) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	outcome := cs.Outcome
	if cs.Reason != "" {
		outcome += " (" + cs.Reason + ")"
	}
	fmt.Fprintf(w, "chain %s (%s): %s, progress saved %s, %d reservations planned\n", cs.ID, cs.Name, outcome, units.FormatSeconds(cs.Progress), cs.Reservations)
	fmt.Fprintf(w, "%-12s %-10s %-12s %-13s %s\n", "reservation", "job", "state", "outcome", "progress")
	var notes []string
	for _, j := range cs.Jobs {
		progress := "-"
		switch {
		case j.Outcome == OutcomeSkipped:
			progress = units.FormatSeconds(j.Progress) + " saved"
		case j.Outcome != "":
			progress = units.FormatSeconds(j.Progress)
		}
		state := j.State
		if state == "PENDING" && j.Reason != "" && j.Reason != "None" {
			state += " (" + j.Reason + ")"
		}
		fmt.Fprintf(w, "%-12d %-10s %-12s %-13s %s\n", j.Reservation, j.JobID, orDash(state), orDash(j.Outcome), progress)
		if j.Note != "" {
			notes = append(notes, fmt.Sprintf("reservation %d: %s", j.Reservation, j.Note))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	for _, m := range cs.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	return w.Err()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Cancelled is what ckpt chain cancel reports: the chain and the jobs it
// asked Slurm to cancel.
type Cancelled struct {
	ID   string   `json:"id"`
	Jobs []string `json:"jobs"`
}

// WriteText renders the cancellation in one line.
func (c Cancelled) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "cancelled %d job(s) of chain %s %v\n", len(c.Jobs), c.ID, c.Jobs)
	return err
}

// HistoryReport is what ckpt chain history reports: the runs of a history
// (read from Name) and the law learnt from them.
type HistoryReport struct {
	Name    string
	History History
	Learned Learned
}

// MarshalJSON writes the runs, the law and its mean in one object.
func (r HistoryReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Runs
		Learned
		Mean output.Number `json:"mean"`
	}{r.History.Runs, r.Learned, output.Number(r.Learned.Law.Mean())})
}

// WriteText renders the report: the runs counted (complete, censored,
// skipped and why), then the law and how to plan with it.
func (r HistoryReport) WriteText(out io.Writer) error {
	h, learned := r.History, r.Learned
	w := output.NewWriter(out)
	fmt.Fprintf(w, "%s: %d runs complete, %d censored", r.Name, h.Complete, h.Censored)
	for _, why := range slices.Sorted(maps.Keys(h.Skipped)) {
		fmt.Fprintf(w, ", %d skipped (%s)", h.Skipped[why], why)
	}
	fmt.Fprintf(w, "\nlaw (%s): ", learned.Fit)
	switch {
	case learned.Spec != "":
		fmt.Fprintf(w, "%s\nmean %s; plan with: ckpt reserve --dist %s\n", learned.Spec, units.FormatSeconds(learned.Law.Mean()), learned.Spec)
	case h.Censored > 0:
		fmt.Fprintf(w, "Kaplan-Meier estimate, median %s, 90%% quantile %s\n", units.FormatSeconds(learned.Law.Quantile(0.5)), units.FormatSeconds(learned.Law.Quantile(0.9)))
	default:
		fmt.Fprintf(w, "empirical, median %s, 90%% quantile %s\n", units.FormatSeconds(learned.Law.Quantile(0.5)), units.FormatSeconds(learned.Law.Quantile(0.9)))
	}
	return w.Err()
}
