package iosim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ckpt-hpc/ckpt/des"
	"github.com/ckpt-hpc/ckpt/registry"
)

// AuthorsModel switches on, one at a time, the ways in which the paper's
// own simulator (SMURFSorg/InterferingCheckpoints, the commit "Import
// version used for paper") behaves differently from the model of the
// paper's text, which SimulateContext follows by default. Every switch is off in
// the zero value. Line numbers are those of that commit.
type AuthorsModel struct {
	// SwappedLeastWaste: Least-Waste ranks the requests with the authors'
	// heuristic (arbiter.LeastWaste.Swapped; SimOrderedIOCoop::heuristic,
	// src/Simulation.C lines 510–538), whose two terms are swapped and
	// not multiplied by v.
	SwappedLeastWaste bool `json:"swapped_least_waste,omitempty"`
	// SkipLateCheckpoints: a non-blocking checkpoint request is dropped
	// when the token cannot be free before the job's work ends; the job
	// then computes to its end and writes its output without checkpointing
	// again. Ordered-NB (SimOrderedIOFCFS::start_ckpt, lines 413–439)
	// compares the end of the last queued transfer; Least-Waste
	// (SimOrderedIOCoop::start_ckpt, lines 647–676) the end of the current
	// transfer, and it also drops, at every grant, the pending checkpoints
	// of jobs whose work ends before the granted transfer does
	// (select_next_io_task, lines 584–607).
	SkipLateCheckpoints bool `json:"skip_late_checkpoints,omitempty"`
	// KeepReservations: under the FCFS token (Ordered, Ordered-NB) a
	// failed job's place in the file system's schedule is handled as the
	// authors' FCFS simulators handle it. Both fix a transfer's dates when
	// it is queued, and a failure only erases the failed job's entries of
	// io_tasks (Simulation::clear_app, src/Simulation.C lines 53–63):
	// nobody queued behind them moves up, so the transfer it held, or
	// waited for, still occupies the token for its full duration (a
	// phantom job, without nodes or booking, holds it). What follows a
	// failed slot at the end of the schedule differs:
	//   - Ordered-NB (SimOrderedIOFCFS::start_io and start_ckpt, lines
	//     353–378 and 396–447, the loops at 364 and 413) dates a new
	//     transfer after the last end entry that remains in io_tasks,
	//     searched from its end: failed slots at the end of the schedule
	//     are released, and a new request goes after the last transfer
	//     still queued (now, when there is none).
	//   - Ordered (SimOrderedIOBlockingFCFS::start_io and start_ckpt,
	//     lines 237–292) dates a new transfer from date_of_last_io, the
	//     planned end of the last transfer queued, which only that
	//     transfer's own end_io resets (lines 261–262). A failed slot at
	//     the end is therefore kept until its planned end D; a transfer
	//     requested at t > D with nothing queued is dated from D
	//     (start_date = date_of_last_io, lines 246–249), so it ends at
	//     D + its duration: the idle time since D is paid back. When that
	//     end is already past, their simulator steps back in time
	//     (Simulation::step, line 78, sets curdate to the task's date);
	//     here the transfer then ends at once.
	KeepReservations bool `json:"keep_reservations,omitempty"`
	// NarrowWork: a job's work is uniform in [0.9w, 1.1w] minus its input
	// and output times at the full bandwidth (App::clear, src/App.C lines
	// 60–61), instead of Section V's [0.8w, 1.2w].
	NarrowWork bool `json:"narrow_work,omitempty"`
	// NoRegularIO: jobs do no regular I/O during their run. The authors'
	// simulator reads each class's regular I/O (VPIC's 20 × memory on
	// Cielo, src/celio.C line 106) into AppClass::io_time and never uses
	// it (src/AppClass.C line 37; no task reads it).
	NoRegularIO bool `json:"no_regular_io,omitempty"`
	// Window, when positive, measures a window of this many seconds at a
	// uniformly random offset in [Skip, Span − Skip − Window] (drawn from
	// the seed), instead of the whole [Skip, Span − Skip]. The authors
	// measure 31 days (segment_size, src/celio.C line 84) at a random
	// offset of the run (StatTrace::getStat, src/Trace.C lines 209–220).
	Window float64 `json:"window,omitempty"`
	// RestartFromStop: a failed job's restart does the work that remained
	// at the job's last stop (the start of its last transfer or blocking
	// wait), not at its last committed checkpoint. The authors' restart
	// copies App::remaining_work (App::App(App*), src/App.C lines 267–293,
	// called from AppFailureTask::vstep, src/Task.C lines 64–77), which
	// only App::stop_working updates: for a job that fails while writing
	// a checkpoint that is the start of the unfinished checkpoint, for a
	// job that fails during its output it is 0, and the restart then ends
	// after its recovery read without writing its output
	// (IOEndTask::vstep, src/Task.C lines 169–181). The booking is
	// unchanged: the work since the last commit is Lost (Trace.C).
	RestartFromStop bool `json:"restart_from_stop,omitempty"`
	// StaleRates (Oblivious): a failed job's transfer leaves the file
	// system without the others' shares being recomputed; they keep their
	// slowed rates until the next transfer starts or ends. The authors'
	// SimSimpleInterference has no clear_app, and the base
	// Simulation::clear_app (src/Simulation.C lines 53–63) only erases
	// the failed job's entry: reschedule_end_ios (lines 101–128) runs in
	// start_remaining_io and end_io only.
	StaleRates bool `json:"stale_rates,omitempty"`
	// Drain: the authors' finite workload. The job list is drawn as
	// System::finalize does (src/System.C lines 110–196): classes picked
	// with probability ∝ share among the classes still under their share,
	// until the jobs' node-walltime (walltime ⌈1.1 × work⌉, App::clear,
	// src/App.C line 259, without checkpoints as in the baseline that
	// draws the list) reaches N × (1.2 × window + 24 h + 24.9 h)
	// (min_run, src/celio.C lines 82–86) and every class's share is
	// within 1 % (the list is drawn again when it exceeds twice that).
	// The run goes on until the last job ends at L, so the platform
	// drains; the measured window (Window, 31 days when 0) is at a random
	// offset in [L·24h/min_run, L·(min_run − 24.9h)/min_run]
	// (StatTrace::getStat, src/Trace.C lines 201–220, with isr and ier of
	// src/celio.C lines 87–88); a run that has not drained by 20 × min_run
	// stops there, and L is that time (celio.C's "converged = false").
	// Span and Skip are then not used.
	Drain bool `json:"drain,omitempty"`
	// StaleOutput: a job's final output is the size App::remaining_io
	// last held (src/Task.C): IOStartTask::vstep sets it to the output
	// only when remaining_work is already 0, which it is only after a
	// checkpoint (CkptEndTask::vstep, lines 144–150). A job whose last
	// computation follows its input or recovery read writes nothing
	// (IOEndTask::vstep, lines 183–189, after end_io zeroed
	// remaining_io); one whose checkpoint request was dropped
	// (SkipLateCheckpoints) writes a checkpoint's size under Least-Waste
	// (SimOrderedIOCoop::start_ckpt and select_next_io_task set
	// remaining_io to the checkpoint's) and nothing under Ordered-NB
	// (SimOrderedIOFCFS::start_ckpt: "app->remaining_io = 0").
	StaleOutput bool `json:"stale_output,omitempty"`
	// InheritedCheckpointDate: Least-Waste's d for a waiting checkpoint
	// counts from the job's last committed checkpoint of any run, or from
	// the start of its current run when it has none
	// (SimOrderedIOCoop::heuristic, src/Simulation.C lines 513–521:
	// date − last_succesfull_ckpt, else date − start_date; a restart
	// inherits last_succesfull_ckpt, App::App(App*), src/App.C line 272),
	// instead of from the end of its last checkpoint or read in this run.
	InheritedCheckpointDate bool `json:"inherited_checkpoint_date,omitempty"`
	// IntegerRisk: Least-Waste ranks with the authors' heuristic as their
	// code computes it (implies SwappedLeastWaste; see
	// arbiter.LeastWaste.IntegerRisk): the risk coefficient of a waiting
	// input, output or recovery read is an integer quotient, ⌊q²/μ_ms⌋
	// (SimOrderedIOCoop::heuristic, src/Simulation.C line 533), 0 on every
	// platform of the paper, and ties,
	// such as every candidate when no checkpoint waits, go to the job
	// earliest in the list.
	IntegerRisk bool `json:"integer_risk,omitempty"`
}

