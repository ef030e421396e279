package logs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/usage"
)

// siteJob is one job of a fake cluster: submitted at Submit, running
// from Start (zero: never started) to End (zero: not ended).
type siteJob struct {
	ID                 int
	Submit, Start, End time.Time
}

// clusterSite is a fake accounting that answers as sacct -a -X does: the
// jobs of the window (submitted by its end, not ended before its start)
// in the state they have at Now.
type clusterSite struct {
	jobs  []siteJob
	now   time.Time
	since time.Time
}

func (c *clusterSite) SiteJobs(_ context.Context, since, until time.Time) (string, error) {
	c.since = since
	if until.IsZero() || until.After(c.now) {
		until = c.now
	}
	var b strings.Builder
	b.WriteString("JobID|User|Account|JobName|Partition|NNodes|Submit|Start|End|Timelimit|ElapsedRaw|State|Comment\n")
	f := func(t time.Time) string {
		if t.IsZero() || t.After(c.now) {
			return "Unknown"
		}
		return t.Format(slurm.SacctTimeLayout)
	}
	for _, j := range c.jobs {
		if j.Submit.After(until) || (!j.End.IsZero() && !j.End.After(c.now) && j.End.Before(since)) {
			continue
		}
		state, el := "PENDING", 0
		switch {
		case !j.End.IsZero() && !j.End.After(c.now):
			state, el = "COMPLETED", int(j.End.Sub(j.Start).Seconds())
		case !j.Start.IsZero() && !j.Start.After(c.now):
			state = "RUNNING"
		}
		fmt.Fprintf(&b, "%d|u%d|acct|app|debug|1|%s|%s|%s|02:00:00|%d|%s|\n", j.ID, j.ID%3, f(j.Submit), f(j.Start), f(j.End), el, state)
	}
	return b.String(), nil
}

var day = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

func at(hhmm string) time.Time {
	t, _ := time.ParseInLocation("15:04", hhmm, time.UTC)
	return day.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
}

// completedIn counts the COMPLETED lines of the fake's answer: the oracle
// of how many jobs a learn can take.
func completedIn(c *clusterSite, since, until time.Time) int {
	out, _ := c.SiteJobs(context.Background(), since, until)
	return strings.Count(out, "|COMPLETED|")
}

// A job PENDING forever (held) waits alone: the jobs submitted after it
// are learnt as they end, and it is learnt once it ends, once.
func TestLearnPendingJobWaitsAlone(t *testing.T) {
	site := &clusterSite{now: at("12:00"), jobs: []siteJob{
		{ID: 101, Submit: at("10:00")}, // held
		{ID: 102, Submit: at("10:05"), Start: at("10:06"), End: at("10:30")},
		{ID: 103, Submit: at("10:10"), Start: at("10:11"), End: at("11:00")},
	}}
	r := LearnRequest{Model: filepath.Join(t.TempDir(), "m6.model"), Params: advise.DefaultParams(), FromCluster: true,
		Since: "2026-11-28", Cluster: site, Now: func() time.Time { return site.now }}
	want := completedIn(site, day, time.Time{})
	rep, err := Learn(t.Context(), r)
	if err != nil || rep.New != want || want != 2 || rep.Deferred != 1 {
		t.Fatalf("first learn: %+v, %v; want %d new, 1 waiting", rep, err, want)
	}
	var text strings.Builder
	if rep.WriteText(&text); !strings.Contains(text.String(), "job 101 is PENDING") {
		t.Errorf("the report does not name the job waited for: %s", text.String())
	}
	// 104 ends, 101 still held: only 104 is new.
	site.now = at("13:00")
	site.jobs = append(site.jobs, siteJob{ID: 104, Submit: at("12:10"), Start: at("12:10"), End: at("12:40")})
	r.Since = ""
	if rep, err = Learn(t.Context(), r); err != nil || rep.New != 1 || rep.Deferred != 1 || rep.Jobs != 3 {
		t.Fatalf("second learn: %+v, %v", rep, err)
	}
	// 101 is released and ends: learnt by its ID, though submitted
	// before the model's last submit.
	site.now = at("14:00")
	site.jobs[0].Start, site.jobs[0].End = at("13:10"), at("13:20")
	if rep, err = Learn(t.Context(), r); err != nil || rep.New != 1 || rep.Deferred != 0 || rep.Jobs != 4 {
		t.Fatalf("third learn: %+v, %v", rep, err)
	}
	if rep, err = Learn(t.Context(), r); err != nil || rep.New != 0 || rep.Jobs != 4 {
		t.Fatalf("fourth learn, nothing new: %+v, %v", rep, err)
	}
}

