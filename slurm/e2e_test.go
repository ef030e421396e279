package slurm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toyJob plays a reservation of the plan at full speed: it finishes (exit
// 0) when its milestone covers TOY_WALLTIME, and otherwise saves its
// milestone if it must checkpoint and exits 1, as a job at its time limit
// would. Each run appends "reservation restart-from" to log.
const toyJob = `#!/usr/bin/env bash
start=0
if [ "$CKPT_RESTART" = 1 ]; then start=$(cat "$TOY_DIR/saved"); fi
if [ "$TOY_WALLTIME" -le "$CKPT_MILESTONE" ]; then
	echo "$CKPT_RESERVATION $start done" >> "$TOY_DIR/log"
	exit 0
fi
if [ "$CKPT_CHECKPOINT" = 1 ]; then echo "$CKPT_MILESTONE" > "$TOY_DIR/saved"; fi
echo "$CKPT_RESERVATION $start" >> "$TOY_DIR/log"
exit 1
`

// TestChainOnSlurm submits a four-reservation chain to a real Slurm cluster
// (scripts/slurm-localhost.sh starts one) for a job that finishes in the
// third reservation, and checks that reservations 1–3 ran in order, that 3
// restarted from reservation 1's checkpoint and that 4 was cancelled.
func TestChainOnSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if out, err := exec.Command("sinfo", "-h", "-o", "%T").Output(); err != nil || !strings.Contains(string(out), "idle") && !strings.Contains(string(out), "mix") {
		t.Skip("no Slurm cluster answers (run scripts/slurm-localhost.sh as root)")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	job := filepath.Join(dir, "toy.sh")
	os.WriteFile(job, []byte(toyJob), 0o755)
	name := fmt.Sprintf("ckpt-e2e-%d", time.Now().UnixNano())
	ch := Chain{Job: job, Name: name, Extra: []string{"--output=/dev/null", "--chdir=" + dir}, Steps: []Step{
		{Time: 60, Checkpoint: true, CheckpointTime: 10, Milestone: 100},
		{Time: 60, Restart: true, Milestone: 200},
		{Time: 60, Restart: true, Checkpoint: true, CheckpointTime: 10, Milestone: 300},
		{Time: 60, Restart: true, Milestone: 400},
	}}
	script, err := ch.Script()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "submit.sh")
	os.WriteFile(path, []byte(script), 0o755)
	cmd := exec.Command("bash", path)
	cmd.Env = append(os.Environ(), "TOY_WALLTIME=250", "TOY_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("submission failed: %v\n%s", err, out)
	}
	ids := strings.Fields(string(out))
	if len(ids) != 4 {
		t.Fatalf("want 4 job IDs, got %q", out)
	}
	t.Cleanup(func() { exec.Command("scancel", "--name", name).Run() })
	// Wait until no job of the chain is pending or running.
	deadline := time.Now().Add(90 * time.Second)
	for {
		q, _ := exec.Command("squeue", "-h", "--name", name, "-o", "%i %T").Output()
		if strings.TrimSpace(string(q)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chain still queued after 90 s:\n%s", q)
		}
		time.Sleep(500 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if got, want := strings.TrimSpace(string(log)), "1 0\n2 100\n3 100 done"; got != want {
		t.Fatalf("reservations ran as\n%s\nwant\n%s", got, want)
	}
	// The fourth reservation never ran: Slurm cancelled it when the third
	// completed, since afternotok could no longer be satisfied.
	st, _ := exec.Command("sacct", "-n", "-X", "-j", ids[3], "-o", "State").Output()
	if s := strings.TrimSpace(string(st)); s != "" && !strings.HasPrefix(s, "CANCELLED") {
		t.Errorf("fourth reservation ended as %q, want CANCELLED", s)
	}
}

// TestCheckpointSignalOnSlurm checks, on a real cluster, that a reservation
// that must checkpoint receives SIGUSR1 ahead of its time limit: a 2-minute
// reservation with a 30 s checkpoint is signalled 60 s (Slurm's resolution)
// before its end. It takes about a minute, so it runs only with
// CKPT_SLURM_SIGNAL_TEST=1.
func TestCheckpointSignalOnSlurm(t *testing.T) {
	if os.Getenv("CKPT_SLURM_SIGNAL_TEST") != "1" {
		t.Skip("set CKPT_SLURM_SIGNAL_TEST=1 to wait for a real time limit")
	}
	if _, err := exec.Command("sinfo", "-h").Output(); err != nil {
		t.Skip("no Slurm cluster answers")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	job := filepath.Join(dir, "sig.sh")
	os.WriteFile(job, []byte(`#!/usr/bin/env bash
start=$(date +%s)
trap 'echo $(( $(date +%s) - start )) > "$TOY_DIR/signalled"; exit 1' USR1
while true; do sleep 1; done
`), 0o755)
	name := fmt.Sprintf("ckpt-sig-%d", time.Now().UnixNano())
	ch := Chain{Job: job, Name: name, Extra: []string{"--output=/dev/null", "--chdir=" + dir},
		Steps: []Step{{Time: 120, Checkpoint: true, CheckpointTime: 30, Milestone: 90}}}
	script, _ := ch.Script()
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "TOY_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("scancel", "--name", name).Run() })
	deadline := time.Now().Add(4 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "signalled")); err == nil {
			var at int
			fmt.Sscan(string(b), &at)
			// Due 60 s before the 120 s limit; Slurm checks signals about
			// once a minute, so accept 30–95 s after the start.
			if at < 30 || at > 95 {
				t.Fatalf("SIGUSR1 arrived %d s after the start, want about 60", at)
			}
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatal("no SIGUSR1 before the time limit")
}
