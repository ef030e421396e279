package main

import (
	"strings"
	"testing"
)

func TestSbatchFlagsNeedSbatch(t *testing.T) {
	for _, args := range [][]string{
		{"reserve", "--job-name", "x"},
		{"reserve", "--sbatch-arg", "--partition=gpu"},
		{"reserve", "--ahead", "3"},
	} {
		_, errOut, code := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "needs --sbatch") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

func TestReserveSbatchWindowAndPassThrough(t *testing.T) {
	base := []string{"reserve", "--dist", "uniform:a=1h,b=3h", "--ckpt", "5m", "--restart", "5m", "--no-baselines", "--sbatch", "job.sh", "--job-name", "seg"}
	out, errOut, code := run(t, "", append(base, "--sbatch-arg", "--partition=gpu", "--sbatch-arg", "--account=a1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\nsubmit "); n != 3 || !strings.Contains(out, "--partition=gpu --account=a1") || !strings.Contains(out, "--job-name=seg.r3") {
		t.Errorf("want 3 submissions (window 2 ahead) with the options:\n%s", out)
	}
	all, _, _ := run(t, "", append(base, "--ahead", "all")...)
	if strings.Count(all, "\nsubmit ") <= 3 || strings.Contains(all, "submitted by the runners") {
		t.Errorf("--ahead all does not submit everything:\n%s", all)
	}
	for _, bad := range [][]string{{"--ahead", "0"}, {"--ahead", "x"}, {"--sbatch-arg", "--time=5"}, {"--job-name", "a b"}} {
		_, errOut, code := run(t, "", append(base[:len(base)-2], append([]string{"--job-name", "seg"}, bad...)...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
}
