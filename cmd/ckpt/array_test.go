package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
