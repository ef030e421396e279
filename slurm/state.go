package slurm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/units"
)

// Outcomes a runner records.
const (
	OutcomeRunning      = "running"      // the app runs
	OutcomeDone         = "done"         // the work is complete
	OutcomeCheckpointed = "checkpointed" // a checkpoint saved Progress
	OutcomeKilled       = "killed"       // ended by the time limit or a signal without a new checkpoint
	OutcomeFailed       = "failed"       // the app failed before any checkpoint signal
	OutcomeOut          = "out"          // the last reservation ended and the work is not done
	OutcomeSkipped      = "skipped"      // an earlier reservation had already completed the work
	OutcomeCancelled    = "cancelled"    // ckpt chain cancel
	OutcomeVanished     = "vanished"     // the runner vanished (killed, node lost) before recording how it ended; marked by its successor
	OutcomeTimeout      = "timeout"      // Slurm's time limit came (SIGTERM): recorded before the app ends, replaced when it does
	OutcomeStalled      = "stalled"      // the chain stopped itself: reservations without new saved progress
	OutcomePreempted    = "preempted"    // Slurm preempted the reservation (and requeues it): censored at its work, neither done nor failed
)

// Outcome is what the runner of one reservation records, in
// DIR/rK.json.
type Outcome struct {
	Reservation int    `json:"reservation"`
	JobID       string `json:"job_id,omitempty"`
	Outcome     string `json:"outcome"`
	// Progress is the work saved (seconds): what the next reservation
	// resumes from.
	Progress float64 `json:"progress"`
	// Work is the work run through by the end of this reservation, saved
	// or not (seconds): a lower bound of the job's walltime.
	Work     float64   `json:"work"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	Deadline time.Time `json:"deadline,omitzero"`
	SignalAt time.Time `json:"signal_at,omitzero"`
	Exit     int       `json:"exit"`
	// Ended is how Slurm ended the reservation when it did: timeout (its
	// time limit) or cancelled (scancel); empty when the app ended first.
	Ended string `json:"ended,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Summary is the outcome in a few words: "checkpointed, progress 1m30s",
// "skipped, progress 31.0s saved" (what a reservation that did not run
// found saved), and the note when there is one.
func (o Outcome) Summary() string {
	s := o.Outcome + ", progress " + units.FormatSeconds(o.Progress)
	if o.Outcome == OutcomeSkipped {
		s += " saved"
	}
	if o.Note != "" {
		s += " (" + o.Note + ")"
	}
	return s
}

// State is the content of a chain folder: the plan, the job IDs submitted
// and the outcomes recorded.
type State struct {
	ID, Dir  string
	Chain    Chain
	Jobs     map[int]string
	Outcomes map[int]Outcome
}

// Load reads the chain folder dir (ROOT/ID).
func Load(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, "chain.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no chain in %s (no chain.json)", dir)
		}
		return nil, err
	}
	st := &State{ID: filepath.Base(dir), Dir: dir, Jobs: map[int]string{}, Outcomes: map[int]Outcome{}}
	if err := json.Unmarshal(b, &st.Chain); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "chain.json"), err)
	}
	if err := st.Chain.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "chain.json"), err)
	}
	if err := st.readJobs(); err != nil {
		return nil, err
	}
	for k := 1; k <= len(st.Chain.Steps); k++ {
		b, err := os.ReadFile(st.outcomePath(k))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var o Outcome
		if err == nil {
			err = json.Unmarshal(b, &o)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", st.outcomePath(k), err)
		}
		st.Outcomes[k] = o
	}
	return st, nil
}

func (st *State) readJobs() error {
	f, err := os.Open(filepath.Join(st.Dir, "jobs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		ks, id, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		k, err := strconv.Atoi(ks)
		if !ok || err != nil || k < 1 || k > len(st.Chain.Steps) || id == "" {
			return fmt.Errorf("%s:%d: want \"RESERVATION JOBID\", got %q", filepath.Join(st.Dir, "jobs"), line, sc.Text())
		}
		st.Jobs[k] = id
	}
	return sc.Err()
}

// AddJob records that reservation k was submitted as job id.
func (st *State) AddJob(k int, id string) error {
	f, err := os.OpenFile(filepath.Join(st.Dir, "jobs"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d %s\n", k, id)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		st.Jobs[k] = id
	}
	return err
}

func (st *State) outcomePath(k int) string { return filepath.Join(st.Dir, fmt.Sprintf("r%d.json", k)) }

// ProgressFile is the chain's committed progress: what the next
// reservation restarts from. Only a runner that holds the chain's lock
// writes it (CommitProgress).
func (st *State) ProgressFile() string { return filepath.Join(st.Dir, "progress") }

// ReservationProgressFile is where the app of reservation k writes its
// progress (CKPT_PROGRESS_FILE): its own file, so that an app that
// outlives its reservation cannot overwrite a newer checkpoint; the
// runner commits it to ProgressFile.
func (st *State) ReservationProgressFile(k int) string {
	return filepath.Join(st.Dir, fmt.Sprintf("progress.r%d", k))
}

// CommitProgress makes the progress that reservation me.Reservation's app
// wrote the chain's, fenced by reservation index: it refuses when me no
// longer holds the chain's lock or a later reservation has recorded an
// outcome (a late writer cannot overwrite a newer checkpoint). The file
// is replaced atomically (temporary file, rename), under the fence that
// a takeover of the lock takes too.
func (st *State) CommitProgress(me Holder) error {
	return st.withFence(func() error { return st.commitProgress(me) })
}

func (st *State) commitProgress(me Holder) error {
	k := me.Reservation
	if !st.Holds(me) {
		h, _, _ := st.Holder()
		return fmt.Errorf("reservation %d no longer holds the chain (reservation %d does): its progress is not committed", k, h.Reservation)
	}
	for j := k + 1; j <= len(st.Chain.Steps); j++ {
		if _, err := os.Stat(st.outcomePath(j)); err == nil {
			return fmt.Errorf("reservation %d has recorded an outcome: the progress of reservation %d is not committed", j, k)
		}
	}
	b, err := os.ReadFile(st.ReservationProgressFile(k))
	if err != nil {
		return err
	}
	if _, err := parseProgress(st.ReservationProgressFile(k), b); err != nil {
		return err
	}
	return writeBytes(st.ProgressFile(), b)
}

// Stopped returns why the chain stopped itself ("" when it did not): the
// content of DIR/stopped.
func (st *State) Stopped() string {
	b, err := os.ReadFile(filepath.Join(st.Dir, "stopped"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Stop records why the chain stops itself (DIR/stopped).
func (st *State) Stop(reason string) error {
	return writeBytes(filepath.Join(st.Dir, "stopped"), []byte(reason+"\n"))
}

// writeBytes writes b to path atomically (a temporary file in the same
// folder, renamed).
func writeBytes(path string, b []byte) error {
	return output.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteOutcome records o (atomically: a reader sees the old or the new).
func (st *State) WriteOutcome(o Outcome) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	tmp := st.outcomePath(o.Reservation) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, st.outcomePath(o.Reservation)); err != nil {
		return err
	}
	st.Outcomes[o.Reservation] = o
	return nil
}

// readProgress reads the progress file: 0 when absent.
func readProgress(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return parseProgress(path, b)
}

// parseProgress reads a progress file's content: 0 when empty.
func parseProgress(path string, b []byte) (float64, error) {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return 0, nil
	}
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || !(p >= 0) || p > 1e15 {
		return 0, fmt.Errorf("%s: progress %q is not a number of seconds >= 0", path, s)
	}
	return p, nil
}