// AuthorsWindow is the authors' measured interval: 31 days.
const AuthorsWindow = 31 * Day

// AllAuthors is every switch of AuthorsModel on, with the authors' 31-day
// window.
func AllAuthors() AuthorsModel {
	return AuthorsModel{SwappedLeastWaste: true, SkipLateCheckpoints: true, KeepReservations: true,
		NarrowWork: true, NoRegularIO: true, Window: AuthorsWindow,
		RestartFromStop: true, StaleRates: true, Drain: true, StaleOutput: true, InheritedCheckpointDate: true,
		IntegerRisk: true}
}

// streamWindow is the des.Stream kind of the window's offset.
const streamWindow = 3

// check refuses a window that does not fit in the span.
func (m AuthorsModel) check(opt Options) error {
	if (m.SkipLateCheckpoints || m.KeepReservations) && opt.Remote != nil {
		return fmt.Errorf("the authors' queue switches need the local arbiter, not a remote one")
	}
	if m.Drain {
		if opt.Remote != nil {
			return fmt.Errorf("the authors' drain runs a simulation twice and needs the local arbiter, not a remote one")
		}
		if m.Window < 0 || math.IsNaN(m.Window) || math.IsInf(m.Window, 0) {
			return fmt.Errorf("authors' window %gs must be positive", m.Window)
		}
		return nil
	}
	if m.Window != 0 && (!(m.Window > 0) || m.Window > opt.Span-2*opt.Skip) {
		return fmt.Errorf("authors' window %gs must be positive and fit in the span minus the skipped time (%gs)", m.Window, opt.Span-2*opt.Skip)
	}
	return nil
}

