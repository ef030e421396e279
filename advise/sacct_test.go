package advise

import (
	"strings"
	"testing"
)

// A sacct dump of six lines: two usable jobs (their fields read by hand
// below), a step, a ckpt chain reservation, a running job and a job
// without a limit, each skipped for its reason.
func TestReadSacct(t *testing.T) {
	dump := "JobID|User|Account|JobName|Partition|NNodes|Submit|Start|End|Timelimit|ElapsedRaw|State|Comment\n" +
		"12|ana|phys|relax|debug|4|2026-01-02T10:00:00|2026-01-02T10:05:30|2026-01-02T11:05:30|02:00:00|3600|COMPLETED|\n" +
		"12.batch|||batch||4|2026-01-02T10:05:30|2026-01-02T10:05:30|2026-01-02T11:05:30||3600|COMPLETED|\n" +
		"9|bo|bio|align|short|1|2026-01-01T23:00:00|2026-01-01T23:00:00|2026-01-01T23:05:00|00:05:00|300|TIMEOUT|\n" +
		"13|ana|phys|count.r1|debug|1|2026-01-02T10:00:00|2026-01-02T10:00:01|2026-01-02T10:02:00|00:02:00|119|FAILED|ckpt:chain=c1;r=1;outcome=checkpointed\n" +
		"14|ana|phys|relax|debug|4|2026-01-02T12:00:00|2026-01-02T12:00:00|Unknown|02:00:00|60|RUNNING|\n" +
		"15|ana|phys|relax|debug|4|2026-01-02T12:00:00|2026-01-02T12:00:00|2026-01-02T12:01:00|UNLIMITED|60|COMPLETED|\n"
	l, err := ReadLog(strings.NewReader(dump), "jobs.sacct")
	if err != nil {
		t.Fatal(err)
	}
	if l.Read != 6 || len(l.Jobs) != 2 || l.Skipped["job step"] != 1 || l.Skipped["not ended"] != 1 || l.Skipped["no time limit"] != 1 ||
		l.Skipped["ckpt chain reservation (learnt by ckpt reserve --history)"] != 1 {
		t.Fatalf("read %d, %d jobs, skipped %v", l.Read, len(l.Jobs), l.Skipped)
	}
	// Submit order: job 9 (the day before) first. It hit its 5 min limit.
	j9, j12 := l.Jobs[0], l.Jobs[1]
	if j9.User != "bo" || j9.Requested != 300 || j9.Run != 300 || !j9.Censored() || j9.Wait != 0 || j9.Nodes != 1 || j9.Partition != "short" {
		t.Errorf("job 9: %+v", j9)
	}
	if j12.User != "ana" || j12.Group != "phys" || j12.App != "relax" || j12.Requested != 7200 || j12.Run != 3600 ||
		j12.Wait != 330 || j12.Nodes != 4 || j12.Censored() || j12.Submit-j9.Submit != 11*3600 {
		t.Errorf("job 12: %+v", j12)
	}
	for _, bad := range []string{"", "JobID|State\n1|COMPLETED\n", "JobID|Submit|Start|Timelimit|ElapsedRaw|State\n1|x\n"} {
		if _, err := ReadLog(strings.NewReader(bad), "bad.sacct"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzReadSacct: any dump either reads or is refused with an error; a
// read log's jobs are in submit order with positive runs and limits.
func FuzzReadSacct(f *testing.F) {
	f.Add("JobID|Submit|Start|Timelimit|ElapsedRaw|State\n1|2026-01-02T10:00:00|2026-01-02T10:00:05|01:00:00|60|COMPLETED\n")
	f.Add("JobID|Submit|Start|Timelimit|ElapsedRaw|State\n1|2026-01-02T10:00:00|x|UNLIMITED|-1|PENDING\n")
	f.Add("JobID|\n|\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ReadSacct(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		for i, j := range l.Jobs {
			if !(j.Run > 0) || !(j.Requested > 0) || (i > 0 && j.Submit < l.Jobs[i-1].Submit) {
				t.Fatalf("job %d: %+v", i, j)
			}
		}
	})
}
