// Package reservation plans reservation sequences with checkpoints for
// stochastic jobs, after Gainaru, Goglin, Honoré, Pallez, Raghavan, Robert
// and Sun, "Reservation and Checkpointing Strategies for Stochastic Jobs"
// (IPDPS 2020).
//
// A job's walltime X is random. A strategy asks for reservations one after
// the other until the job completes; each reservation may end with a
// checkpoint (cost C) so that the next one restarts (cost R) from the saved
// progress instead of from scratch. A reservation of length W in which the
// job runs w costs αW + βmin(W, w) + γ (Section 2.2). The package computes:
//
//   - the expected cost of any strategy: Theorem 1 (ExpectedCost) and
//     Eq. (5) for one walltime (CostFor);
//   - optimal strategies for discrete laws (DynProgCount, Theorem 2) in the
//     classes DYN-PROG-COUNT (Mixed), ALL-CKPT and NO-CKPT;
//   - DYN-PROG-COUNT(X, ε) for bounded continuous laws (GridSize and
//     Approximate, Algorithm 1), the guarantee a given grid achieves
//     (Guarantee, GuaranteeFactor), and an a-posteriori certified lower
//     bound;
//   - ALL-CKPT-PER and NO-CKPT-PER (Periodic, BestPeriodic, Algorithm 2);
//   - the practitioners' baselines (MaxReservation, Escalating with
//     NeuroFirst or MaxOfLastFirst) and the omniscient bound (Omniscient);
//   - PlanContext and EvaluateContext, which tie these together;
//   - the application layer, which Go programs and `ckpt reserve` call: a
//     Request (the walltime law's WalltimeSource, the costs, ε, n, the
//     strategy, the limits), its Validate (errors name the field), Run,
//     and the Report it returns, which is the plan's JSON schema, with its
//     text (WriteText) and picture (Plot, Page) renderers. A law comes from
//     a LawSpec or, from past runs, slurm.HistorySource (which ends in
//     FromHistory). SweepRequest and NewSweep price a grid of (C, R, ε).
//
// # Running time
//
// Theorem 2 as printed has O(n²) states and O(n) transitions each: O(n³)
// time, O(n²) memory (DynProgCountTheorem2, in the tests, keeps that form,
// parallelised over the states of each i_l, as the test oracle and
// benchmark baseline).
// DynProgCount computes the same optimum in O(n²) time and O(n) memory:
// for fixed (i_c, δ) each transition is a line in S = P(Y > v_{i_l}) with
// slope αv_j, lines arrive in decreasing slope as i_l decreases while S
// never decreases, so a monotone convex-hull deque answers each state in
// amortised O(1); the δ = 1 envelope does not depend on i_c and is shared;
// rows are computed one at a time keeping only the diagonal E(j, j), and the
// plan is rebuilt by re-running the O(n) rows it visits. ALL-CKPT and
// NO-CKPT drop to O(n). A row's inner step (add a line, query the hull,
// compare with the checkpoint envelope) runs in a kernel on flat
// preallocated arrays, with the arithmetic and comparisons of the plain
// hull in the same order, so the results are bit for bit those of the
// straightforward DP (kept as the tests' reference). The rows that decide
// the optimum (mixed class, no transition recorded, strictly increasing
// slopes) run in a variant that carries no test that is dead there
// (rowKernelFast), and with β = +0 in one that also drops the β term
// (rowKernelFastNoBeta). Bit-identity assumes that the compiler does not
// fuse a multiply and an add (true of amd64 as built; an arm64 build may
// fuse differently, which TestKernelMatchesReference would show).
//
// The certified lower bound is the optimum of the grid moved down one cell.
// With β = 0 that grid is the plan's translated by −h, and the rows after a
// checkpoint depend only on differences of milestones, so they are the
// plan's: in the mixed class the bound is read off the plan's dynamic
// program in O(n) time and memory (its row 0 and checkpoint envelope),
// scaled down by a derived rounding margin of a few 10⁻¹² (see
// sharedLowerBound). With β > 0, or a support so far from 0 that the margin
// would exceed 10⁻¹⁰, it is a second O(n²) dynamic program (and in the
// ALL-CKPT and NO-CKPT classes a second O(n) one).
//
// Parallelism: when the lower bound needs its own dynamic program,
// Approximate solves it and the plan's side by side, each with half of
// GOMAXPROCS (one worker each on two cores): no synchronisation between
// them, so a core busy elsewhere slows both evenly. A single solve of at
// least 1 500 rows with two workers or more keeps up to 16 rows in
// progress (8 MB of scratch at most) and its workers take pieces of at
// most 8 192 steps of them, the oldest row first: a row's steps wait only
// for the rows above them, so a worker that the system deschedules holds
// back one piece while the others run the other rows' steps, and once
// those are done an idle worker recomputes the held piece itself from the
// row's first step instead of waiting for it (solveParallel).
// The result never depends on the number of workers. What bounds the running time is therefore the n of
// Algorithm 1: c0 = 3(b − a)/min(max(a, εE[X]/3), R, C) grows with the
// ratio of the support's width to the checkpoint cost, and for the paper's
// neuroscience LogNormal truncated at Q(1 − 10⁻⁷) with C = R = 600 s and
// ε = 1 it is 16 650 — out of reach of the cubic form (≈ 10¹² steps), within
// reach of the quadratic one. Plan caps n at DefaultMaxN and reports the
// guarantee the grid achieves; the lower bound tells how far from optimal
// the plan can be. Options.N is at most MaxGridPoints, a discrete law has at
// most MaxDistinctValues values, and MaxTau is at most MaxTauLimit, so that
// no input asks for unbounded work; PlanContext checks its context once per
// row of each dynamic program and once per τ, so a cancelled plan returns
// within a row.
//
// # Limits: a longest reservation, Slurm's minutes, the runner's margin
//
// A scheduler grants reservations of at most a partition's MaxTime, counts
// them in whole minutes, and the runner (ckpt run) signals the app at
// end − C − margin. Request.MaxRequest (Options.MaxLength) bounds every
// reservation; Costs.Granularity rounds every request up to a multiple of
// g (SlurmGranularity, 60 s) and Costs.Margin reserves C + margin for a
// checkpoint (DefaultSlurmMargin). Under any of them (Costs.Limited or a
// bound) the DP classes run DynProgCountLimited: Theorem 2 with each
// transition's length rounded, priced and checked against the bound, so
// the plan is the optimum under the limits, not the continuous optimum
// clipped or rounded afterwards. The checkpoint envelope then depends on
// the row, so each row keeps its own two hulls: O(n·K) time, K ≤ n the
// largest number of the law's values in a window of MaxRequest seconds
// (O(n²) without a bound), O(n) memory. Its milestones are the law's
// values — on a discrete law under a bound, also points of zero mass
// between them (withCheckpointPoints), or runtimes further apart than a
// reservation reaches would leave no plan — and the slack a rounded
// request leaves is not planned as work, so the runner saves at least
// each planned milestone and the plan's cost bounds the chain's from
// above. On a continuous law it runs on Algorithm 1's grid. Theorem 3's
// guarantee and the certified lower bound are not proven under limits (a
// checkpoint between two milestones could do better) and are not
// reported. The periodic search keeps
// the τ within the bound; a strategy priced beside the plan that needs a
// longer reservation costs +Inf. Without limits nothing changes: the
// paper's continuous plan, bit for bit.
//
// BestPeriodic is O(τ_max²) survival evaluations and O(τ_max) memory at
// worst; it stops pricing a candidate once its running cost exceeds the
// best one's (exact: the terms of Eq. (7) are non-negative and the
// comparison is strict), which leaves far fewer. Theorem 1 is O(|S|) time
// and O(1) memory beyond the strategy.
//
// # Cost normalisation
//
// Expected costs are linear in (α, β, γ), so Plan divides the cost model by
// α (Costs.Normalize), plans in seconds of reservation, scales the costs
// back and checks the plan's cost against Theorem 1 evaluated with the
// costs as given; a model that float64 cannot evaluate is refused rather
// than certified.
//
// # Algorithms
//
// The planning algorithms are registered by name (Algorithms,
// CheckAlgorithm) in the registry package's pattern. Warnings,
// GuaranteeText and WriteTable turn a Result into the report's lines.
//
// # Tie-breaking
//
// Among transitions of equal cost the DP prefers no checkpoint; between
// milestones of equal cost the hull keeps the earlier-added (larger) index
// unless the later one is not worse at the query point. Any returned plan is
// optimal; which of several optimal plans is returned is deterministic.
//
// # Pictures
//
// PlanPanels draws a plan over its walltime law (density, survival, the
// reservation ends, P(needed), the costs beside the baselines) with
// package plot, and PlanPage makes its HTML page: O(400 + reservations)
// evaluations of the law.
package reservation
