package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// termApp counts the SIGTERMs it gets in dir/count, writes its pid to
// dir/pid and exits 0 once dir/stop exists.
const termApp = `n=0; trap 'n=$((n+1)); echo $n > "$D/count"' TERM; echo $$ > "$D/pid"; echo ready
while [ ! -e "$D/stop" ]; do sleep 0.02; done`

// runTermGate runs RunGate on termApp in an environment where scontrol
// says proctrack is pt; slurmTerm sends the app its own SIGTERM first, as
// Slurm does to every process of the step. It returns how many SIGTERMs
// the app counted once the gate's ctx ended (the gate's SIGTERM).
func runTermGate(t *testing.T, pt string, slurmTerm bool) int {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "scontrol"), []byte("#!/bin/sh\necho 'ProctrackType           = "+pt+"'\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("D", dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &readyWriter{ready: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- RunGate(ctx, GateConfig{App: []string{"bash", "-c", termApp}, Stdout: w, Stderr: os.Stderr})
	}()
	select {
	case <-w.ready:
	case err := <-done:
		t.Fatalf("gate ended before the app was ready: %v", err)
	}
	count := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "count"))
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	if slurmTerm {
		b, _ := os.ReadFile(filepath.Join(dir, "pid"))
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		syscall.Kill(pid, syscall.SIGTERM)
		for end := time.Now().Add(5 * time.Second); count() < 1 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		}
		if count() != 1 {
			t.Fatalf("the app did not count Slurm's SIGTERM")
		}
	}
	cancel() // the gate's own SIGTERM
	time.Sleep(500 * time.Millisecond)
	n := count()
	os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return n
}

// The app gets SIGTERM once on a timeout: inside a Slurm job whose
// process tracking signals the whole step, Slurm's SIGTERM reaches the app
// itself and the gate does not forward its own (it did: the app got two).
// Under proctrack/pgid, and outside Slurm, the gate's SIGTERM is the app's
// only one and is forwarded.
func TestGateTermOnce(t *testing.T) {
	for _, c := range []struct {
		pt        string
		job       string
		slurmTerm bool
	}{
		{"proctrack/linuxproc", "7", true},
		{"proctrack/cgroup", "7", true},
		{"proctrack/pgid", "7", false},
		{"proctrack/cgroup", "", false},
	} {
		t.Run(fmt.Sprintf("%s,job=%q", c.pt, c.job), func(t *testing.T) {
			t.Setenv("SLURM_JOB_ID", c.job)
			t.Setenv("CKPT_SCALE", "")
			if n := runTermGate(t, c.pt, c.slurmTerm); n != 1 {
				t.Errorf("the app got %d SIGTERMs, want 1", n)
			}
		})
	}
}

type fakeProctrack struct {
	pt  string
	err error
}

func (f fakeProctrack) Proctrack(context.Context) (string, error) { return f.pt, f.err }

// stepSignalsApp's rule, case by case: it answers true only when Slurm
// signals every process of the step and the SIGTERM is not the runner's
// stop at a scaled end.
func TestStepSignalsApp(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, c := range []struct {
		env  map[string]string
		cl   fakeProctrack
		want bool
	}{
		{map[string]string{"SLURM_JOB_ID": "1"}, fakeProctrack{pt: "proctrack/cgroup"}, true},
		{map[string]string{"SLURM_JOB_ID": "1"}, fakeProctrack{pt: "proctrack/linuxproc"}, true},
		{map[string]string{"SLURM_JOB_ID": "1"}, fakeProctrack{pt: "proctrack/pgid"}, false},
		{map[string]string{"SLURM_JOB_ID": "1"}, fakeProctrack{err: errors.New("scontrol: timeout")}, false},
		{map[string]string{"SLURM_JOB_ID": "1"}, fakeProctrack{}, false},
		{map[string]string{}, fakeProctrack{pt: "proctrack/cgroup"}, false},
		{map[string]string{"SLURM_JOB_ID": "1", "CKPT_SCALE": "1"}, fakeProctrack{pt: "proctrack/cgroup"}, true},
		// scaled: the runner stops the app at CKPT_END by a SIGTERM to the gate alone
		{map[string]string{"SLURM_JOB_ID": "1", "CKPT_SCALE": "10", "CKPT_END": "1000.500"}, fakeProctrack{pt: "proctrack/cgroup"}, false},
		{map[string]string{"SLURM_JOB_ID": "1", "CKPT_SCALE": "10", "CKPT_END": "1030.000"}, fakeProctrack{pt: "proctrack/cgroup"}, true},
		{map[string]string{"SLURM_JOB_ID": "1", "CKPT_SCALE": "10", "CKPT_END": "bogus"}, fakeProctrack{pt: "proctrack/cgroup"}, false},
	} {
		f := stepSignalsApp(context.Background(), c.cl, func(k string) string { return c.env[k] }, func() time.Time { return now })
		if got := f != nil && f(); got != c.want {
			t.Errorf("%v, %+v: %v, want %v", c.env, c.cl, got, c.want)
		}
	}
}
