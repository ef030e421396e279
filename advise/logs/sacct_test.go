package logs

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/usage"
)

// A sacct dump of six lines: two usable jobs (their fields read by hand
// below), a step, a ckpt chain reservation whose comment lost its
// progress, a running job and a job without a limit, each skipped for its
// reason.
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
		l.Skipped["ckpt chain: chain comment without progress"] != 1 {
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
	f.Add(chainDump)
	f.Add(strings.Replace(chainDump, "progress=5000", "progress=Inf", 1))
	f.Add(strings.Replace(chainDump, "|600|COMPLETED|\n", "|Inf|COMPLETED|\n", 1))
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ReadSacct(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		for i, j := range l.Jobs {
			if !(j.Run > 0) || !(j.Requested > 0) || math.IsInf(j.Run, 0) || math.IsInf(j.Requested, 0) ||
				(i > 0 && j.Submit < l.Jobs[i-1].Submit) || j.Length() > j.Requested {
				t.Fatalf("job %d: %+v", i, j)
			}
		}
	})
}

// chainDump is a dump of three chains and a lone job, read by hand:
//   - chain a (ana, 4 nodes): r1 saved 3000 s of work in its 1 h, r2
//     completed at 5000, r3 was cancelled unstarted: one complete run of
//     5000 s, submitted with r1 at 10:00, ended with r2 at 11:45, its
//     request the sum of its three limits, 3 h;
//   - chain b (bo): r1 saved 1000, r2 ran to its end and saved 1900, the
//     chain stopped there: a run censored at 1900 s;
//   - chain c (ana): r1 ended (saved 600), r2 still pending: skipped, and
//     the learn stops before its submit (10:30);
//   - lone job 40 (ana, no chain, same name as chain a): a plain run of
//     600 s under a 1 h limit, submitted at 11:00, after chain c.
const chainDump = "JobID|User|Account|JobName|Partition|NNodes|Submit|Start|End|Timelimit|ElapsedRaw|State|Comment\n" +
	"20|ana|phys|relax.r1|debug|4|2026-01-02T10:00:00|2026-01-02T10:00:10|2026-01-02T11:00:10|01:00:00|3600|FAILED|ckpt:chain=a;r=1;outcome=checkpointed;progress=3000;work=3000\n" +
	"21|ana|phys|relax.r2|debug|4|2026-01-02T10:00:00|2026-01-02T11:00:20|2026-01-02T11:45:00|01:00:00|2680|COMPLETED|ckpt:chain=a;r=2;outcome=done;progress=5000;work=5000\n" +
	"22|ana|phys|relax.r3|debug|4|2026-01-02T10:00:00|None|2026-01-02T11:45:01|01:00:00|0|CANCELLED by 0|ckpt:chain=a\n" +
	"30|bo|bio|md.r1|debug|1|2026-01-02T09:00:00|2026-01-02T09:00:00|2026-01-02T09:20:00|00:20:00|1200|FAILED|ckpt:chain=b;r=1;outcome=checkpointed;progress=1000;work=1000\n" +
	"31|bo|bio|md.r2|debug|1|2026-01-02T09:00:00|2026-01-02T09:20:05|2026-01-02T09:35:05|00:15:00|900|TIMEOUT|ckpt:chain=b;r=2;outcome=checkpointed;progress=1900;work=1900\n" +
	"35|ana|phys|relax2.r1|debug|1|2026-01-02T10:30:00|2026-01-02T10:30:00|2026-01-02T10:40:00|00:10:00|600|FAILED|ckpt:chain=c;r=1;outcome=checkpointed;progress=600;work=600\n" +
	"36|ana|phys|relax2.r2|debug|1|2026-01-02T10:30:00|Unknown|Unknown|00:10:00|0|PENDING|ckpt:chain=c\n" +
	"40|ana|phys|relax|debug|4|2026-01-02T11:00:00|2026-01-02T11:00:00|2026-01-02T11:10:00|01:00:00|600|COMPLETED|\n"

