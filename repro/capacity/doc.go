// Package capacity reproduces the experiments of Cendrier, Benoit and
// Vivien, "Scheduling Jobs Under a Variable Number of Processors" (Inria
// RR-9582, 2025) with the capacity package: `ckpt repro capacity`.
//
// Experiments: Fig. 6 (the four DPGOODPUT variants, light setting), Fig. 7
// (Pareto front of every algorithm, light and default settings), Figs.
// 8–12 (avgT, P_max, P_min, δ and Load varied, default setting), Fig. 13a
// (relative goodput of finite against infinite jobs as avgT varies, FIFO
// release dates) and Figs. 14–15 (CDF of the final yields, infinite and
// finite jobs). Every point is ten instances of 400 sections per workload,
// geometric means, averaged over the workloads. The workloads are the job
// widths (and run times, for finite jobs) of the KIT ForHLR II log and of
// the NASA iPSC and ALCF Theta logs of the shared data (found by package
// datadir: --data, else $CKPT_DATA, else ../shared/data beside the checkout): the
// paper's Thunder and UniLu logs are not available offline. A log missing
// from the default folder is skipped (uniform widths when none is left); one
// missing from a --data folder, or one that does not load, fails the run. Theta jobs use 128 nodes or more and are counted in 128-node
// blocks (none would fit under P_min otherwise). --quick shrinks
// everything to a smoke test (a few seconds). FINDINGS.md lists where and
// why our numbers differ from the paper's.
//
// Complexity: each simulated instance costs what its capacity algorithm
// costs per section (capacity's doc.go) times the sections; the sweep runs
// points × instances × workloads × algorithms of them on cfg.Workers
// workers, with memory for one instance per worker plus the result cells.
// Randomness: every instance is seeded by runner.Seed from the base seed
// (2025 unless `ckpt repro capacity --seed` gives another), so the output
// does not depend on the worker count.
package capacity
