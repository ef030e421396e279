package slurm

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/slurm"
)

// Summary is one cell's measures: on the cluster (the time held, and with
// the queue: submission to completion) and in ckpt's simulation of the
// same jobs.
type Summary struct {
	Cell                     string
	Experiment, App, Strat   string
	Variation                float64
	Run                      int
	Jobs, Done, Reservations int
	// Utilization Σ walltime / Σ held, Stretch mean held / walltime.
	Utilization, Stretch float64
	// QueueUtilization and QueueStretch use the response time (from
	// submission to the end of the last reservation) in place of held.
	QueueUtilization, QueueStretch float64
	// Wait is the mean time a job waited in the queue (response − held),
	// in real seconds; WaitUtilization and WaitStretch count it at its
	// real length, as on a machine that runs the jobs at their paper
	// length with the same scheduler latency.
	Wait                         float64
	WaitUtilization, WaitStretch float64
	SimUtilization, SimStretch   float64
	// ReservedUtilization and ReservedStretch use the time reserved (the
	// reservations that ran, in full: the cost the plans minimise) on the
	// cluster; SimReserved… in simulation.
	ReservedUtilization, ReservedStretch       float64
	SimReservedUtilization, SimReservedStretch float64
	// AllocUtilization and AllocStretch use the time Slurm allocated the
	// reservations (sacct Start to End) in place of held; Lag is the mean
	// per reservation of allocated − held, in real seconds: the launch of
	// the job script after Slurm started the job, and its end.
	AllocUtilization, AllocStretch, Lag float64
	Timeouts                            int
	Startup, Finish                     float64 // mean per reservation (paper seconds)
	Stopped                             int
}

// Summarize groups results by cell (Table 4: by run and strategy, over
// the three applications).
func Summarize(rs []Result) []Summary {
	groups := map[string][]Result{}
	var keys []string
	for _, r := range rs {
		c := r.Cell()
		if _, ok := groups[c]; !ok {
			keys = append(keys, c)
		}
		groups[c] = append(groups[c], r)
	}
	sort.Strings(keys)
	var out []Summary
	for _, c := range keys {
		g := groups[c]
		s := Summary{Cell: c, Experiment: g[0].Experiment, App: g[0].App.Name, Strat: g[0].Strategy, Variation: g[0].Variation, Run: g[0].Run, Jobs: len(g)}
		if s.Experiment == Table4 {
			s.App = "mix"
		}
		var ts, hs, qs, ws, ss, rs, srs, as []float64
		lagN, lag := 0, 0.0
		for _, r := range g {
			s.Reservations += r.Reservations
			s.Timeouts += r.Timeouts
			s.Stopped += r.Stopped
			s.Startup += r.Startup / float64(len(g))
			s.Finish += r.Finish / float64(len(g))
			if !r.Done {
				continue
			}
			s.Done++
			ts, hs, qs, ss = append(ts, r.Walltime), append(hs, r.Held), append(qs, r.Response), append(ss, r.SimHeld)
			w := (r.Response - r.Held) / r.Scale
			ws = append(ws, r.Held+w)
			rs, srs = append(rs, Reserved(r.Job, r.Reservations)), append(srs, Reserved(r.Job, SimReservations(r.Job)))
			if !math.IsNaN(r.Alloc) && r.Alloc > 0 {
				as = append(as, r.Alloc)
				lag += (r.Alloc - r.Held) / r.Scale
				lagN += r.Reservations
			}
			s.Wait += w
		}
		if s.Done > 0 {
			s.Utilization, s.Stretch = Measure(ts, hs)
			s.QueueUtilization, s.QueueStretch = Measure(ts, qs)
			s.WaitUtilization, s.WaitStretch = Measure(ts, ws)
			s.ReservedUtilization, s.ReservedStretch = Measure(ts, rs)
			s.AllocUtilization, s.AllocStretch, s.Lag = math.NaN(), math.NaN(), math.NaN()
			if len(as) == len(ts) {
				s.AllocUtilization, s.AllocStretch = Measure(ts, as)
				s.Lag = lag / float64(lagN)
			}
			s.SimReservedUtilization, s.SimReservedStretch = Measure(ts, srs)
			s.Wait /= float64(s.Done)
			s.SimUtilization, s.SimStretch = Measure(ts, ss)
		} else {
			s.Utilization, s.Stretch, s.QueueUtilization, s.QueueStretch, s.SimUtilization, s.SimStretch = nan6()
			s.Wait, s.WaitUtilization, s.WaitStretch, s.ReservedUtilization, s.ReservedStretch, s.SimReservedUtilization = nan6()
			s.SimReservedStretch, s.AllocUtilization, s.AllocStretch, s.Lag = s.Wait, s.Wait, s.Wait, s.Wait
		}
		out = append(out, s)
	}
	return out
}

