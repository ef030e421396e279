package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/slurm"
	"github.com/ckpt-hpc/ckpt/usage"
)

// fakeCluster answers sinfo and sacct from fields; any other command
// panics (the embedded nil interface): nothing else may be asked.
type fakeCluster struct {
	slurm.Cluster
	parts []slurm.Partition
	cpus  int
	recs  []slurm.Record
	asked [][]string
}

func (f *fakeCluster) Limits(context.Context) ([]slurm.Partition, error) { return f.parts, nil }
func (f *fakeCluster) CPUs(context.Context) (int, error)                 { return f.cpus, nil }
func (f *fakeCluster) Accounting(_ context.Context, ids []string) ([]slurm.Record, error) {
	f.asked = append(f.asked, ids)
	var out []slurm.Record
	for _, r := range f.recs {
		for _, id := range ids {
			if r.JobID == id {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// Execute checks every chain against the partition's limits, at the time
// sbatch gets (scaled), before it submits anything.
func TestExecuteChecksLimitsFirst(t *testing.T) {
	d := Design{Jobs: 1, Apps: Apps()[:1], Seed: 11}
	jobs, err := d.Make(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cl := &fakeCluster{parts: []slurm.Partition{{Name: "debug", Default: true, MaxTime: 60}}}
	cfg := Config{Dir: t.TempDir(), Ckpt: "/nonexistent/ckpt", Scale: 1, Slots: 1, Poll: time.Millisecond, Cluster: cl}
	err = Execute(context.Background(), cfg, jobs, func(Result) error { t.Error("a job ran"); return nil })
	if err == nil || !strings.Contains(err.Error(), "partition debug allows at most 00:01:00") {
		t.Fatalf("err %v", err)
	}
	if fs, _ := os.ReadDir(filepath.Join(cfg.Dir, "chains")); len(fs) != 0 {
		t.Errorf("something was written before the check: %v", fs)
	}
	if n, err := Available(context.Background(), &fakeCluster{cpus: 8}); n != 8 || err != nil {
		t.Errorf("Available: %d, %v", n, err)
	}
}

// Accounting asks the cluster in batches of 200 and keeps the first word
// of the state.
func TestAccountingThroughTheCluster(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	cl := &fakeCluster{recs: []slurm.Record{{JobID: "7", State: "CANCELLED by 1000", Start: start, End: start.Add(time.Minute)}}}
	ids := make([]string, 401)
	for i := range ids {
		ids[i] = "x"
	}
	ids[400] = "7"
	acct, err := Accounting(context.Background(), cl, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.asked) != 3 || len(cl.asked[0]) != 200 || len(cl.asked[2]) != 1 {
		t.Errorf("batches %d", len(cl.asked))
	}
	if a := acct["7"]; len(acct) != 1 || a.State != "CANCELLED" || a.End.Sub(a.Start) != time.Minute {
		t.Errorf("%+v", acct)
	}
}

// DesignFor and Config.Complete name the field out of range.
func TestDesignForAndComplete(t *testing.T) {
	for _, c := range []struct {
		jobs, mix int
		field     string
	}{{0, 2, "Jobs"}, {5, -1, "MixRuns"}} {
		var ue *usage.Error
		if _, err := DesignFor(1, false, c.jobs, c.mix); !errors.As(err, &ue) || ue.Field != c.field {
			t.Errorf("jobs %d, mix %d: %v", c.jobs, c.mix, err)
		}
	}
	if d, err := DesignFor(1, true, 30, 2); err != nil || d.Jobs != QuickDesign(1).Jobs {
		t.Errorf("quick: %+v, %v", d, err)
	}
	cfg := Config{Slots: 2}
	if err := cfg.Complete(true, 4); err != nil || cfg.Scale != QuickScale {
		t.Errorf("quick scale %v, %v", cfg.Scale, err)
	}
	for _, c := range []Config{{Slots: 5}, {Slots: 0}, {Slots: 1, Scale: 1e9}} {
		if err := c.Complete(false, 4); !usage.Is(err) {
			t.Errorf("%+v accepted: %v", c, err)
		}
	}
}

// settledAccounting reads sacct again until every job has ended in it (a
// job the runner recorded done may still be RUNNING there), and no longer
// than its wait; once the context is done it reads once, without waiting.
func TestSettledAccountingWaitsForTheEnds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	running := slurm.Record{JobID: "2", State: "RUNNING", Start: t0}
	f := &endingCluster{fakeCluster: fakeCluster{recs: []slurm.Record{{JobID: "1", State: "COMPLETED", Start: t0, End: t0.Add(time.Minute)}, running}},
		after: 2, ended: slurm.Record{JobID: "2", State: "COMPLETED", Start: t0, End: t0.Add(2 * time.Minute)}}
	acct, err := settledAccounting(context.Background(), f, []string{"1", "2"}, 20*time.Second)
	if err != nil || acct["2"].State != "COMPLETED" || len(f.asked) != 3 {
		t.Errorf("acct %v after %d reads, err %v", acct, len(f.asked), err)
	}
	g := &fakeCluster{recs: []slurm.Record{running}}
	start := time.Now()
	if acct, _ := settledAccounting(context.Background(), g, []string{"2"}, 1500*time.Millisecond); acct["2"].State != "RUNNING" || time.Since(start) > 10*time.Second {
		t.Errorf("bounded wait: %v after %v", acct, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g = &fakeCluster{recs: []slurm.Record{running}}
	if settledAccounting(ctx, g, []string{"2"}, time.Hour); len(g.asked) != 1 {
		t.Errorf("a cancelled context read sacct %d times", len(g.asked))
	}
}

// endingCluster's job 2 ends after `after` reads of sacct.
type endingCluster struct {
	fakeCluster
	after int
	ended slurm.Record
}

func (f *endingCluster) Accounting(ctx context.Context, ids []string) ([]slurm.Record, error) {
	if len(f.asked) == f.after {
		f.recs[1] = f.ended
	}
	return f.fakeCluster.Accounting(ctx, ids)
}
