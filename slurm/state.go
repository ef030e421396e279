package slurm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
	Note     string    `json:"note,omitempty"`
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

// ProgressFile is where the app of this chain writes its progress.
func (st *State) ProgressFile() string { return filepath.Join(st.Dir, "progress") }

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
