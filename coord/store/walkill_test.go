package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// killChildEnv makes the test binary a process that commits one new job
// per batch to the database the variable names, with the WAL checkpointed
// every 4 KiB, printing "ack ID" once each commit returned and
// "checkpoint PHASE" inside each checkpoint; at the killAt-th checkpoint
// of phase killChildEnv_PHASE it prints "blocked PHASE" and stays in that
// phase (20 s) for the parent to kill it there.
const killChildEnv = "CKPT_WAL_KILL_CHILD"

// killAt is the occurrence of the phase the child is killed in (the
// open's checkpoint, if it has one, counts).
const killAt = 3

func TestMain(m *testing.M) {
	if path := os.Getenv(killChildEnv); path != "" {
		killChild(path, os.Getenv(killChildEnv+"_INIT") != "", os.Getenv(killChildEnv+"_PREFIX"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func killChild(path string, init bool, prefix string) {
	var mu sync.Mutex // the checkpoint runs in its own goroutine
	out := bufio.NewWriter(os.Stdout)
	println := func(a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, a...)
		out.Flush()
	}
	target, seen := os.Getenv(killChildEnv+"_PHASE"), 0
	checkpointHook = func(phase string) error {
		println("checkpoint", phase)
		if phase != target {
			return nil
		}
		if seen++; seen == killAt {
			println("blocked", phase)
			time.Sleep(20 * time.Second) // killed here; commits go on meanwhile
		}
		return nil
	}
	s, err := Open(path, Options{Init: init, CheckpointBytes: 4 << 10})
	if err != nil {
		println("error", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		id := fmt.Sprint(prefix, i)
		if err := s.Commit(put(id, i+1)); err != nil {
			println("error", err)
			os.Exit(1)
		}
		println("ack", id)
	}
}

// A process killed with SIGKILL during a checkpoint — inside the bbolt
// transaction that applies the WAL, or after it committed and before the
// WAL is written again from its start — loses nothing it acknowledged:
// eight kills in turn at each phase, every acknowledged job loaded back
// (the oracle is the child's own acknowledgements, read from its output),
// and no job but those and the one each child was committing when killed.
func TestKilledDuringCheckpointLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "c.db")
	acked := map[string]bool{}
	next := map[string]bool{} // per round, the job after its last acknowledged one (submitted, maybe committed)
	for round := range 8 {
		phase := []string{"applying", "applied"}[round%2]
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path, fmt.Sprintf("%s_PREFIX=r%d-", killChildEnv, round), killChildEnv+"_PHASE="+phase)
		if round == 0 {
			cmd.Env = append(cmd.Env, killChildEnv+"_INIT=1")
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		killed, last := false, -1
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "ack":
				acked[f[1]] = true
				last++
			case len(f) == 2 && f[0] == "blocked" && f[1] == phase:
				cmd.Process.Kill() // inside the phase: the child waits there; the lines written before still come
				killed = true
			case f[0] == "error":
				t.Fatalf("round %d: %s", round, sc.Text())
			}
		}
		cmd.Wait()
		next[fmt.Sprintf("r%d-%d", round, last+1)] = true
		if !killed {
			t.Fatalf("round %d: the child exited before its checkpoint %d in phase %s", round, killAt, phase)
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d, killed %s: %v", round, phase, err)
		}
		_, jobs, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, j := range jobs {
			have[j.Spec.ID] = true
			if !acked[j.Spec.ID] && !next[j.Spec.ID] {
				t.Errorf("round %d: job %s was never submitted", round, j.Spec.ID)
			}
		}
		for id := range acked {
			if !have[id] {
				t.Errorf("round %d, killed %s: acknowledged %s lost", round, phase, id)
			}
		}
		crash(s)
	}
	if len(acked) < 16 {
		t.Fatalf("only %d acknowledgements in 8 rounds", len(acked))
	}
	t.Logf("%d acknowledged jobs, all loaded after 8 kills during checkpoints", len(acked))
}
