package slurm

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func sample() Chain {
	return Chain{Job: "run seg.sh", Name: "seg", Extra: []string{"--partition=debug", "--output=o $x"}, Ahead: 1, Steps: []Step{
		{Time: 7*3600 + 1, Checkpoint: true, CheckpointTime: 600, Milestone: 6 * 3600},
		{Time: 3600, Restart: true, Mem: "10G", Milestone: 6*3600 + 2400},
		{Time: 1800, Restart: true, Checkpoint: true, CheckpointTime: 30, Milestone: 7 * 3600},
	}}
}

func TestArgs(t *testing.T) {
	c := sample()
	got := strings.Join(c.Args("seg-1", "/c/seg-1", 3, []string{"11", "12"}), " ")
	want := "--parsable --job-name=seg.r3 --comment=ckpt:chain=seg-1 --time=00:30:00 --partition=debug --output=o $x " +
		"--export=ALL --dependency=afternotok:11:12 --kill-on-invalid-dep=yes run seg.sh"
	if got != want {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
	// The list form --export=ALL,K=V would make sbatch set
	// SLURM_GET_USER_ENV=1 (a login shell before every launch): the
	// variables travel in sbatch's environment instead.
	env := strings.Join(c.Env("seg-1", "/c/seg-1", 3), " ")
	if wantEnv := "CKPT_CHAIN=seg-1 CKPT_CHAIN_DIR=/c/seg-1 CKPT_RESERVATION=3 CKPT_CHECKPOINT=1 CKPT_RESTART=1 CKPT_MILESTONE=25200"; env != wantEnv {
		t.Errorf("env\n%s\nwant\n%s", env, wantEnv)
	}
	if strings.Contains(got, "--signal") {
		t.Error("the chain asks Slurm for a signal: ckpt run sends it, to the second")
	}
	if (Chain{Job: "/x/my job.sh"}).JobName() != "ckpt" || (Chain{Job: "/x/train.sh"}).JobName() != "train" {
		t.Error("default job names")
	}
}

// writeFakeSbatch puts sbatch and scancel on PATH that log their arguments
// (one line each) and print job IDs 1001, 1002, …; sbatch fails at call
// failAt (0: never).
func writeFakeSbatch(t *testing.T, dir string, failAt int) []string {
	logf := filepath.Join(dir, "calls")
	fake := `#!/usr/bin/env bash
printf '%s\n' "sbatch $*" >> "` + logf + `"
n=$(grep -c '^sbatch' "` + logf + `")
if [ "$n" = "` + string(rune('0'+failAt)) + `" ]; then echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2; exit 1; fi
echo "$((1000 + n));cluster"
`
	os.WriteFile(filepath.Join(dir, "sbatch"), []byte(fake), 0o755)
	os.WriteFile(filepath.Join(dir, "scancel"), []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"scancel $*\" >> \""+logf+"\"\n"), 0o755)
	return []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "CKPT_CHAINS=" + filepath.Join(dir, "chains"), "CKPT_CHAIN_ID=seg-test"}
}

