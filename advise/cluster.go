package advise

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

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

// clusterLog reads every user's jobs of the window from the cluster's
// accounting: from r.Since (default: the model's last submit, at which an
// existing model stopped, else DefaultSince ago) to r.Until (default now).
// O(jobs of the window).
func clusterLog(ctx context.Context, r LearnRequest, lastSeen float64, extended bool) (Log, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	since := now.Add(-DefaultSince)
	if extended {
		since = wallClock(lastSeen, now.Location())
	}
	var until time.Time
	var err error
	if r.Since != "" {
		if since, err = ParseWhen(r.Since, now); err != nil {
			return Log{}, usage.Fieldf("since", "%v", err)
		}
	}
	if r.Until != "" {
		if until, err = ParseWhen(r.Until, now); err != nil {
			return Log{}, usage.Fieldf("until", "%v", err)
		}
		if !until.After(since) {
			return Log{}, usage.Fieldf("until", "%s is not after the window's start %s", r.Until, since.Format(slurm.SacctTimeLayout))
		}
	}
	cl := r.Cluster
	if cl == nil {
		cl = slurm.Exec{}
	}
	out, err := cl.SiteJobs(ctx, since, until)
	if err != nil {
		return Log{}, err
	}
	end := "now"
	if !until.IsZero() {
		end = until.Format(slurm.SacctTimeLayout)
	}
	name := fmt.Sprintf("sacct -a from %s to %s", since.Format(slurm.SacctTimeLayout), end)
	if strings.TrimSpace(out) == "" { // sacct prints no header when nothing ran
		return Log{Name: name, Skipped: map[string]int{}}, nil
	}
	return readSacct(strings.NewReader(out), name) // a window with nothing new learns nothing

}