// window is the measured interval [w0, w1] of a run with options opt.
func (m AuthorsModel) window(opt Options) (w0, w1 float64) {
	if m.Drain {
		return m.drainWindow(opt)
	}
	if m.Window == 0 {
		return opt.Skip, opt.Span - opt.Skip
	}
	u := des.Stream(opt.Seed, streamWindow).Float64()
	w0 = opt.Skip + u*(opt.Span-2*opt.Skip-m.Window)
	return w0, w0 + m.Window
}

// strategy is st with the authors' Least-Waste heuristic when
// SwappedLeastWaste or IntegerRisk is on.
func (m AuthorsModel) strategy(st Strategy) Strategy {
	if lw, ok := st.Arbiter.(LeastWaste); ok && (m.SwappedLeastWaste || m.IntegerRisk) {
		lw.Swapped = true
		lw.IntegerRisk = m.IntegerRisk
		st.Arbiter = lw
	}
	return st
}

// config is c without regular I/O when NoRegularIO is on (a copy), else c.
func (m AuthorsModel) config(c *Config) *Config {
	if !m.NoRegularIO {
		return c
	}
	d := *c
	d.Classes = append([]Class(nil), c.Classes...)
	for k := range d.Classes {
		d.Classes[k].RegularIO = 0
	}
	return &d
}

// generateJobs is the job list of a run: GenerateJobs, or the authors'
// narrower work when NarrowWork is on.
func generateJobs(c *Config, opt Options) ([]Job, error) {
	if opt.Authors.Drain {
		return generateJobsAuthors(c, opt)
	}
	if !opt.Authors.NarrowWork {
		return GenerateJobs(c, opt.Span, opt.Seed)
	}
	return generateJobsSpread(c, opt.Span, opt.Seed, 0.9, 0.2, true)
}

