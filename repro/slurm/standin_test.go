package slurm

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func progressOf(t *testing.T, path string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStandInCheckpointAndRestart: at scale 100, the stand-in checkpoints
// by itself at end − C'/100 − margin (its checkpoint is larger than C),
// writes a file of C'·BytesPerSecond bytes and its progress, exits 1;
// restarted, it reads the file back (R·C'/C of the plan's time), works
// the rest of its walltime, exits 0 and removes the file. The oracle is
// the clock: progress is the plan's seconds worked, within a tolerance
// for timer and start-up jitter.
func TestStandInCheckpointAndRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const scale, c, r, v, bps = 100.0, 20.0, 10.0, 0.3, 1000.0
	var seed uint64
	for seed = 1; SizeFactor(seed, 1, v) < 1.05; seed++ { // a checkpoint larger than C
	}
	f := SizeFactor(seed, 1, v)
	s := StandIn{Walltime: 1000, C: c, R: r, Variation: v, Seed: seed, BytesPerSecond: bps, Margin: 50 * time.Millisecond}
	start := time.Now()
	end := start.Add(600 * time.Millisecond)
	env := map[string]string{"CKPT_PROGRESS_FILE": filepath.Join(dir, "progress"), "CKPT_CHAIN_DIR": dir, "CKPT_SCALE": "100",
		"CKPT_RESERVATION": "1", "CKPT_CHECKPOINT": "1", "CKPT_CHECKPOINT_TIME": "20",
		"CKPT_END": strconv.FormatFloat(float64(end.UnixNano())/1e9, 'f', 3, 64)}
	if code := s.Run(context.Background(), envOf(env), io.Discard); code != 1 {
		t.Fatalf("checkpointing run exited %d, want 1", code)
	}
	took := time.Since(start)
	// checkpoint starts at 600 − 200·f − 50 ms: that many ms of work, ×100/1000 plan seconds
	wantP := (600 - 200*f - 50) / 1000 * scale
	p := progressOf(t, env["CKPT_PROGRESS_FILE"])
	if math.Abs(p-wantP) > 8 {
		t.Errorf("progress %v, want %v (f = %v)", p, wantP, f)
	}
	if took > 900*time.Millisecond || took < 500*time.Millisecond {
		t.Errorf("checkpointing run took %v; want it done by the end (600 ms)", took)
	}
	got, n, err := readCheckpoint(filepath.Join(dir, "checkpoint"))
	if err != nil || got != p || math.Abs(float64(n)-c*f*bps) > 1 {
		t.Fatalf("checkpoint: progress %v (%v), %d bytes, want %v bytes: %v", got, p, n, c*f*bps, err)
	}
	// Restart: read back (R·f = 10f plan seconds), then 30 s of work left.
	s.Walltime = p + 30
	env["CKPT_RESTART"], env["CKPT_CHECKPOINT"], env["CKPT_RESERVATION"] = "1", "0", "2"
	start = time.Now()
	if code := s.Run(context.Background(), envOf(env), io.Discard); code != 0 {
		t.Fatalf("restarted run exited %d, want 0", code)
	}
	want := time.Duration((r*f + 30) / scale * float64(time.Second))
	if d := time.Since(start) - want; d < 0 || d > 300*time.Millisecond {
		t.Errorf("restarted run took %v, want %v (restart %v + 30 plan seconds)", time.Since(start), want, r*f)
	}
	// The progress file holds 3 decimals; p + 30 need not print back as itself.
	if p := progressOf(t, env["CKPT_PROGRESS_FILE"]); math.Abs(p-s.Walltime) > 5e-4 {
		t.Errorf("final progress %v, want the walltime %v (to the file's 3 decimals)", p, s.Walltime)
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint")); !os.IsNotExist(err) {
		t.Errorf("checkpoint left behind: %v", err)
	}
}

// TestStandInRefusesNoProtocol: outside ckpt run it says so (exit 2).
func TestStandInRefusesNoProtocol(t *testing.T) {
	var b strings.Builder
	if code := (StandIn{Walltime: 1}).Run(context.Background(), envOf(nil), &b); code != 2 || !strings.Contains(b.String(), "ckpt run") {
		t.Errorf("exit %d, %q", code, b.String())
	}
}

// TestStandInCheckpointNotCutShort: the runner's SIGUSR1 arriving while
// the stand-in writes a checkpoint it began by itself does not shorten
// the checkpoint (a bug of the first full run: half the checkpoints of
// v = 0 took no time).
func TestStandInCheckpointNotCutShort(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGUSR1
	start := time.Now()
	if !busy(context.Background(), sigs, start.Add(200*time.Millisecond)) || time.Since(start) < 200*time.Millisecond {
		t.Errorf("busy returned after %v", time.Since(start))
	}
	sigs <- syscall.SIGTERM
	if busy(context.Background(), sigs, time.Now().Add(time.Second)) {
		t.Error("SIGTERM did not stop the checkpoint")
	}
}