// Whatever the times of cron's learns, every job of the cluster is learnt
// exactly once when all have ended (conservation: the model's job count
// is the number of jobs).
func TestLearnEveryJobOnce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(rt, "jobs")
		site := &clusterSite{}
		last := day
		for i := range n {
			sub := day.Add(time.Duration(rapid.IntRange(0, 600).Draw(rt, "submit")) * time.Minute)
			start := sub.Add(time.Duration(rapid.IntRange(0, 300).Draw(rt, "wait")) * time.Minute)
			end := start.Add(time.Duration(rapid.IntRange(1, 120).Draw(rt, "run")) * time.Minute)
			site.jobs = append(site.jobs, siteJob{ID: 100 + i, Submit: sub, Start: start, End: end})
			if end.After(last) {
				last = end
			}
		}
		r := LearnRequest{Model: filepath.Join(t.TempDir(), fmt.Sprintf("p%d.model", time.Now().UnixNano())), Params: advise.DefaultParams(),
			FromCluster: true, Since: "2026-11-28", Cluster: site, Now: func() time.Time { return site.now }}
		learns := rapid.IntRange(0, 6).Draw(rt, "learns")
		site.now = day
		for k := 0; k <= learns; k++ { // cron's clock goes forward
			site.now = site.now.Add(time.Duration(rapid.IntRange(0, 300).Draw(rt, "cron")) * time.Minute)
			if k == learns && !site.now.After(last) {
				site.now = last.Add(time.Minute) // every job has ended
			}
			if k > 0 {
				r.Since = ""
			}
			if _, err := Learn(context.Background(), r); err != nil {
				rt.Fatal(err)
			}
		}
		e, err := advise.ReadModel(r.Model)
		if err != nil {
			rt.Fatal(err)
		}
		if jobs, _ := e.Size(); jobs != n || len(e.Waiting()) != 0 {
			rt.Fatalf("%d jobs in the model, waiting %v, want %d", jobs, e.Waiting(), n)
		}
	})
}

// Extending a model with a --since before its window is refused (the jobs
// between were never learnt); within it, the jobs already learnt are
// skipped, exactly; a model that learnt nothing keeps its window.
func TestLearnEarlierSince(t *testing.T) {
	site := &clusterSite{now: at("13:00")}
	for i := range 40 {
		s := at("09:00").Add(time.Duration(i) * 5 * time.Minute) // 09:00 to 12:15
		site.jobs = append(site.jobs, siteJob{ID: 200 + i, Submit: s, Start: s, End: s.Add(2 * time.Minute)})
	}
	model := filepath.Join(t.TempDir(), "m2.model")
	r := LearnRequest{Model: model, Params: advise.DefaultParams(), FromCluster: true, Cluster: site, Now: func() time.Time { return site.now },
		Since: "2026-11-28T11:00", Until: "2026-11-28T12:00"}
	rep, err := Learn(t.Context(), r)
	if want := completedIn(site, at("11:00"), at("12:00")); err != nil || rep.New != want {
		t.Fatalf("first learn: %+v, %v; want %d", rep, err, want)
	}
	learnt := rep.New
	r.Since, r.Until = "2026-11-28T10:00", "2026-11-28T12:30"
	if _, err = Learn(t.Context(), r); !usage.Is(err) || !strings.Contains(fmt.Sprint(err), "since") {
		t.Fatalf("an earlier --since: %v, want a usage error naming --since", err)
	}
	r.Since = "2026-11-28T11:30" // within what the model covers
	rep, err = Learn(t.Context(), r)
	if want := completedIn(site, at("11:30"), at("12:30")); err != nil || rep.Old+rep.New != want || rep.Jobs != learnt+rep.New ||
		rep.New != completedIn(site, at("12:00"), at("12:30"))-1 { // the 11:58 job ended at 12:00, learnt then
		t.Fatalf("a --since within the model: %+v, %v; want %d listed", rep, err, want)
	}

	// A model that learnt nothing keeps its window: the next learn starts there.
	empty := &clusterSite{now: at("13:00")}
	r = LearnRequest{Model: filepath.Join(t.TempDir(), "m0.model"), Params: advise.DefaultParams(), FromCluster: true, Cluster: empty,
		Now: func() time.Time { return empty.now }, Since: "2026-11-28T11:00", Until: "2026-11-28T12:00"}
	if rep, err = Learn(t.Context(), r); err != nil || rep.New != 0 {
		t.Fatalf("empty window: %+v, %v", rep, err)
	}
	r.Since, r.Until = "", ""
	if _, err = Learn(t.Context(), r); err != nil || !empty.since.Equal(at("11:00")) {
		t.Fatalf("the 0-job model was extended from %v (%v), want its window's start 11:00", empty.since, err)
	}
}

// garbage is an accounting that answers anything.
type garbage string

func (g garbage) SiteJobs(context.Context, time.Time, time.Time) (string, error) {
	return string(g), nil
}

// Bad windows are usage errors naming their flag; a bad answer from the
// cluster is a runtime failure.
func TestLearnWindowErrors(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return at("12:00") }
	for _, c := range []struct {
		r     LearnRequest
		field string
	}{
		{LearnRequest{FromCluster: true, Since: "2030-01-01"}, "since"},
		{LearnRequest{FromCluster: true, Since: "2026-11-28T11:00", Until: "2026-11-28T10:00"}, "until"},
		{LearnRequest{Log: "x.swf", Until: "1d"}, "until"},
		{LearnRequest{Log: "x.swf", Since: "1d"}, "since"},
	} {
		c.r.Model, c.r.Params, c.r.Now, c.r.Cluster = filepath.Join(dir, "w.model"), advise.DefaultParams(), now, garbage("")
		_, err := Learn(t.Context(), c.r)
		var ue *usage.Error
		if !errors.As(err, &ue) || ue.Field != c.field {
			t.Errorf("%+v: %v, want a usage error naming %s", c.r, err, c.field)
		}
	}
	r := LearnRequest{Model: filepath.Join(dir, "g.model"), Params: advise.DefaultParams(), FromCluster: true, Now: now,
		Cluster: garbage("sacct: error: something\n")}
	if _, err := Learn(t.Context(), r); err == nil || usage.Is(err) {
		t.Errorf("a garbage sacct answer: %v, want a runtime failure", err)
	}
}