// fcfsToken reports whether s runs the authors' FCFS simulators (a token
// granted in arrival order).
func (s *simulator) fcfsToken() bool {
	_, ok := s.st.Arbiter.(FCFS)
	return s.st.Sharing == Token && ok && s.opt.Remote == nil
}

// workEnd is when j, computing now, reaches the end of its work.
func (s *simulator) workEnd(j *job) float64 {
	now := s.sim.Now()
	return now + j.work - j.progress - (now - j.since)
}

// holderEnd is when the current token holder's transfer ends (now if
// the token is free).
func (s *simulator) holderEnd() float64 {
	if s.holder == nil {
		return s.sim.Now()
	}
	return s.holder.last + math.Max(s.holder.remaining, 0)/s.holder.rate
}

// skipCheckpoint applies SkipLateCheckpoints to j, whose checkpoint is
// due: it reports whether the request is dropped, and then plans j's run
// to the end of its work without further checkpoints.
func (s *simulator) skipCheckpoint(j *job) bool {
	if !s.opt.Authors.SkipLateCheckpoints || s.st.Sharing != Token || !s.st.NonBlocking || s.opt.Remote != nil {
		return false
	}
	s.releaseTail()
	free := s.holderEnd()
	if s.fcfsToken() {
		for _, p := range s.waiting {
			free += p.bytes / s.beta
		}
	}
	if free < s.workEnd(j) {
		return false
	}
	j.skipped = true
	j.ckptDue = math.Inf(1)
	s.planStop(j)
	return true
}

// dropLateCheckpoints is Least-Waste's cancellation at a grant (see
// SkipLateCheckpoints): the pending checkpoints of jobs whose work ends
// before the granted transfer, of d seconds, are dropped.
func (s *simulator) dropLateCheckpoints(d float64) {
	if !s.opt.Authors.SkipLateCheckpoints || !s.st.NonBlocking || s.fcfsToken() || s.opt.Remote != nil {
		return
	}
	end := s.sim.Now() + d
	for i := 0; i < len(s.waiting); {
		p := s.waiting[i]
		if p.kind != Checkpoint || !p.j.ckptPending || s.workEnd(p.j) >= end {
			i++
			continue
		}
		s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
		j := p.j
		j.waits--
		s.flush(j)
		s.sim.Cancel(j.ev)
		j.ckptPending = false
		j.skipped = true
		j.ckptDue = math.Inf(1)
		s.planStop(j)
	}
}

// outputBytes is j's final output without its regular I/O: its class's,
// or under StaleOutput what the authors' code writes.
func (s *simulator) outputBytes(j *job) float64 {
	if !s.opt.Authors.StaleOutput {
		return j.outBytes
	}
	switch {
	case j.skipped && !s.fcfsToken():
		return j.ckptBytes
	case j.skipped, j.afterRead:
		return 0
	}
	return j.outBytes
}

// keepReservations applies KeepReservations to j, which fails: its
// transfer and its queued requests are handed to a phantom job (no nodes,
// no booking) that keeps them in the token's schedule. The phantom's id is
// −1 − j's (negative: a phantom; the timeline draws it in j's lane).
// Under Ordered-NB the phantoms at the end of the schedule are then
// released (see releaseTail).
func (s *simulator) keepReservations(j *job) {
	if !s.opt.Authors.KeepReservations || !s.fcfsToken() {
		return
	}
	ph := &job{id: -1 - j.id, class: j.class, slot: -1, runIdx: -1, state: sDone, since: s.sim.Now()}
	if tr := j.tr; j.state == sTransfer && tr != nil && tr == s.holder {
		tr.j = ph
		ph.tr, ph.state, ph.kind = tr, sTransfer, tr.kind
		j.tr = nil
	}
	for i := range s.waiting {
		if s.waiting[i].j == j {
			s.waiting[i].j = ph
		}
	}
	s.releaseTail()
}

