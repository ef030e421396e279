// Package profile models a multi-phase application as a chain of tasks
// {(f_1, M_1), …, (f_n, M_n)} (Eq. (1) of Gainaru, Goglin, Honoré and
// Pallez, "Profiles of upcoming HPC Applications and their Impact on
// Reservation Strategies", IEEE TPDS 2021): task i runs for a random time
// X_i of law f_i, the X_i are independent, and task i needs at most M_i of
// memory whatever the input. It covers the paper's Section 2 (the traces
// and their phases, Fig. 7), Section 3 (the model: Table 2, Figs. 9–12,
// Eqs. (1) and (2)) and the checkpoint cost model of Section 4.2.
//
// An App is built in three ways:
//
//   - from per-phase memory traces (ReadRuns, ReadTasksDir: one folder per
//     run, files task1.csv … taskN.csv of "t, usedKiB"): the duration of a
//     phase is the span of its timestamps and its peak the largest sample;
//   - from whole-run memory traces (ReadRuns on a folder of ID.csv, or
//     ReadTrace + Segment, the parser of Fig. 7): a run is cut into phases
//     of roughly constant memory; runs cut into another number of phases
//     than most are left out and reported (RunSet.Dropped);
//   - from a YAML or JSON profile (Load, Parse: durations in the grammar of
//     units.ParseSeconds) or a built-in one (SLANT of Table 2, MaCRUISE of
//     Table 3; Builtin). OpenProfile and FitSource return either as a Source
//     ready for planning, with its description and past walltimes.
//
// App.Scaled slows every task by its own factor (Normal laws), and
// ReadPhaseTimes reads the phase walltimes of runs on another machine: the
// inputs of the transfer of Section 4.5 (package memplan).
//
// FitApp fits one law per task from k ≥ 2 runs (Normal as in the paper, or
// any family distribution.Fit supports; CheckTaskFamily refuses those that
// cannot model a task) and takes the largest observed peak as M_i.
//
// From an App the package computes the law of the total walltime (Total:
// the exact Normal sum of Section 3.2.1 when every task is Normal, grid
// convolution otherwise), the task status over time of Figs. 9 and 11
// (Timeline.Finished, Timeline.Running), the average memory M̄ and the
// likely maximum memory M_τ(t) of Eq. (2) (Timeline.LikelyMax), and the
// latency/bandwidth checkpoint cost C(V) = l + V/b of Section 4.2 fitted to
// measured CRIU costs (CRIU, CRIURestart; the test refits them from the
// table). The memory-aware planner that uses all this
// (Section 4) is package memplan.
//
// Glossary (paper symbol: code): f_i: Task.Walltime; M_i: Task.Mem; X = Σ X_i:
// App.Total; y_i(t): Timeline.Finished; M̄: App.MeanMemory; M_τ(t):
// Timeline.LikelyMax; l, b of C(V): CheckpointCost.Latency, Bandwidth.
//
// Units: times are seconds, memory is GB (10⁹ bytes, the paper's unit: its
// "51 GB" task-5 peak is the traces' 47.9 GiB).
//
// Bounds: an App has at most MaxTasks tasks and a profile file at most
// MaxFileBytes bytes (beyond, errors wrap ErrTooLarge); memory is at most
// MaxMem GB, durations (a latency, a restart, a trace's timestamps, a
// task law's quantile 1 − 10⁻⁷) at most MaxSeconds, a bandwidth at least
// MinBandwidth. Values beyond come from a unit error and would overflow
// the planner; each is refused naming its file, line and key. NewTimeline
// and Timeline.Needs stop with their context's error when it ends.
//
// # Running time
//
// A Timeline discretises every task law on a common grid of N steps and
// convolves them: O(n·N²) time once, O(n·N) memory; each Running or
// LikelyMax query then costs O(n·N) survival evaluations (N = DefaultSteps
// by default; timings are in BENCHMARKS.md). Segment is O(L) for a trace of
// L samples; FitApp is O(n·k) plus the fits; Parse is linear in the size of
// the file.
package profile
