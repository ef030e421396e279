package slurm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-hpc/ckpt/rng"
)

// StandIn is the stand-in application of the real run: it follows the app
// protocol of package slurm (CKPT_* variables) and stands for one job of
// Table 3 whose walltime was drawn.
type StandIn struct {
	// Walltime is the job's work in the plan's seconds.
	Walltime float64
	// C and R are the application's checkpoint and restart times (paper
	// seconds) for a checkpoint of the nominal size; a checkpoint of
	// another size takes proportionally longer or shorter to read.
	C, R float64
	// Variation v: each checkpoint's size is drawn uniform in
	// [(1−v)·C, (1+v)·C] worth of writing time (Fig. 9), from Seed and
	// the reservation's index.
	Variation float64
	Seed      uint64
	// BytesPerSecond is the checkpoint's size per second of C (paper
	// seconds): the file written is C'·BytesPerSecond bytes.
	BytesPerSecond float64
	// Margin is how long before end − C' the app starts a checkpoint of
	// size C' by itself (real time; the runner's --margin).
	Margin time.Duration
}

// standInEnv is what the stand-in reads from the protocol's variables.
type standInEnv struct {
	scale, c           float64
	checkpoint, resume bool
	end                time.Time
	progressFile, dir  string
	reservation        int
	cont               bool
}

func readStandInEnv(getenv func(string) string) (standInEnv, error) {
	e := standInEnv{scale: 1, checkpoint: getenv("CKPT_CHECKPOINT") == "1", resume: getenv("CKPT_RESTART") == "1",
		progressFile: getenv("CKPT_PROGRESS_FILE"), dir: getenv("CKPT_CHAIN_DIR"), cont: getenv("CKPT_AFTER_CHECKPOINT") == "continue"}
	if e.progressFile == "" || e.dir == "" {
		return e, fmt.Errorf("CKPT_PROGRESS_FILE and CKPT_CHAIN_DIR unset: run me under ckpt run")
	}
	num := func(name string, dst *float64) error {
		if v := getenv(name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0) || math.IsInf(f, 0) {
				return fmt.Errorf("%s=%q: want a number >= 0", name, v)
			}
			*dst = f
		}
		return nil
	}
	var end float64
	k := 1.0
	for name, dst := range map[string]*float64{"CKPT_SCALE": &e.scale, "CKPT_CHECKPOINT_TIME": &e.c, "CKPT_END": &end, "CKPT_RESERVATION": &k} {
		if err := num(name, dst); err != nil {
			return e, err
		}
	}
	if !(e.scale > 0) {
		return e, fmt.Errorf("CKPT_SCALE=%v: want > 0", e.scale)
	}
	if end > 0 {
		e.end = time.Unix(0, int64(end*1e9))
	}
	e.reservation = int(k)
	return e, nil
}

// SizeFactor is the checkpoint size of reservation k relative to C: 1, or
// uniform in [1−v, 1+v] from the job's seed.
func SizeFactor(seed uint64, k int, v float64) float64 {
	if v == 0 {
		return 1
	}
	return 1 - v + 2*v*rng.Stream(seed, uint64(k)).Float64()
}