// A chain's reservations are one run, as ckpt reserve --history joins
// them: its work, complete or censored, its first submit and last end.
func TestReadSacctChains(t *testing.T) {
	l, err := ReadSacct(strings.NewReader(chainDump), "chains.sacct")
	if err != nil {
		t.Fatal(err)
	}
	at := func(hhmm string) float64 {
		tm, _ := time.ParseInLocation("2006-01-02T15:04", "2026-01-02T"+hhmm, time.UTC)
		return float64(tm.Unix())
	}
	if l.Read != 8 || len(l.Jobs) != 3 || l.Chains != 2 || l.Skipped["ckpt chain: chain still running"] != 1 || l.Unended != at("10:30") {
		t.Fatalf("read %d, %d jobs, %d chains, unended %v, skipped %v", l.Read, len(l.Jobs), l.Chains, l.Unended, l.Skipped)
	}
	b, a, lone := l.Jobs[0], l.Jobs[1], l.Jobs[2]
	if b.Chain != "b" || b.User != "bo" || b.Run != 1900 || b.Requested != 1900 || !b.Censored() || b.Length() != 1900 ||
		b.Wait != -1 || b.Submit != at("09:00") || b.End() != at("09:35")+5 {
		t.Errorf("chain b: %+v (censored %v)", b, b.Censored())
	}
	if a.Chain != "a" || a.User != "ana" || a.App != "relax" || a.Nodes != 4 || a.Run != 5000 || a.Requested != 3*3600 ||
		a.Censored() || a.Length() != 5000 || a.Submit != at("10:00") || a.End() != at("11:45")+1 {
		t.Errorf("chain a: %+v (censored %v)", a, a.Censored())
	}
	if lone.Chain != "" || lone.Run != 600 || lone.Requested != 3600 || lone.Censored() || lone.End() != at("11:10") {
		t.Errorf("job 40: %+v", lone)
	}
}

// fakeSite answers the accounting query with a fixed dump and records the
// window asked.
type fakeSite struct {
	out          string
	since, until time.Time
	calls        int
}

func (f *fakeSite) SiteJobs(_ context.Context, since, until time.Time) (string, error) {
	f.since, f.until = since, until
	f.calls++
	return f.out, nil
}

// learn --from-cluster: a new model asks for the last 30 days, learns
// every ended run (chains a, b, job 40) and waits for chain c alone;
// learnt again once chain c ended, it asks from where it stopped (job 40's
// submit) and learns chain c only, by its ID (the other three are already
// learnt).
func TestLearnFromCluster(t *testing.T) {
	now := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	site := &fakeSite{out: chainDump}
	model := filepath.Join(t.TempDir(), "site.model")
	r := LearnRequest{Model: model, Params: advise.DefaultParams(), FromCluster: true, Cluster: site, Now: func() time.Time { return now }}
	rep, err := Learn(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !site.since.Equal(now.Add(-30*24*time.Hour)) || !site.until.IsZero() {
		t.Errorf("window %v to %v, want the last 30 days", site.since, site.until)
	}
	if rep.New != 3 || rep.Chains != 2 || rep.Deferred != 1 || rep.Jobs != 3 || rep.Extended || !strings.Contains(rep.Waiting, "ckpt chain c is RUNNING") {
		t.Fatalf("first learn: %+v", rep)
	}
	// Chain c ends: r2 completes at 1200 s of work.
	site.out = strings.Replace(chainDump, "36|ana|phys|relax2.r2|debug|1|2026-01-02T10:30:00|Unknown|Unknown|00:10:00|0|PENDING|ckpt:chain=c",
		"36|ana|phys|relax2.r2|debug|1|2026-01-02T10:30:00|2026-01-02T10:40:05|2026-01-02T10:50:05|00:10:00|600|COMPLETED|ckpt:chain=c;r=2;outcome=done;progress=1200;work=1200", 1)
	rep, err = Learn(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 2, 11, 0, 0, 0, time.UTC); !site.since.Equal(want) {
		t.Errorf("second window from %v, want %v (the last submit learnt)", site.since, want)
	}
	if rep.New != 1 || rep.Old != 3 || rep.Chains != 1 || rep.Deferred != 0 || rep.Jobs != 4 || !rep.Extended {
		t.Fatalf("second learn: %+v", rep)
	}
	// Nothing new: a window with only its header learns nothing, without error.
	site.out = strings.SplitAfter(chainDump, "\n")[0]
	if rep, err = Learn(t.Context(), r); err != nil || rep.New != 0 || rep.Jobs != 4 {
		t.Fatalf("empty window: %+v, %v", rep, err)
	}
	for _, bad := range []LearnRequest{
		{Model: model, FromCluster: true, Log: "x.swf", Cluster: site},
		{Model: model, Since: "2026-01-01", Log: "x.swf"},
		{Model: model, FromCluster: true, Since: "yesterday", Cluster: site},
		{Model: model, FromCluster: true, Since: "2026-01-02", Until: "2026-01-01", Cluster: site},
	} {
		bad.Params, bad.Now = advise.DefaultParams(), r.Now
		if _, err := Learn(t.Context(), bad); err == nil || !usage.Is(err) {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}
