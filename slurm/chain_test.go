package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func sample() Chain {
	return Chain{Job: "run seg.sh", Name: "seg", Steps: []Step{
		{Time: 7*3600 + 1, Checkpoint: true, CheckpointTime: 600, Milestone: 6 * 3600},
		{Time: 3600, Restart: true, Mem: "10G", Milestone: 6*3600 + 2400},
		{Time: 1800, Restart: true, Checkpoint: true, CheckpointTime: 30, Milestone: 7 * 3600},
	}}
}

func TestScriptSubmitsTheChain(t *testing.T) {
	s, err := sample().Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"job='run seg.sh'",
		"--time=07:01:00 --signal=B:USR1@600 --export=ALL,CKPT_RESERVATION=1,CKPT_CHECKPOINT=1,CKPT_RESTART=0,CKPT_MILESTONE=21600 \"$job\"",
		"--time=01:00:00 --mem=10G --export=ALL,CKPT_RESERVATION=2,CKPT_CHECKPOINT=0,CKPT_RESTART=1,CKPT_MILESTONE=24000 --dependency=afternotok:\"$prev\" --kill-on-invalid-dep=yes",
		"--signal=B:USR1@60 ", // 30 s rounds up to Slurm's one-minute resolution
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "sbatch ") != 3 || strings.Count(s, "afternotok") != 2 {
		t.Errorf("want 3 submissions, 2 dependent:\n%s", s)
	}
}

// The script must be valid bash and, with a fake sbatch on PATH, submit
// the reservations in order, each depending on the previous job ID.
func TestScriptRunsAgainstAFakeSbatch(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	logf := filepath.Join(dir, "calls")
	fake := "#!/usr/bin/env bash\necho \"$*\" >> " + logf + "\nn=$(wc -l < " + logf + ")\necho $((1000 + n))\n"
	os.WriteFile(filepath.Join(dir, "sbatch"), []byte(fake), 0o755)
	s, _ := sample().Script()
	script := filepath.Join(dir, "chain.sh")
	os.WriteFile(script, []byte(s), 0o755)
	cmd := exec.Command(bash, script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.Fields(string(out)); strings.Join(got, ",") != "1001,1002,1003" {
		t.Fatalf("printed %q", out)
	}
	calls, _ := os.ReadFile(logf)
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "afternotok:1001") || !strings.Contains(lines[2], "afternotok:1002") ||
		!strings.HasSuffix(lines[0], "run seg.sh") {
		t.Fatalf("calls:\n%s", calls)
	}
}

func TestValidate(t *testing.T) {
	bad := []Chain{
		{Job: "", Steps: sample().Steps},
		{Job: "j.sh"},
		{Job: "j.sh", Steps: []Step{{Time: 0}}},
		{Job: "j.sh", Steps: []Step{{Time: 60, Checkpoint: true, CheckpointTime: 60}}},
		{Job: "j.sh", Steps: []Step{{Time: 60, Mem: "1G; rm -rf /"}}},
	}
	for i, c := range bad {
		if _, err := c.Script(); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
}
