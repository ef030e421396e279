package slurm

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// killStrays kills an earlier reservation's app and nothing else that
// carries the chain's variables: not the submission script's or a
// topping-up runner's sbatch (the chain's folder and a later reservation,
// but no CKPT_PROGRESS_FILE — repro slurm's chains lost their submission
// to this), not a later reservation's app, not another chain's app.
func TestKillStraysOnlyEarlierApps(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	app := func(d, k string) []string {
		return []string{"CKPT_CHAIN_DIR=" + d, "CKPT_RESERVATION=" + k, "CKPT_PROGRESS_FILE=" + d + "/progress.r" + k}
	}
	envs := map[string][]string{
		"app of r1":                app(dir, "1"),
		"submitter of r3":          {"CKPT_CHAIN_DIR=" + dir, "CKPT_RESERVATION=3"},
		"top-up from r1 runner":    {"CKPT_CHAIN_DIR=" + dir, "CKPT_RESERVATION=1", "CKPT_RESERVATION=3"},
		"app of r3":                app(dir, "3"),
		"app of r1, another chain": app(other, "1"),
		"app of r2 (the killer's)": app(dir, "2"),
	}
	pids := map[int]string{}
	for name, env := range envs {
		c := exec.Command("sleep", "60")
		c.Env = append(os.Environ(), env...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		pids[c.Process.Pid] = name
	}
	killed := killStrays(dir, 2)
	var names []string
	for _, p := range killed {
		if n, ok := pids[p]; ok {
			names = append(names, n)
		}
	}
	if !slices.Equal(names, []string{"app of r1"}) {
		t.Fatalf("killed %v, want only the app of r1", names)
	}
}