func nan6() (a, b, c, d, e, f float64) {
	n := math.NaN()
	return n, n, n, n, n, n
}

// PaperTable4 is Table 4: per run, DYN-PROG-COUNT's utilisation (%) and
// stretch, then HPC's.
var PaperTable4 = [][4]float64{
	{67, 2.04, 55, 2.34}, {73, 1.72, 62, 2.04}, {62, 2.08, 55, 2.46}, {71, 1.88, 64, 2.1}, {63, 2.19, 56, 2.41},
	{71, 1.74, 64, 1.96}, {75, 1.51, 68, 1.69}, {68, 2.09, 65, 2.19}, {61, 2.24, 60, 2.32}, {77, 1.96, 75, 1.99},
}

// Comparisons puts the paper beside the cluster's numbers and the
// simulation's. Fig. 8 and 9 give no numbers in the text (NaN): their
// rows carry the paper's claim in the note.
func Comparisons(ss []Summary) []repro.Comparison {
	var out []repro.Comparison
	nan := math.NaN()
	for _, s := range ss {
		if s.Experiment == Table4 {
			continue
		}
		claim := "paper: DYN-PROG-COUNT best on both, HPC worst (figure, no numbers in the text)"
		if s.Experiment == Fig9 {
			claim = "paper: DYN-PROG-COUNT robust up to 15-20% (figure, no numbers in the text)"
		}
		note := fmt.Sprintf("simulation %.3f; with queue %.3f (real-length waits %.3f); reserved %.3f (simulation %.3f); %s", s.SimUtilization, s.QueueUtilization, s.WaitUtilization, s.ReservedUtilization, s.SimReservedUtilization, claim)
		out = append(out, repro.Comparison{Experiment: s.Experiment, Quantity: s.Cell + " utilisation", Paper: nan, Ours: s.Utilization, Note: note})
		note = fmt.Sprintf("simulation %.3f; with queue %.3f (real-length waits %.3f); reserved %.3f (simulation %.3f)", s.SimStretch, s.QueueStretch, s.WaitStretch, s.ReservedStretch, s.SimReservedStretch)
		out = append(out, repro.Comparison{Experiment: s.Experiment, Quantity: s.Cell + " stretch", Paper: nan, Ours: s.Stretch, Note: note})
	}
	return append(out, table4Comparisons(ss)...)
}

