package slurm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-hpc/ckpt/supervise"
)

// Holder is the content of a chain's lock (DIR/lock): which reservation's
// runner holds the chain, where and since when. Only the holder runs an
// application and commits progress.
type Holder struct {
	Reservation int       `json:"reservation"`
	JobID       string    `json:"job_id,omitempty"`
	Host        string    `json:"host"`
	PID         int       `json:"pid"`
	Since       time.Time `json:"since"`
}

// ErrSuperseded is the error of a runner whose reservation came too late:
// a later reservation holds the chain (or has recorded its outcome).
var ErrSuperseded = errors.New("a later reservation holds the chain")

func (st *State) lockPath() string { return filepath.Join(st.Dir, "lock") }

// Holder reads the chain's lock; ok is false when nobody holds it.
func (st *State) Holder() (Holder, bool, error) {
	b, err := os.ReadFile(st.lockPath())
	if errors.Is(err, fs.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	var h Holder
	if err := json.Unmarshal(b, &h); err != nil {
		return Holder{}, true, fmt.Errorf("%s: %v", st.lockPath(), err)
	}
	return h, true, nil
}

// Lock makes reservation me.Reservation the holder of the chain, so that
// no two reservations' applications ever run at once. The lock is created
// exclusively (O_EXCL); when it exists, its holder is taken over when it
// is stale: an earlier reservation (Slurm starts reservation k only once
// k−1 has ended, so its runner is gone or an orphan), the same
// reservation run before (requeued), or a holder on this host whose
// process is dead. A later reservation's lock refuses (ErrSuperseded), and
// so does a live runner of the same reservation on this host. It returns
// the previous holder when one was taken over.
func (st *State) Lock(me Holder) (prev *Holder, err error) {
	err = st.withFence(func() error {
		prev, err = st.lock(me)
		return err
	})
	return prev, err
}

func (st *State) lock(me Holder) (*Holder, error) {
	b, err := json.Marshal(me)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	for try := 0; try < 3; try++ {
		f, err := os.OpenFile(st.lockPath(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return nil, err
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		h, ok, herr := st.Holder()
		if !ok {
			continue // released meanwhile
		}
		if herr == nil {
			if h.Reservation > me.Reservation {
				return nil, fmt.Errorf("reservation %d: %w (reservation %d, job %s, since %s)", me.Reservation, ErrSuperseded, h.Reservation, h.JobID, h.Since.Format(time.RFC3339))
			}
			if h.Reservation == me.Reservation && h.Host == me.Host && h.PID != me.PID && alive(h.PID) {
				return nil, fmt.Errorf("reservation %d already runs (pid %d on %s)", me.Reservation, h.PID, h.Host)
			}
		}
		// Stale (or unreadable): take it over, atomically.
		if err := writeBytes(st.lockPath(), b); err != nil {
			return nil, err
		}
		return &h, nil
	}
	return nil, fmt.Errorf("%s: cannot take the lock", st.lockPath())
}

// Unlock releases the lock if me still holds it.
func (st *State) Unlock(me Holder) {
	if h, ok, err := st.Holder(); err == nil && ok && h.Reservation == me.Reservation && h.PID == me.PID && h.Host == me.Host {
		os.Remove(st.lockPath())
	}
}

// Holds reports whether me holds the chain's lock.
func (st *State) Holds(me Holder) bool {
	h, ok, err := st.Holder()
	return err == nil && ok && h.Reservation == me.Reservation && h.PID == me.PID && h.Host == me.Host
}

// withFence runs f holding an exclusive flock on DIR/lock.fence, so that
// a takeover of the lock and a progress commit (its check, then its
// rename) never interleave. Where the file system refuses flock, f runs
// without it: the lock still fences, with a window of a rename.
func (st *State) withFence(f func() error) error {
	fd, err := os.OpenFile(filepath.Join(st.Dir, "lock.fence"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return f()
	}
	defer fd.Close()
	if syscall.Flock(int(fd.Fd()), syscall.LOCK_EX) == nil {
		defer syscall.Flock(int(fd.Fd()), syscall.LOCK_UN)
	}
	return f()
}

// alive reports whether process pid exists (signal 0).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// killStrays kills the processes on this host that an earlier run of the
// chain left behind: the applications of earlier reservations (j < k) and
// what they started, which outlive a runner killed with -9 only through
// their children. They are told by their environment: this chain's folder,
// CKPT_PROGRESS_FILE (set by a runner for its app alone, so that a
// submission script, an sbatch topping up the chain or a later
// reservation's runner, which carry the chain's variables too, are never
// taken for strays) and a reservation below k. It returns their process
// IDs.
func killStrays(dir string, k int) []int {
	return supervise.KillStrays(func(env []string) bool {
		chain, app, j := false, false, 0
		for _, kv := range env {
			name, v, _ := strings.Cut(kv, "=")
			switch name {
			case "CKPT_CHAIN_DIR":
				chain = v == dir
			case "CKPT_PROGRESS_FILE":
				app = true
			case "CKPT_RESERVATION":
				j, _ = strconv.Atoi(v) // the last one, as the process reads it
			}
		}
		return chain && app && j >= 1 && j < k
	})
}