// releaseTail is Ordered-NB's search for the last remaining transfer
// (see KeepReservations): the phantoms' requests at the end of the
// waiting list are dropped and, when none remains, a phantom holding the
// token gives it up now. It does nothing under Ordered, whose
// date_of_last_io keeps a failed slot at the end.
func (s *simulator) releaseTail() {
	if !s.opt.Authors.KeepReservations || !s.fcfsToken() || !s.st.NonBlocking {
		return
	}
	for n := len(s.waiting); n > 0 && s.waiting[n-1].j.id < 0; n = len(s.waiting) {
		if s.rec != nil {
			s.recWait(s.waiting[n-1], true)
		}
		s.waiting[n-1].j.waits--
		s.waiting = s.waiting[:n-1]
	}
	if tr := s.holder; len(s.waiting) == 0 && tr != nil && tr.j.id < 0 {
		s.removeTransfer(tr, false)
	}
}

// phantomEnd ends a phantom's transfer (see keepReservations): it frees
// the token and reports true; false for a real job's transfer. Under
// Ordered, a phantom that ends with nothing queued leaves its end as the
// date the next transfer is counted from (see paidBack).
func (s *simulator) phantomEnd(tr *transfer) bool {
	if tr.j.id >= 0 {
		return false
	}
	s.removeTransfer(tr, true)
	if len(s.waiting) == 0 && !s.st.NonBlocking {
		s.lastIO, s.lastIOSet = s.sim.Now(), true
	}
	s.grant()
	return true
}

// paidBack is, under Ordered with KeepReservations, what a transfer of
// the given bytes granted now on an idle token has left to transfer: its
// duration counts from the end of the failed slot that ended the
// schedule (date_of_last_io, see KeepReservations), at least 0. It
// forgets that date: the transfer is now the last queued.
func (s *simulator) paidBack(bytes float64) float64 {
	if !s.lastIOSet {
		return bytes
	}
	s.lastIOSet = false
	return math.Max(0, bytes-(s.sim.Now()-s.lastIO)*s.beta)
}

