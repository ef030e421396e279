package logs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// DefaultSince is how far back a new model learns from a cluster when no
// window start is given: the last 30 days.
const DefaultSince = 30 * 24 * time.Hour

// ParseWhen reads a window bound: a date or wall-clock time of the
// cluster's zone (2026-01-02, 2026-01-02T15:04, 2026-01-02T15:04:05) or a
// duration back from now in the duration grammar (7d, 36h, 01:30:00).
func ParseWhen(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", slurm.SacctTimeLayout} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	d, err := units.ParseSeconds(s)
	if err != nil || d < 0 || d > 100*365*86400 {
		return time.Time{}, fmt.Errorf("want a date (2026-01-02), a time (2026-01-02T15:04[:05]) or a duration back from now (7d, 36h), got %q", s)
	}
	return now.Add(-time.Duration(d * float64(time.Second))), nil
}

// wallClock is the cluster-zone time whose wall clock reads as the UTC
// time sec: sacct dumps are read as UTC (only differences matter), so a
// model's last submit is a wall-clock reading.
func wallClock(sec float64, loc *time.Location) time.Time {
	u := time.Unix(int64(math.Floor(sec)), 0).UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), 0, loc)
}

// wallSec is the UTC reading of t's wall clock: the time base of sacct
// dumps read as UTC (the inverse of wallClock).
func wallSec(t time.Time) float64 {
	return float64(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC).Unix())
}

// clusterLog reads every user's jobs of the window from the cluster's
// accounting: from r.Since (default: where the model e stopped, its last
// submit or, when it learnt none, its window's start; for a new model
// DefaultSince ago) to r.Until (default now). It refuses a window in the
// future and, for an existing model, a start before the model's (the jobs
// between were never learnt, and are not told apart from those that were
// by submit time). It returns the log and the window's start (wallSec).
// O(jobs of the window).
func clusterLog(ctx context.Context, r LearnRequest, e *advise.Engine, extended bool) (advise.Log, float64, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	since := now.Add(-DefaultSince)
	from, last := e.Span()
	if stop := max(last, from); extended && stop > 0 {
		since = wallClock(stop, now.Location())
	}
	var until time.Time
	var err error
	if r.Since != "" {
		if since, err = ParseWhen(r.Since, now); err != nil {
			return advise.Log{}, 0, usage.Fieldf("since", "%v", err)
		}
		if since.After(now) {
			return advise.Log{}, 0, usage.Fieldf("since", "%s is in the future (now is %s)", r.Since, now.Format(slurm.SacctTimeLayout))
		}
		covered := from
		if covered == 0 {
			covered = last // a model of an older ckpt: it covers up to there
		}
		if extended && covered > 0 && wallSec(since) < covered {
			return advise.Log{}, 0, usage.Fieldf("since", "%s is before %s, where %s starts: the jobs between were never learnt and would be skipped as learnt (learn them into a new model)",
				r.Since, wallClock(covered, time.UTC).Format(slurm.SacctTimeLayout), r.Model)
		}
	}
	if r.Until != "" {
		if until, err = ParseWhen(r.Until, now); err != nil {
			return advise.Log{}, 0, usage.Fieldf("until", "%v", err)
		}
		if !until.After(since) {
			return advise.Log{}, 0, usage.Fieldf("until", "%s is not after the window's start %s", r.Until, since.Format(slurm.SacctTimeLayout))
		}
	}
	cl := r.Cluster
	if cl == nil {
		cl = slurm.Exec{}
	}
	out, err := cl.SiteJobs(ctx, since, until)
	if err != nil {
		return advise.Log{}, 0, err
	}
	end := "now"
	if !until.IsZero() {
		end = until.Format(slurm.SacctTimeLayout)
	}
	name := fmt.Sprintf("sacct -a from %s to %s", since.Format(slurm.SacctTimeLayout), end)
	if strings.TrimSpace(out) == "" { // sacct prints no header when nothing ran
		return advise.Log{Name: name, Skipped: map[string]int{}}, wallSec(since), nil
	}
	l, err := readSacct(strings.NewReader(out), name) // a window with nothing new learns nothing
	if err != nil {
		err = errors.New(err.Error()) // the cluster's answer, not the user's input, is bad: a runtime failure
	}
	return l, wallSec(since), err
}
