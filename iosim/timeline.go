package iosim

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/units"
)

// Segment is one job's use of the file system over [Start, End]: a
// transfer, or a wait for the I/O token (Token sharing: a blocked job, or
// a non-blocking checkpoint request pending while the job computes).
type Segment struct {
	Job   int     `json:"job"` // the job's number in the run (a restart is a new job)
	Class int     `json:"class"`
	Nodes int     `json:"nodes"`
	Kind  Kind    `json:"kind"`
	Start float64 `json:"start"` // s
	End   float64 `json:"end"`   // s
	Wait  bool    `json:"wait"`
	// Cut: the segment did not end normally — a failure aborted it, or
	// the run ended first.
	Cut bool `json:"cut"`
}

// Timeline is the file system's use during [From, To] of one run: every
// segment that overlaps the window, in the order they ended.
type Timeline struct {
	Strategy string    `json:"strategy"`
	From     float64   `json:"from"`
	To       float64   `json:"to"`
	Segments []Segment `json:"segments"`
}

// SimulateTimeline is SimulateContext recording the Timeline of [from,
// to]. The run is the same (the recorder only reads the simulation's
// state; its Run equals SimulateContext's). Recording costs O(1) per
// transfer and wait, plus the segments kept; a run without a recorder
// pays one nil test at each.
func SimulateTimeline(ctx context.Context, c *Config, st Strategy, opt Options, from, to float64) (Run, Timeline, error) {
	if !(from >= 0 && to > from) || math.IsInf(to, 0) {
		return Run{}, Timeline{}, fmt.Errorf("timeline window [%g, %g]: want 0 ≤ from < to, finite", from, to)
	}
	opt, err := withDrainEnd(ctx, c, st, opt)
	if err != nil {
		return Run{}, Timeline{}, err
	}
	s, err := newSimulator(c, st, opt)
	if err != nil {
		return Run{}, Timeline{}, err
	}
	s.rec = &Timeline{Strategy: st.Name, From: from, To: to}
	if err := s.run(ctx); err != nil {
		return Run{}, Timeline{}, err
	}
	r := s.result()
	return r, *s.rec, nil
}

// record keeps seg if it overlaps the window.
func (tl *Timeline) record(seg Segment) {
	if seg.End >= tl.From && seg.Start <= tl.To {
		tl.Segments = append(tl.Segments, seg)
	}
}

// laneOf is the job a segment is drawn for: j, or for a phantom that keeps
// a failed job's reservations (AuthorsModel.KeepReservations) that job.
func laneOf(j *job) int {
	if j.id < 0 {
		return -1 - j.id
	}
	return j.id
}

// recWait records p's wait for the token, ended now (cut: withdrawn by a
// failure or the job's end).
func (s *simulator) recWait(p pending, cut bool) {
	s.rec.record(Segment{Job: laneOf(p.j), Class: p.j.class, Nodes: p.j.q, Kind: p.kind, Start: p.since, End: s.sim.Now(), Wait: true, Cut: cut})
}

// recTransfer records tr, ended now (cut: aborted by a failure).
func (s *simulator) recTransfer(tr *transfer, cut bool) {
	j := tr.j
	s.rec.record(Segment{Job: laneOf(j), Class: j.class, Nodes: j.q, Kind: tr.kind, Start: tr.start, End: s.sim.Now(), Cut: cut})
}

// recOpen records the transfers and waits still open when the run ends.
func (s *simulator) recOpen() {
	for _, tr := range s.openShares() {
		s.recTransfer(tr, true)
	}
	if s.holder != nil {
		s.recTransfer(s.holder, true)
	}
	for _, p := range s.waiting {
		s.recWait(p, true)
	}
	for _, j := range s.running { // Unlimited sharing: transfers of their own
		if s.st.Sharing == Unlimited && j.state == sTransfer && j.tr != nil {
			s.recTransfer(j.tr, true)
		}
	}
}

// Timelines runs every strategy once with opt (its seed selects the job
// list and the failures: give the first trial's, TrialSeed(base, 0),
// to see a run of the report) and returns each one's Timeline of [from,
// to]. The window must end by Span − Skip, where the runs stop.
func Timelines(ctx context.Context, c *Config, sts []Strategy, opt Options, from, to float64) ([]Timeline, error) {
	o := opt.withDefaults()
	if to > o.Span-o.Skip {
		return nil, fmt.Errorf("timeline window [%s, %s] ends after the simulated time (%s)",
			units.FormatSeconds(from), units.FormatSeconds(to), units.FormatSeconds(o.Span-o.Skip))
	}
	if o.Jobs == nil {
		jobs, err := GenerateJobs(c, o.Span, o.Seed)
		if err != nil {
			return nil, err
		}
		o.Jobs = jobs
	}
	var out []Timeline
	for _, st := range sts {
		_, tl, err := SimulateTimeline(ctx, c, st, o, from, to)
		if err != nil {
			return nil, err
		}
		out = append(out, tl)
	}
	return out, nil
}

// ParseWindow reads a --timeline value: a length ("6h": the window's first
// 6 hours from start, the end of the skipped time) or "T0:T1", two times
// in the run in units.ParseSeconds' grammar ("10d:10.25d", "86400:93600").
// A value that reads whole as a duration (Slurm's "MM:SS" too) is a
// length; otherwise exactly one colon must split it into two durations.
// It returns 0 ≤ from < to, both finite.
func ParseWindow(spec string, start float64) (from, to float64, err error) {
	if l, err := units.ParseSeconds(spec); err == nil {
		if !(l > 0) {
			return 0, 0, fmt.Errorf("timeline %q: the length must be positive", spec)
		}
		return start, start + l, nil
	}
	found := 0
	for i := range len(spec) {
		if spec[i] != ':' {
			continue
		}
		a, errA := units.ParseSeconds(spec[:i])
		b, errB := units.ParseSeconds(spec[i+1:])
		if errA == nil && errB == nil {
			from, to = a, b
			found++
		}
	}
	switch {
	case found == 0:
		return 0, 0, fmt.Errorf("timeline %q: want a length (6h) or T0:T1 (10d:10.25d)", spec)
	case found > 1:
		return 0, 0, fmt.Errorf("timeline %q: ambiguous, give units (10d:10.25d)", spec)
	case !(from >= 0 && to > from) || math.IsInf(to, 0):
		return 0, 0, fmt.Errorf("timeline %q: want 0 ≤ T0 < T1", spec)
	}
	return from, to, nil
}
