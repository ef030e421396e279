package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

// TestShardAutoUnderAJobArray runs a sweep as the tasks of a Slurm array
// would (SLURM_ARRAY_TASK_ID/COUNT in the environment, --shard auto), then
// merges without --expect: the shards' end lines give the count, a lost
// last shard is named, and the merge is the unsplit run's bytes.
func TestShardAutoUnderAJobArray(t *testing.T) {
	dir := t.TempDir()
	args := []string{"reserve", "sweep", "--dist", "uniform:a=1h,b=20h", "--ckpt", "1m,6m,30m", "--restart", "6m", "--epsilon", "1", "--max-tau", "50"}
	full, errOut, code := run(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var parts []string
	for i := range 4 { // 3 items over 4 tasks: task 3 runs none
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(i))
		t.Setenv("SLURM_ARRAY_TASK_COUNT", "4")
		p := filepath.Join(dir, "part."+strconv.Itoa(i)+".csv")
		if _, errOut, code := run(t, "", append(args, "--shard", "auto", "--csv", p)...); code != 0 {
			t.Fatalf("task %d: exit %d: %s", i, code, errOut)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.csv")
	if _, errOut, code := run(t, "", append([]string{"merge", "--out", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(merged); string(got) != full {
		t.Fatalf("merged shards differ from the unsplit run:\n%s\nvs\n%s", got, full)
	}
	// The last, empty, shard lost: named, with the list to resubmit.
	_, errOut, code = run(t, "", append([]string{"merge", "--out", merged}, parts[:3]...)...)
	if code != 1 || !strings.Contains(errOut, "1 of 4 shards missing: 3 (resubmit with --array=3)") {
		t.Fatalf("missing last shard: exit %d: %s", code, errOut)
	}
	// A resubmitted task (--array=3: count 1, min 3) must say auto/4.
	t.Setenv("SLURM_ARRAY_TASK_ID", "3")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "1")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "3")
	t.Setenv("SLURM_ARRAY_TASK_MAX", "3")
	if _, errOut, code := run(t, "", append(args, "--shard", "auto", "--csv", parts[3])...); code != 2 || !strings.Contains(errOut, "auto/N") {
		t.Fatalf("auto in a partial array: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, "", append(args, "--shard", "auto/4", "--csv", parts[3])...); code != 0 {
		t.Fatalf("auto/4: exit %d: %s", code, errOut)
	}
}

// TestReproShardsFinishToTheUnsplitBytes: the capacity reproduction run
// as 3 shards, merged and finished writes the same files, figures
// included, as the unsplit run (gated: see reproOutEnv). Its quick run has
// 14 sweeps with the KIT workload of the shared data, 11 without.
func TestReproShardsFinishToTheUnsplitBytes(t *testing.T) {
	whole := quickRepro(t, "capacity")
	sweeps := "items of 14 sweeps recorded"
	if _, err := datadir.Path("", "swf", "KIT-FH2-2016-1_CQSim-simresult.rst"); err != nil {
		t.Logf("expecting 11 sweeps: %v", err)
		sweeps = "items of 11 sweeps recorded"
	}
	dir := t.TempDir()
	base := []string{"repro", "capacity", "--quick", "--workers", "2"}
	var logs []string
	for i := range 3 {
		p := filepath.Join(dir, "part."+strconv.Itoa(i)+".jsonl")
		_, errOut, code := run(t, "", append(base, "--out", filepath.Join(dir, "shard"), "--shard", strconv.Itoa(i)+"/3", "--items", p)...)
		if code != 0 || !strings.Contains(errOut, sweeps) {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		logs = append(logs, p)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard")); !os.IsNotExist(err) {
		t.Fatal("a shard wrote outputs built from partial results")
	}
	merged := filepath.Join(dir, "items.jsonl")
	if _, errOut, code := run(t, "", append([]string{"merge", "--out", merged}, logs[1:]...)...); code != 1 || !strings.Contains(errOut, "--array=0") {
		t.Fatalf("merge without shard 0: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, "", append([]string{"merge", "--out", merged}, logs...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, "", append(base, "--out", filepath.Join(dir, "fin"), "--finish", merged)...); code != 0 {
		t.Fatalf("finish: exit %d: %s", code, errOut)
	}
	sameTree(t, whole, filepath.Join(dir, "fin", "capacity"))
	// Another seed is refused, naming it.
	if _, errOut, code := run(t, "", append(base, "--seed", "7", "--out", filepath.Join(dir, "x"), "--finish", merged)...); code != 1 || !strings.Contains(errOut, "seed") {
		t.Fatalf("finish with another seed: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{"--shard", "0/2"}, {"--shard", "0/2", "--items", "a.csv"}, {"--items", "a.jsonl", "--finish", merged}, {"--shard", "2/2", "--items", "a.jsonl"}} {
		if _, errOut, code := run(t, "", append(base, args...)...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// sameTree fails unless the folders hold the same files with the same
// bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(a, p)
			files[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	n := 0
	filepath.WalkDir(b, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(b, p)
			got, _ := os.ReadFile(p)
			want, ok := files[rel]
			if !ok || string(got) != string(want) {
				t.Errorf("%s differs (present in both: %v)", rel, ok)
			}
			n++
		}
		return nil
	})
	if n != len(files) || n == 0 {
		t.Errorf("%d files against %d", n, len(files))
	}
}

func TestArrayScriptAndResubmit(t *testing.T) {
	dir := t.TempDir()
	stem := filepath.Join(dir, "costs")
	sweep := []string{"reserve", "sweep", "--ckpt", "1m,6m,30m", "--csv", stem + ".csv"}
	out, errOut, code := run(t, "", append([]string{"array", "--shards", "4", "--throttle", "2", "--time", "1h", "--"}, sweep...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"--array=0-3%2 ", "--time=01:00:00", "--dependency=afterok:${array}", "--shard auto/4", "exec ckpt reserve sweep", "ckpt merge --out " + stem + ".csv " + stem + ".part-*.csv"} {
		if !strings.Contains(out, want) {
			t.Errorf("script lacks %q:\n%s", want, out)
		}
	}
	// Tasks 0 and 2 done, 1 interrupted (no end line), 3 never ran.
	for _, i := range []int{0, 1, 2} {
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(i))
		t.Setenv("SLURM_ARRAY_TASK_COUNT", "4")
		p := stem + ".part-" + strconv.Itoa(i) + ".csv"
		if _, errOut, code := run(t, "", append(sweep[:4:4], "--csv", p, "--shard", "auto")...); code != 0 {
			t.Fatalf("task %d: %s", i, errOut)
		}
	}
	b, _ := os.ReadFile(stem + ".part-1.csv")
	os.WriteFile(stem+".part-1.csv", b[:strings.Index(string(b), "#")], 0o644)
	out, errOut, code = run(t, "", append([]string{"array", "--tasks", "4", "--throttle", "2", "--resubmit", "--"}, sweep...)...)
	if code != 0 || !strings.Contains(errOut, "2 of 4 shards missing: --array=1,3") || !strings.Contains(out, "--array=1,3%2 ") {
		t.Fatalf("resubmit: exit %d: %s\n%s", code, errOut, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"array", "--", "reserve", "sweep", "--csv", "a.csv"}, "--shards"},
		{[]string{"array", "--tasks", "2", "--", "reserve", "plan"}, "not a ckpt command with --shard"},
		{[]string{"array", "--tasks", "2", "--", "reserve", "sweep"}, "--csv FILE"},
		{[]string{"array", "--tasks", "2", "--", "reserve", "sweep", "--csv", "-"}, "its own file"},
		{[]string{"array", "--tasks", "2", "--", "reserve", "sweep", "--csv", "a.csv", "--shard", "0/2"}, "--shard"},
		{[]string{"array", "--tasks", "2", "--", "repro", "--out", "x"}, "name the reproduction"},
		{[]string{"array", "--tasks", "2", "--time", "-1h", "--", "repro", "capacity"}, "--time"},
		{[]string{"array", "--tasks", "2", "--sbatch-arg", "--array=3", "--", "repro", "capacity"}, "--array"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
}

// The flags renamed for one vocabulary (--shards, --job-name, --ckpt-bin)
// keep their old names hidden for one release: the same script, and the
// old names absent from --help.
func TestArrayOldFlagNames(t *testing.T) {
	sweep := []string{"--", "reserve", "sweep", "--ckpt", "1m,6m", "--csv", "c.csv"}
	newOut, errOut, code := run(t, "", append([]string{"array", "--shards", "2", "--job-name", "x", "--ckpt-bin", "/opt/ckpt"}, sweep...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	oldOut, errOut, code := run(t, "", append([]string{"array", "--tasks", "2", "--name", "x", "--ckpt", "/opt/ckpt"}, sweep...)...)
	if code != 0 || oldOut != newOut || !strings.Contains(newOut, "/opt/ckpt merge") || !strings.Contains(newOut, "x.merge") {
		t.Errorf("exit %d %s; old names:\n%s\nnew names:\n%s", code, errOut, oldOut, newOut)
	}
	help, _, _ := run(t, "", "array", "--help")
	help = help[strings.Index(help, "Flags:"):]
	for _, old := range []string{"--tasks", "--name ", "--ckpt "} {
		if strings.Contains(help, old) {
			t.Errorf("--help shows %s:\n%s", old, help)
		}
	}
}
