// Package capacity schedules rigid jobs on a platform whose processor count
// varies, after Cendrier, Benoit and Vivien, "Scheduling Jobs Under a
// Variable Number of Processors" (Inria RR-9582, 2025).
//
// The processor count P_i changes at events T_i announced one section in
// advance (P_min ≤ P_i ≤ P_max, |P_{i+1} − P_i| ≤ δ, Section 2). Each job
// J_j runs on exactly p_j processors or not at all, checkpoints in C_j and
// recovers in R_j. At T_i an online algorithm knows P_i and T_{i+1} but not
// P_{i+1}, and must leave at least min(δ, P_i − P_min) processors
// checkpointed before T_{i+1} so that no work is ever lost.
//
// A Go program asks its questions as `ckpt capacity` and `ckpt convert` do
// (app.go, appconvert.go): RunDecide, RunSimulate, RunSweep, RunExport,
// RunScore and RunConvert, each taking a Request whose Validate names the
// bad field in a usage error and returning the report the command prints
// (its JSON, and WriteText in render.go).
//
// The package holds:
//   - the model (model.go: Job, Platform, Status, State) and explicit
//     schedules (plan.go: Plan, Interval — per job, run/checkpoint/recover
//     with times);
//   - an independent validator (validate.go: Validate) that checks capacity
//     at every instant, checkpoint and recovery lengths, recovery before
//     work, no work lost and the online constraint, and measures the work;
//     every metric comes from validated plans;
//   - the objectives and bounds (simulate.go: Goodput Eq. 1, Yield Eq. 2,
//     minimum yield Eq. 3, MW and Bounds of Section 3.4, Simulate);
//   - the algorithms, one file each, behind the Algorithm interface and
//     named in one registry table (algorithm.go: New, Names, ParseList;
//     parameters range-checked): GreedyGoodput
//     (Algorithm 1), GreedyYield, DPGoodputSlow(-Best-Cnf) (the 15 paths of
//     Fig. 4, Appendix D.1), DPGoodput(-Best-Cnf) (DP1 + DP2, D.2), DPYield
//     (D.3), TargetYield(Y), TargetGoodput(G) (D.4), DPBiC(X) and
//     DPBiC-Best-Cnf(X) (D.5);
//   - workloads and experiments (workload.go, sweep.go, params.go: Section
//     6.1 generation from the job widths of SWF or CQSim logs read by
//     package trace; Params.Validate; Experiment.Points and RunPoints, which
//     run on the experiment runner and stop when their context is
//     cancelled, between sections);
//   - finite jobs (Section 5): release dates by Accumulation, FIFO or
//     Smallest (release.go, Appendix E.5.2), completion with a final
//     checkpoint and reallocation of the freed processors by exact subset
//     sum (finite.go: Finish, applied by SimulateContext), yields with release
//     dates, and the yield upper bound of Section 5.1 by bisection over a
//     max-flow feasibility test (an oracle of the tests:
//     finitebound_test.go, FiniteYieldBound);
//   - online decisions from a JSON state (statefile.go: ReadState, with
//     times bounded by MaxTime; decide.go: Decide, the validated plan and
//     its goodput), what `ckpt capacity decide` prints;
//   - other simulators' formats: an instance as a Batsim workload and
//     external events (batsim.go: ExportBatsim, Events, ImportBatsim;
//     export.go: InstanceOf, the instance simulate
//     draws, WriteInstanceSWF, WritePlatformXML), ckpt's own job lists and
//     their conversion to and from SWF and Batsim (batsim.go: ReadJobs,
//     WriteJobs; convert.go: Convert), and ckpt's goodput and yields of a
//     schedule Batsim computed (batsimmetrics.go: BatsimScheduleMetrics,
//     O(m·n) for m jobs and n sections).
//
// # Running time
//
// The dynamic programs share one multi-capacity knapsack (knapsack.go) over
// flat arrays reused between sections: two value layers and one traceback
// byte per (job, state). Each layer is computed only on the states that
// can matter (between A − Σ_{i>j} p_i and Σ_{i≤j} p_i per capacity, about
// half of the table), and the layers of finite jobs that are done or not
// yet released are skipped; the results are bit-identical to the full
// tables (TestPlansUnchanged). DP1 is then pruned by a lower bound on its
// answer (prune.go): DPYIELD drops the cases whose work is below the
// best achievable minimum (found exactly by bisection), which leaves the
// jobs behind with active cases only and narrows every layer by their
// processors; the goodput programs narrow each layer to the states whose
// Lagrangian fractional bound reaches a greedy solution's work. Neither
// changes a decision (TestPrunedUnchanged); on the paper's workloads they
// compute 4–20× fewer cells. With A_1 = P_i − Σ_{Run^(0)} p_j ≤ P_max:
// DPGoodput, DPYield, DPBiC and TargetYield take O(m·A_1·P_max) time per
// section (DP1) plus O(m·P_max) (DP2) in the worst case, plus the bounds:
// O(k·A_1·log k) for DPYIELD's (k ≤ 4m cases), O(m·(m + P_max)) for the
// goodput programs'; and O(m·A_1·P_max) bytes, refused above 2 GiB with the
// value layers (tableBytes), plus at most 128 MiB of
// bound curves, O(m·P_max) floats; the
// -Best-Cnf variants multiply by the number of C_nf candidates (≤ m + 1);
// DPGoodputSlow takes O(m·A_1·P_max²) per C_nf; TargetGoodput O(m·A_1·
// P_max·64) (una in 64 steps). The greedy algorithms take O(m log m).
// Validate takes O(k log k) time and O(k) memory for k intervals. A
// simulation of n sections costs n plans and holds O(m) state besides the
// algorithm's scratch memory. Measured times are in BENCHMARKS.md
// (BenchmarkSection* and BenchmarkInstance* in bench_test.go).
//
// # Ties
//
// Equal-gain solutions are ordered lexicographically as in Appendix D:
// (work, jobs active at the end, jobs checkpointed at the end) for the
// 15-path program, (work, jobs active in phase 2) then (work, checkpointed
// jobs) for DP1/DP2, (minimum work, processors of min-work jobs, processors
// used) for DPYield. Remaining ties are decided from the last job down
// (the traceback order): J_m takes the earliest of its cases in the order
// of Appendix D that reaches the optimum, then J_{m−1}, and so on — so of
// two interchangeable jobs the later one in input order runs. Work is
// compared with a tolerance of 1e-9 of the largest reachable value (float
// sums in different orders).
//
// # Pictures
//
// Trace re-runs a simulation keeping its plans, and SchedulePanel draws
// them (P(t), the processors each job holds, checkpoints, recoveries and
// the drops of P(t)) with package plot: O(sections × intervals) time and
// memory, for the first PictureSections sections.
package capacity
