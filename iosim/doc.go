// Package iosim simulates checkpointing jobs sharing one parallel file
// system, after Herault, Robert, Bouteiller, Arnold, Ferreira, Bosilca and
// Dongarra, "Optimal Cooperative Checkpointing for Shared High-Performance
// Computing Platforms" (APDCM 2018).
//
// # Entry points
//
// A Go program asks its questions as `ckpt iosim` does (app.go): RunTrials
// (RunRequest → RunReport: the Monte Carlo waste of each strategy),
// RunSweep (SweepRequest → SweepReport: Figs. 2 and 3), RunBound
// (BoundRequest → BoundReport: Theorem 1) and RunBandwidthFor
// (BandwidthForRequest → BandwidthForReport: Fig. 4). A request's Validate
// names the bad field in a usage error; a report is the JSON schema of the
// command's --json and has its WriteText (render.go) and, for RunReport,
// Plot and Page.
//
// # Model (Sections II and V)
//
// A Platform has N nodes, a per-node memory, an aggregate bandwidth β and a
// node MTBF μ_ind; each node fails at exponential times drawn from its own
// random stream (des.Stream(seed, 1, node)), and a job dies when one of its
// nodes fails. Application classes (Class) give nodes per job, work time w,
// input, output, checkpoint and regular-I/O volumes as fractions of the
// job's memory, and the class's share of node-time. GenerateJobs draws the
// job list of Section V (work uniform in [0.8w, 1.2w], shares within 1 %,
// at least WorkloadSlack × N × span of node-time). Jobs start first-fit in
// list order with a reservation for the first job that does not fit (EASY
// backfilling, Scheduler Reserve), re-planned at every job start, end and
// failure (the online re-planning of Section V), so that the classes run
// in their Table I proportions; Run.Busy and Run.ClassShares report the
// utilisation and the class mix. A failed job is re-queued at the head
// with the work left since its last committed checkpoint, reading that
// checkpoint (or its input if it has none) as a recovery read.
//
// Section II's "at least 98 % of the nodes enrolled at every instant"
// cannot be met exactly with Table I's job sizes: on Cielo ≥ 98 % needs a
// LAP job running at that instant (the other classes pack at most
// 97.9 %), and on the prospective system the share-respecting
// time-average is at most 97.84 % (see TestUtilisationProspective for the
// arithmetic). The Cielo baseline keeps about 98.5 % busy on average.
//
// A job reads its input, then alternates computation and checkpoints —
// the next checkpoint is requested P − C after the previous one ends
// (Section II; max(P − C, 0) when C ≥ P) — performs its regular I/O in
// transfers spread evenly over its work (Options.IOChunk), and writes its
// output. Transfers are a fluid model: at every transfer start, end or
// failure the rates of the active transfers are recomputed and their
// completions rescheduled.
//
// # Strategies
//
// A Strategy combines a Sharing mode (Proportional, Token, Unlimited), an
// Arbiter that grants the I/O token (FCFS, LeastWaste), whether waiting for
// the checkpoint token blocks, and a PeriodRule (Fixed, Daly). The I/O part
// (sharing, arbiter, blocking) is one of the policies of package
// iosim/arbiter, the one implementation that the checkpoint coordinator
// (`ckpt serve`) hosts too. Each family lives in its own file and
// registers its variants by name: oblivious-*,
// ordered-*, ordered-nb-* (× fixed, daly), least-waste (and
// least-waste-printed, Eqs. 1–2 exactly as printed; see LeastWaste for
// why they are dimensionally inconsistent), interference-free, and the
// Fixed-period least-waste-fixed and interference-free-fixed of the
// paper's 1-hour runs. Baseline is
// the fault-free, checkpoint-free, interference-free run the waste is
// measured against.
//
// With Options.Remote the token is granted by a RemoteArbiter instead — the
// checkpoint coordinator (`ckpt serve --client-clock`) driven with the
// simulated clock, told each request, transfer end and withdrawal at the
// moment the in-process arbiter would decide; ClosedLoop runs a scenario
// both ways and compares the decisions (`ckpt coord simulate`).
//
// # Metrics
//
// SimulateContext returns a Run whose Split accounts (Options.Accounting: ours,
// or the authors' simulator's, AuthorsAccounting, with Renormalize for
// their post-processing) for every node-second of the
// window [Skip, Span − Skip] (default: the 60 days between the first and
// the last day of 62): Work + IO + Checkpoint + Lost + Idle = N × window
// (checked by the tests to 1e-9 relative, the float rounding of the
// sums). Waste = 1 − (Work + IO)/(Work + IO of the baseline); Slowdown is
// the node-weighted ratio of actual to interference-free checkpoint
// durations (Fig. 1). TrialContext runs the baseline and several strategies on one
// seed; Sweep runs trials on the experiment runner (deterministic for any
// worker count and shard split); Aggregate and Summarize give means,
// quartiles and deciles.
//
// Options.Authors (AuthorsModel, all off by default) switches on, one at a
// time, the behaviours in which the authors' simulator departs from the
// paper's model: their Least-Waste heuristic, dropped late checkpoint
// requests, failed jobs' FCFS reservations kept as their queue keeps them,
// work in [0.9w, 1.1w] minus the input and output, no regular I/O, a
// random 31-day measurement window, restarts from the last stop (an
// unfinished checkpoint's start), slowed rates kept after a failure
// (Oblivious), their finite job list run until it drains (Drain), the
// output size their code writes, their heuristic's dates, and its integer
// division (no risk term for waiting I/O, ties to the job earliest in the
// list). Only Drain changes the cost: a run is simulated twice (to find
// its end, then to book the window), each up to
// 20 × (1.2 × window + 48.9 h) of simulated time.
//
// # Lower bound (Section IV)
//
// LowerBound is Theorem 1: the periods of Eq. (8) with the smallest λ ≥ 0
// meeting the I/O constraint of Eq. (6), found by bisection, and the waste
// of Eq. (7). PaperBound (with MapleFiles' inputs, MapleBandwidthFor for
// the prospective curve) reproduces the published curves, whose Maple code
// takes λ = min(0, r) instead of max(0, r): when bandwidth is scarce it
// reports the infeasible Daly waste, below the bound.
//
// Theorem 1 assumes a steady state (jobs checkpointing every period for
// ever) and its Eq. (3) counts an overhead (time lost per useful time),
// while the runs report the fraction of node-time lost by jobs that end:
// on platforms whose jobs last a few periods the runs went below it.
// FractionBound corrects both (finite jobs of at most 1.2 w, waste as a
// fraction, bounded by weak duality) and is the bound Report and the CLI
// compare runs with (see boundfraction.go).
//
// # Configuration
//
// Load reads YAML or JSON (schema: Config, Platform, Class; durations as
// units.Seconds — seconds or "262.4h", "730d", "2y", "00:10:00";
// bandwidths as units.Bandwidth — bytes/s or "40GB/s"; sizes in bytes)
// and validates it with one-line errors naming the field and, for syntax
// errors, bad durations and bandwidths and fractional node counts, the
// line. Cielo (the default, Table I) and Prospective (Section VI-B) are
// embedded. Strategies are named through the registry package (Lookup,
// LookupList, Names).
//
// # Limits
//
// A platform has at most MaxNodes nodes. With random failures, a platform
// on which a class checkpoints in at least its jobs' MTBF, or whose
// Theorem 1 waste is ≥ 1, cannot make progress and is refused before any
// event (Config.CheckProgress, NoProgressError); BandwidthFor counts such a
// bandwidth as waste 1. A run stops with ErrTooManyEvents after
// Options.MaxEvents events, and SimulateContext, TrialContext, Sweep and
// BandwidthFor stop within a few thousand events of their context's
// cancellation.
//
// # Complexity
//
// A run is O(E log E) time for E events: a few per checkpoint period per
// job, one per node failure, and, under Proportional sharing, O(T)
// arithmetic plus one queue update per transfer start or end with T
// concurrent transfers (only the earliest completion is queued), or
// O(log T) with Options.VirtualTime (virtualshare.go). A job start costs
// O(q) for q nodes; a restart on the nodes its failed run left (the last
// release), its memory (the failed job's) and a failure's look-up O(1). The
// scheduler's pass at a job start, end or failure is O(C) for C classes
// when no class's width fits the free nodes, O(C log Q) for Q queued jobs
// when one does, and O(C log Q) per job it starts
// (per class a tree of the queued plans in queue order finds the first
// job that fits; a job list under 640 jobs is scanned instead, O(Q) over a
// contiguous mirror of the nodes and plans: classqueue.go) — plus, for a
// job started from inside the queue, a move of the entries behind it (one
// memmove) — and O(R + k log R) for R running when a queued job fits the
// free nodes (the reservation pops the running jobs' planned ends from a heap
// until the k it needs are free; a queued job's plan is computed once); a
// grant of the token under FCFS compares nothing (the waiting requests are
// kept in arrival order: the first is granted, and removing it advances
// the list's start, O(1) amortised; waiting.go), and under LeastWaste O(W) for W waiting requests
// (whose O(W) estimate rules out all but the requests within
// rounding of the least waste; arbiter.LeastWaste); a failure withdraws
// its job's waiting requests in O(W), or O(1) when it has none. On a platform k times
// Cielo's size R, Q, T and W grow k-fold, so these passes, not the event
// queue, set the cost per event
// (BENCHMARKS.md). Its memory is O(N + J) for N nodes and J jobs in the list
// (failure streams, pending events, running jobs, the queue), whatever the
// number of failures and restarts: a restarted job replaces the failed
// one. A trial (TrialContext) draws its failure times once, O(N + F) for F
// failures in the span (at most 2²² held, else its runs draw as they go),
// sorted by time once (O(F log F)), and its runs read them and reuse the
// previous run's memory, so a run's set-up is O(J + F) beyond clearing its
// N-node table; a run keeps all its pending failures in one queued event
// (O(1) per failure, failureWalk), so its queue holds about one event per
// running job (11 on average at Cielo ×1, where one per failing node made 760). LeastWaste is O(r) per decision for r waiting requests (O(r²)
// for its Swapped form and when many tie to within rounding);
// LowerBound is O(K) per bisection step for K classes. SimulateTimeline's
// recorder adds O(1) per transfer and wait (nothing when off); the
// pictures (WastePanels, TimelinePanel) are O(strategies) and O(segments
// log segments). Measured run times are in BENCHMARKS.md.
package iosim
