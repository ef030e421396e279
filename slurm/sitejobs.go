package slurm

import (
	"context"
	"fmt"
	"time"
)

// SiteSacctFormat is the --format of every user's jobs that the site's
// walltime advisor learns from (package advise reads it): what a workload
// is told by (user, account, job name, partition, nodes), its times, its
// limit and ckpt's chain comment.
const SiteSacctFormat = "JobID,User,Account,JobName,Partition,NNodes,Submit,Start,End,Timelimit,ElapsedRaw,State,Comment"

// SacctTimeLayout is the form of the times sacct prints and its -S/-E
// options read (the cluster's local time).
const SacctTimeLayout = "2006-01-02T15:04:05"

// SiteAccounting is a cluster whose accounting lists every user's jobs of
// a window. It is apart from Cluster, which acts on one user's jobs; Exec
// is both.
type SiteAccounting interface {
	// SiteJobs returns the sacct --parsable2 output, with SiteSacctFormat's
	// columns and a header, of every user's jobs (allocations, not steps)
	// that were pending, running or ended between since and until. since
	// and until are wall-clock times in the cluster's time zone; a zero
	// until means now.
	SiteJobs(ctx context.Context, since, until time.Time) (string, error)
}

// SiteJobs runs sacct -a -X -P over the window: O(jobs of the window).
func (Exec) SiteJobs(ctx context.Context, since, until time.Time) (string, error) {
	end := "now"
	if !until.IsZero() {
		end = until.Format(SacctTimeLayout)
	}
	out, err := run(ctx, "sacct", "-a", "-X", "-P", "--format", SiteSacctFormat,
		"-S", since.Format(SacctTimeLayout), "-E", end)
	if err != nil {
		return "", fmt.Errorf("every user's jobs from %s to %s: %w", since.Format(SacctTimeLayout), end, err)
	}
	return out, nil
}