// AuthorsSwitches names AuthorsModel's switches for the command line
// (`ckpt iosim run --authors-model LIST`); "all" is AllAuthors.
var AuthorsSwitches = registry.New("authors' model switch",
	registry.Entry[func(*AuthorsModel)]{Name: "swapped-least-waste", Help: "Least-Waste with the authors' swapped terms",
		Value: func(m *AuthorsModel) { m.SwappedLeastWaste = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "skip-late-checkpoints", Help: "drop a checkpoint the token cannot serve before the job's work ends",
		Value: func(m *AuthorsModel) { m.SkipLateCheckpoints = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "keep-reservations", Help: "a failed job keeps its place in the FCFS I/O schedule",
		Value: func(m *AuthorsModel) { m.KeepReservations = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "narrow-work", Help: "work uniform in [0.9w, 1.1w] minus input and output times",
		Value: func(m *AuthorsModel) { m.NarrowWork = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "no-regular-io", Help: "no regular I/O during runs",
		Value: func(m *AuthorsModel) { m.NoRegularIO = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "window", Help: "a random 31-day measurement window",
		Value: func(m *AuthorsModel) { m.Window = AuthorsWindow }},
	registry.Entry[func(*AuthorsModel)]{Name: "restart-from-stop", Help: "a failed job restarts from its last stop (an unfinished checkpoint's start)",
		Value: func(m *AuthorsModel) { m.RestartFromStop = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "stale-rates", Help: "Oblivious: a failure leaves the other transfers' rates until the next start or end",
		Value: func(m *AuthorsModel) { m.StaleRates = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "drain", Help: "the authors' finite job list, run until it drains, window relative to its end",
		Value: func(m *AuthorsModel) { m.Drain = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "stale-output", Help: "the final output is the size their code last held: none after a read, a checkpoint after a dropped Least-Waste request",
		Value: func(m *AuthorsModel) { m.StaleOutput = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "inherited-checkpoint-date", Help: "Least-Waste's d counts from the last commit of any run, else the run's start",
		Value: func(m *AuthorsModel) { m.InheritedCheckpointDate = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "integer-risk", Help: "Least-Waste as their code computes it: an integer risk term for waiting I/O (0 on the paper's platforms), ties to the job earliest in the list",
		Value: func(m *AuthorsModel) { m.IntegerRisk = true }},
	registry.Entry[func(*AuthorsModel)]{Name: "all", Help: "every switch",
		Value: func(m *AuthorsModel) { *m = AllAuthors() }},
)

// ParseAuthorsModel reads a comma-separated list of AuthorsSwitches names
// ("" or "none": the paper's model, every switch off).
func ParseAuthorsModel(list string) (AuthorsModel, error) {
	var m AuthorsModel
	if list == "" || list == "none" {
		return m, nil
	}
	sets, _, err := AuthorsSwitches.LookupList(list)
	if err != nil {
		return m, err
	}
	for _, set := range sets {
		set(&m)
	}
	return m, nil
}

// String names the switches that are on, as ParseAuthorsModel reads them
// ("none" when every switch is off; the window in days when not 31).
func (m AuthorsModel) String() string {
	var on []string
	for _, sw := range []struct {
		name string
		on   bool
	}{{"swapped-least-waste", m.SwappedLeastWaste}, {"skip-late-checkpoints", m.SkipLateCheckpoints},
		{"keep-reservations", m.KeepReservations}, {"narrow-work", m.NarrowWork}, {"no-regular-io", m.NoRegularIO},
		{"restart-from-stop", m.RestartFromStop}, {"stale-rates", m.StaleRates}, {"drain", m.Drain},
		{"stale-output", m.StaleOutput}, {"inherited-checkpoint-date", m.InheritedCheckpointDate},
		{"integer-risk", m.IntegerRisk}} {
		if sw.on {
			on = append(on, sw.name)
		}
	}
	switch {
	case m.Window == AuthorsWindow:
		on = append(on, "window")
	case m.Window != 0:
		on = append(on, fmt.Sprintf("window of %gd", m.Window/Day))
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

// removeShareStale removes tr, whose job failed, from the active
// transfers without resharing the others (StaleRates): they keep their
// rates and completion times; the earliest is queued again if it was tr's.
func (s *simulator) removeShareStale(tr *transfer) {
	if s.virtual {
		s.vRemoveStale(tr)
		return
	}
	i := slices.Index(s.active, tr)
	s.active = slices.Delete(s.active, i, i+1)
	s.sumQ -= tr.j.q
	if s.naiveShare {
		return // each transfer keeps its own completion event
	}
	if len(s.active) == 0 {
		s.sim.Cancel(s.shareEv)
		return
	}
	if s.shareNext != tr {
		return
	}
	next := s.active[0]
	for _, o := range s.active[1:] {
		if o.end < next.end || (o.end == next.end && o.seq < next.seq) {
			next = o
		}
	}
	s.shareNext = next
	s.sim.ScheduleSeq(s.shareEv, next.end, next.seq)
}

// bookToLastReshare books, under AuthorsAccounting and the virtual clock,
// the transfer of j (failing now) as a transfer up to the last reshare,
// the rest being the dropped segment: the exact way (share.go) flushes
// every active transfer at every start and end, so a failure drops only
// what follows the last one, and the virtual clock keeps that booking
// (which part of an interrupted transfer is Lost rather than Idle thus
// depends on when other transfers started or ended, as it always did).
func (s *simulator) bookToLastReshare(j *job) {
	t := s.vAt // the last reshare: the clock advances at starts and ends only
	if !s.virtual || j.state != sTransfer || s.st.Sharing != Proportional || !(t > j.since) {
		return
	}
	c := float64(j.q) * s.clip(j.since, t)
	s.classNS[j.class] += c
	s.bookAuthors(j, c)
	j.since = t
}

// lastCheckpoint is the date Least-Waste counts a waiting checkpoint's d
// from: the end of j's last checkpoint or read in this run, or under
// InheritedCheckpointDate its last commit of any run, else its run's start.
func (s *simulator) lastCheckpoint(j *job) float64 {
	switch {
	case !s.opt.Authors.InheritedCheckpointDate:
		return j.lastCkpt
	case j.hasCkpt:
		return j.commitDate
	}
	return j.startDate
}