// table4Comparisons compares the mean over runs of Table 4.
func table4Comparisons(ss []Summary) []repro.Comparison {
	var paper [4]float64
	for _, r := range PaperTable4 {
		for i := range paper {
			paper[i] += r[i] / float64(len(PaperTable4))
		}
	}
	type acc struct{ u, st, qu, qst, su, sst, wu, wst float64 }
	by := map[string]*acc{DynProgCount: {}, HPC: {}}
	runs := map[string]int{}
	for _, s := range ss {
		if s.Experiment != Table4 || by[s.Strat] == nil || s.Done == 0 {
			continue
		}
		a := by[s.Strat]
		a.u, a.st, a.qu, a.qst, a.su, a.sst = a.u+s.Utilization, a.st+s.Stretch, a.qu+s.QueueUtilization, a.qst+s.QueueStretch, a.su+s.SimUtilization, a.sst+s.SimStretch
		a.wu, a.wst = a.wu+s.WaitUtilization, a.wst+s.WaitStretch
		runs[s.Strat]++
	}
	if runs[DynProgCount] == 0 || runs[HPC] == 0 {
		return nil
	}
	mean := func(name string) acc {
		a, n := *by[name], float64(runs[name])
		return acc{a.u / n, a.st / n, a.qu / n, a.qst / n, a.su / n, a.sst / n, a.wu / n, a.wst / n}
	}
	d, h := mean(DynProgCount), mean(HPC)
	row := func(q string, p, ours, sim, queue, wait float64) repro.Comparison {
		return repro.Comparison{Experiment: Table4, Quantity: q, Paper: p, Ours: ours,
			Note: fmt.Sprintf("simulation %.3g; with queue %.3g (real-length waits %.3g); mean of %d runs", sim, queue, wait, runs[DynProgCount])}
	}
	return []repro.Comparison{
		row("mix DYN-PROG-COUNT utilisation (%)", paper[0], 100*d.u, 100*d.su, 100*d.qu, 100*d.wu),
		row("mix DYN-PROG-COUNT stretch", paper[1], d.st, d.sst, d.qst, d.wst),
		row("mix HPC utilisation (%)", paper[2], 100*h.u, 100*h.su, 100*h.qu, 100*h.wu),
		row("mix HPC stretch", paper[3], h.st, h.sst, h.qst, h.wst),
		row("mix utilisation improvement (%)", 100*(paper[0]/paper[2]-1), 100*(d.u/h.u-1), 100*(d.su/h.su-1), 100*(d.qu/h.qu-1), 100*(d.wu/h.wu-1)),
		row("mix stretch improvement (%)", 100*(paper[3]/paper[1]-1), 100*(h.st/d.st-1), 100*(h.sst/d.sst-1), 100*(h.qst/d.qst-1), 100*(h.wst/d.wst-1)),
	}
}

// Acct is what sacct says of one reservation.
type Acct struct {
	Start, End time.Time
	State      string
}

// Accounting reads the accounting of the jobs from cl (one sacct per 200
// IDs): each job's start, end and state (its first word: "CANCELLED by
// 1000" is CANCELLED).
func Accounting(ctx context.Context, cl slurm.Cluster, ids []string) (map[string]Acct, error) {
	out := map[string]Acct{}
	for i := 0; i < len(ids); i += 200 {
		recs, err := cl.Accounting(ctx, ids[i:min(i+200, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out[r.JobID] = Acct{Start: r.Start, End: r.End, State: strings.Fields(r.State + " ")[0]}
		}
	}
	return out, nil
}

// attach adds to each result what Slurm accounted: the time its
// reservations were allocated (Start to End, whole seconds, × the scale)
// and how many ended by Slurm's own time limit.
func attach(rs []Result, acct map[string]Acct) {
	for i := range rs {
		r := &rs[i]
		r.Alloc = 0
		for _, id := range r.JobIDs {
			a, ok := acct[id]
			if !ok || a.Start.IsZero() || a.End.IsZero() {
				r.Alloc = math.NaN()
				continue
			}
			r.Alloc += a.End.Sub(a.Start).Seconds() * r.Scale
			if a.State == "TIMEOUT" {
				r.Timeouts++
			}
		}
	}
}

// printSummaries writes the cells as an aligned table.
func printSummaries(w io.Writer, ss []Summary) {
	fmt.Fprintf(w, "%-34s %5s %5s | %6s %6s | %6s %6s | %6s %6s %6s | %6s %6s | %6s %6s %6s %6s | %6s %6s %6s %4s %4s\n", "cell", "jobs", "done", "util", "stretch", "sim.u", "sim.st", "q.util", "q.str", "wait", "w.util", "w.str", "r.util", "r.str", "sr.u", "sr.st", "a.util", "a.str", "lag", "tmo", "stop")
	for _, s := range ss {
		fmt.Fprintf(w, "%-34s %5d %5d | %6.3f %6.3f | %6.3f %6.3f | %6.3f %6.3f %6.1f | %6.3f %6.3f | %6.3f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.1f %4d %4d\n", s.Cell, s.Jobs, s.Done,
			s.Utilization, s.Stretch, s.SimUtilization, s.SimStretch, s.QueueUtilization, s.QueueStretch, s.Wait, s.WaitUtilization, s.WaitStretch,
			s.ReservedUtilization, s.ReservedStretch, s.SimReservedUtilization, s.SimReservedStretch, s.AllocUtilization, s.AllocStretch, s.Lag, s.Timeouts, s.Stopped)
	}
}

// sortedStates renders a state count.
func sortedStates(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	return b.String()
}