// Run works for the job's remaining walltime, scaled: it reads its last
// checkpoint back when told to restart (taking R·size/nominal of the
// plan's time), then works until the work is done (exit 0), or until it
// must checkpoint: at SIGUSR1 or, knowing its checkpoint's size C', at
// end − C' − Margin, whichever comes first; it then writes a checkpoint
// file of its size (taking C' of the plan's time), records its progress
// and exits 1. SIGTERM ends it at once (exit 143). It returns the exit
// status; messages go to stderr.
func (s StandIn) Run(ctx context.Context, getenv func(string) string, stderr io.Writer) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGTERM)
	defer signal.Stop(sigs)
	e, err := readStandInEnv(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ckpt standin: %v\n", err)
		return 2
	}
	real := func(paper float64) time.Duration { return time.Duration(paper / e.scale * float64(time.Second)) }
	ckptFile := filepath.Join(e.dir, "checkpoint")
	start := time.Now()
	p0 := 0.0
	if e.resume {
		var n int64
		if p0, n, err = readCheckpoint(ckptFile); err != nil {
			fmt.Fprintf(stderr, "ckpt standin: %v; starting from scratch\n", err)
			p0 = 0
		}
		if nominal := s.C * s.BytesPerSecond; nominal > 0 && n > 0 { // the read takes R·size/nominal
			if !busy(ctx, sigs, start.Add(real(s.R*float64(n)/nominal))) {
				return 143
			}
		}
	}
	work0 := time.Now()
	done := work0.Add(real(max(s.Walltime-p0, 0)))
	cprime := e.c * SizeFactor(s.Seed, e.reservation, s.Variation)
	ckptAt := time.Time{}
	if e.checkpoint && !e.end.IsZero() {
		ckptAt = e.end.Add(-real(cprime) - s.Margin)
	}
	for {
		wake := done
		if !ckptAt.IsZero() && ckptAt.Before(wake) {
			wake = ckptAt
		}
		sig := sleep(ctx, sigs, wake)
		switch {
		case sig == syscall.SIGTERM:
			return 143
		case sig == nil && !wake.Before(done):
			if err := writeProgress(e.progressFile, s.Walltime); err != nil {
				fmt.Fprintf(stderr, "ckpt standin: %v\n", err)
			}
			os.Remove(ckptFile)
			return 0
		case sig == syscall.SIGUSR1 && !e.checkpoint:
			continue // no checkpoint planned: keep working
		}
		// SIGUSR1 or the app's own checkpoint time
		progress := p0 + time.Since(work0).Seconds()*e.scale
		t0 := time.Now()
		if err := writeCheckpoint(ckptFile, progress, int64(cprime*s.BytesPerSecond)); err != nil {
			fmt.Fprintf(stderr, "ckpt standin: %v\n", err)
			return 1
		}
		if !busy(ctx, sigs, t0.Add(real(cprime))) {
			return 143 // the checkpoint did not complete: its file is not the one read back
		}
		if err := commitCheckpoint(ckptFile); err != nil {
			fmt.Fprintf(stderr, "ckpt standin: %v\n", err)
			return 1
		}
		if err := writeProgress(e.progressFile, progress); err != nil {
			fmt.Fprintf(stderr, "ckpt standin: %v\n", err)
			return 1
		}
		if !e.cont {
			return 1
		}
		ckptAt = time.Time{}
	}
}

// busy spends the time until t reading or writing a checkpoint: a
// SIGUSR1 then (the runner's signal, when the app began its checkpoint by
// itself) does not cut it short; SIGTERM or the end of ctx does (false).
func busy(ctx context.Context, sigs <-chan os.Signal, t time.Time) bool {
	for {
		switch sleep(ctx, sigs, t) {
		case nil:
			return true
		case syscall.SIGTERM:
			return false
		}
	}
}

// sleep waits until t, a signal (returned) or the end of ctx (SIGTERM).
func sleep(ctx context.Context, sigs <-chan os.Signal, t time.Time) os.Signal {
	d := time.Until(t)
	if d <= 0 {
		select {
		case s := <-sigs:
			return s
		default:
			return nil
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case s := <-sigs:
		return s
	case <-ctx.Done():
		return syscall.SIGTERM
	case <-tm.C:
		return nil
	}
}

// writeCheckpoint writes path.tmp: a header line with the progress, then
// size bytes of data; commitCheckpoint renames it into place.
func writeCheckpoint(path string, progress float64, size int64) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	fmt.Fprintf(w, "ckpt-standin progress=%s\n", strconv.FormatFloat(progress, 'f', 3, 64))
	block := make([]byte, 1<<16)
	for i := range block {
		block[i] = byte(i*131 + 7)
	}
	for left := size; left > 0; left -= int64(len(block)) {
		w.Write(block[:min(left, int64(len(block)))])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func commitCheckpoint(path string) error { return os.Rename(path+".tmp", path) }

// readCheckpoint reads a checkpoint back, all of it: the progress in its
// header and the number of data bytes.
func readCheckpoint(path string) (float64, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, fmt.Errorf("no checkpoint to restart from (%s)", filepath.Base(path))
	}
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, err := r.ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("%s: no header", path)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(head), "ckpt-standin progress=")
	p, perr := strconv.ParseFloat(v, 64)
	if !ok || perr != nil || !(p >= 0) {
		return 0, 0, fmt.Errorf("%s: header %q", path, head)
	}
	n, err := io.Copy(io.Discard, r)
	return p, n, err
}

// writeProgress writes the protocol's progress file (temporary file, then
// rename).
func writeProgress(path string, p float64) error {
	if err := os.WriteFile(path+".tmp", []byte(strconv.FormatFloat(p, 'f', 3, 64)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