// The script is valid bash and, with a fake sbatch on PATH, saves the plan,
// submits the first window of reservations in order, each depending on all
// earlier ones, records the job IDs and prints the chain id.
func TestScriptRunsAgainstAFakeSbatch(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	env := writeFakeSbatch(t, dir, 0)
	s, err := sample().Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", s)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "seg-test" {
		t.Fatalf("printed %q", out)
	}
	st, err := Load(filepath.Join(dir, "chains", "seg-test"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Chain.Steps) != 3 || st.Chain.Extra[1] != "--output=o $x" || len(st.Jobs) != 2 || st.Jobs[1] != "1001" || st.Jobs[2] != "1002" {
		t.Fatalf("state %+v", st)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	want1 := "sbatch " + strings.Join(st.Chain.Args("seg-test", st.Dir, 2, []string{"1001"}), " ")
	if len(lines) != 2 || lines[1] != want1 {
		t.Fatalf("calls:\n%s\nwant second\n%s", calls, want1)
	}
}

// A rejected submission cancels what the script submitted and exits 1.
func TestScriptCancelsAPartialChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := writeFakeSbatch(t, dir, 2)
	c := sample()
	c.Ahead = 0
	s, _ := c.Script()
	cmd := exec.Command("bash", "-c", s)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "submission failed; cancelled 1001") {
		t.Fatalf("%v: %s", err, out)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if got := strings.Count(string(calls), "sbatch"); got != 2 || !strings.Contains(string(calls), "scancel 1001") {
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
		{Job: "j.sh", Name: "a b", Steps: []Step{{Time: 60}}},
		{Job: "j.sh", Extra: []string{"--dependency=afterok:1"}, Steps: []Step{{Time: 60}}},
		{Job: "j.sh", Extra: []string{"-t5"}, Steps: []Step{{Time: 60}}},
		{Job: "j.sh", Extra: []string{"debug"}, Steps: []Step{{Time: 60}}},
		{Job: "j.sh", Ahead: -1, Steps: []Step{{Time: 60}}},
	}
	for i, c := range bad {
		if _, err := c.Script(); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	// sbatch takes unambiguous prefixes of long options: refused as the
	// options they abbreviate; other options pass, values joined.
	for _, e := range []string{"--dep=afterok:1", "--depend=afterok:1", "--kill-on=no", "--comm=x", "--exp=NONE", "--sig=USR1@60", "--pars", "--job=x", "-Jx", "-dafterok:1", "--", "-", "-p"} {
		err := (Chain{Job: "j.sh", Extra: []string{e, "x"}, Steps: []Step{{Time: 60}}}).Validate()
		if err == nil {
			t.Errorf("%q accepted", e)
		}
	}
	good := Chain{Job: "j.sh", Extra: []string{"--partition=x", "-px", "--gres=gpu:1", "--time-min=5", "--export-file=f", "--mem=1G", "--output=o-%j"}, Steps: []Step{{Time: 60}}}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
	b, _ := json.Marshal(sample())
	var back Chain
	if json.Unmarshal(b, &back); back.Validate() != nil || len(back.Steps) != 3 {
		t.Error("plan does not survive JSON")
	}
}

// A Slurm that rejects the first submission (unreachable, or a job script
// sbatch cannot open): the script exits 1 saying that nothing was
// submitted, and cancels nothing.
func TestScriptFirstSubmissionFails(t *testing.T) {
	dir := t.TempDir()
	env := writeFakeSbatch(t, dir, 1)
	s, _ := sample().Script()
	cmd := exec.Command("bash", "-c", s)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ckpt: submission failed; cancelled nothing") {
		t.Fatalf("%v: %s", err, out)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if strings.Count(string(calls), "sbatch") != 1 || strings.Contains(string(calls), "scancel") {
		t.Fatalf("calls:\n%s", calls)
	}
	if st, err := Load(filepath.Join(dir, "chains", "seg-test")); err == nil && len(st.Jobs) != 0 {
		t.Errorf("jobs recorded: %v", st.Jobs)
	}
}

// ValidScale accepts 0 and [1e-3, 1e6] only: NaN, ±Inf, negatives and
// factors whose scaled lengths overflow a time.Duration are refused, and
// Chain.Validate refuses what it refuses.
func TestValidScale(t *testing.T) {
	for s, want := range map[float64]bool{0: true, 1e-3: true, 1: true, 20: true, 1e6: true,
		-1: false, 1e-4: false, 1e-300: false, 2e6: false, math.NaN(): false, math.Inf(1): false, math.Inf(-1): false} {
		if ValidScale(s) != want {
			t.Errorf("ValidScale(%v) = %v", s, !want)
		}
	}
	c := Chain{Job: "job.sh", Scale: math.NaN(), Steps: []Step{{Time: 60}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "scale NaN") {
		t.Errorf("Validate: %v", err)
	}
}
