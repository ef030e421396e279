// Package interval plans checkpoint intervals for failure-prone tasks, after
// Di, Robert, Vivien, Kondo, Wang and Cappello, "Optimization of Cloud Task
// Processing with Checkpoint-Restart Mechanism" (SC'13), and the classical
// periods of Young (1974) and Daly (2006).
//
// A task needs Te seconds of work. It takes checkpoints of cost C, restarts
// from its last checkpoint at cost R after each failure, and suffers Y
// failures, a random number of mean E(Y) (the MNOF, mean number of
// failures). The package computes:
//
//   - the periods of Young, √(2·C·MTBF) (Eq. 6, young.go), and of Daly's
//     higher-order estimate (daly.go);
//   - Theorem 1: x* = √(Te·E(Y)/(2C)) equal intervals (Eq. 3), the integer
//     number of intervals that minimises E(Tw) of Eq. (4), and E(Tw) itself for
//     any plan (theorem1.go); Corollary 1 links the two (E(Y) = Te/MTBF);
//   - Plan, which prices the three methods side by side (plan.go), and
//     Advise, the whole answer of `ckpt interval`: the storage choice, the
//     checkpoint and restart costs it supplies when the caller gives none,
//     then Plan (advise.go); Request, Run and Report, the application
//     layer `ckpt interval` calls (request.go), and SimRequest, Simulate
//     and SimReport for `ckpt interval simulate` (simrequest.go);
//   - FailureSource, the one place failure inputs become E(Y), an MTBF or
//     a law: given numbers, a law spec, failure times, a GloudSim trace,
//     the LANL log, an FTA data set or Google task events
//     (failuresource.go); Period, the one choice of a method's period
//     (period.go), which the coordinator calls too;
//   - Algorithm 1, the adaptive recomputation of the remaining checkpoint
//     positions when the MNOF changes, and Theorem 2, kept beside the test
//     that checks Theorem 2 (adaptive_test.go: no command uses it);
//   - the choice between local and shared checkpoint storage of Section 4.2.2,
//     with BLCR costs by memory size interpolated from measured tables, and
//     the measured memory range outside which they are extrapolated
//     (storage.go, costtable.go);
//   - MNOF and MTBF per group (priority, task-length limit: TraceFilter)
//     from the GloudSim Google task traces, and per system from the LANL
//     failure logs (LANLSystem) with Exponential, Weibull, LogNormal and
//     Pareto fits of the inter-failure times (estimate.go, sources.go);
//   - the replay of a real task's failures through a checkpoint policy and its
//     workload-processing ratio WPR, Eq. (9) (replay.go, policy.go), and the
//     accounting of GloudSim's numeric analyser: a first approximation
//     (gloudsim.go) and the faithful single-precision port that reproduces
//     the authors' published logs, Table 6 and Fig. 9 to the digit
//     (GloudSimAnalyse, gloudsim_analyser.go);
//   - a stochastic simulator with failures drawn from a distribution, and the
//     best fixed period found by search (simulate.go);
//   - the exact expected wall-clock time of a plan for exponential failures,
//     with and without failures during restarts, beside Eq. (4)'s first
//     order (exact.go);
//   - `ckpt interval simulate`: one task under a policy (SimPolicies), many
//     runs with failures from a law or replayed from a list, its model
//     choices (failures during restarts or checkpoints, a restart before
//     the first checkpoint) as switches, summarised with a 95% confidence
//     interval (simtask.go).
//
// # Units and conventions
//
// All times are seconds of the caller's choice of unit. A plan's period is the
// work (not wall-clock) between two checkpoints; x intervals mean x−1
// checkpoints, none at the end of the task. Eq. (4)'s model places each
// failure uniformly over the work, independently of the checkpoints, so the
// expected work lost to one failure is Σ len_i²/(2·Te) over the intervals
// (Te/(2x) for x equal intervals).
//
// # Paper sections
//
// Section 3 (the model, Eq. 1–2), Section 4.1 (Theorem 1, Eq. 3–4,
// Corollary 1, Young's Eq. 6, the fits of Fig. 5), Section 4.2 (Algorithm 1,
// Theorem 2), Section 4.2.1 (Formulas 7–8), Section 4.2.2 (local versus
// shared storage, Table 5), Section 5 (Table 6–7, Fig. 9–11, the WPR of
// Eq. 9). The reproduction is repro/cloud (`ckpt repro cloud`).
//
// # Complexity
//
// Every formula is O(1) in time and memory. Intervals compares the two
// integers around x*: O(1). Advise and PlanStorage are O(number of
// storages). Replaying a task with K failures costs O(K) time and O(1)
// memory whatever the number of checkpoints (each uninterrupted run is
// resolved in closed form). Estimating from a trace is linear in its
// failures; the LANL fits are O(n log n) in the system's failures.
// A simulated run costs O(failures) and SimulateTask O(failures +
// checkpoints); Runs.BestFixed tries at most maxX equal-interval periods (it
// skips those whose failure-free time already exceeds the best mean) and
// refines the best by golden section, at most (maxX + 40)·reps runs. Runs
// draws each failure of its reps runs once, however many periods replay
// them: O(reps + draws) memory, O(failures) time per run. GloudSimAnalyse is
// O(segments + Σ d/period), counting periods one by one as the analyser
// does. The exact expectations are O(1).
// Measured times are in BENCHMARKS.md.
//
// # Randomness
//
// Only the simulators draw random numbers (RenewalMean and Runs: the streams of rng.Stream(seed, …), reseeded in place;
// SimulateRuns: runner.Seed(seed, 0, run)),
// so a seed fixes every result whatever the parallelism. Planning, estimation and fitting
// are deterministic.
//
// # Pictures
//
// WallclockPanel draws E(Tw) against the number of intervals (Eq. (4) and
// the exact expectations) with each method's choice; FailurePanel the laws
// fitted to a trace over its empirical CDF; PlotAdvice and AdvicePage make
// the `ckpt interval --plot/--html` outputs through package plot. Both are
// O(points + sample) in time and memory.
package interval
