// Package cloud reproduces the evaluation of Di, Robert, Vivien, Kondo, Wang
// and Cappello, "Optimization of Cloud Task Processing with
// Checkpoint-Restart Mechanism" (SC'13) with package interval, as
// `ckpt repro cloud`: the worked examples of Sections 4.1 and 4.2.2, Table 7
// (MNOF and MTBF per priority and task-length limit), Table 6 (WPR with
// precise prediction), Fig. 9 and Fig. 10 (WPR with per-priority estimates),
// the failure-interval fits of Fig. 5 and of the LANL systems, and a what-if
// study with failures drawn from distributions.
//
// The paper ran its experiments on a real cluster with BLCR, replaying the
// Google trace; here every real task of the three GloudSim traces (the data
// behind those experiments) is replayed in simulation by interval.Replay:
// the failures strike after the trace's uninterrupted running times, C = 2 s
// per checkpoint (the cost the paper assumes in Section 4.1 and the one of
// GloudSim's numeric analyser) and R = 2 s per restart. ST, BoT and Mix are
// the single, batch and mix traces. Accounting "gloudsim" adds Table 6
// and Fig. 9 under the bookkeeping of the authors' numeric analyser
// (interval.GloudSimAnalyse), which reproduces their published logs.
//
// The data (the three GloudSim traces, the LANL failure log and the BLCR
// cost tables) are found in the data folder (repro.Config.DataPath):
// --data, else $CKPT_DATA, else ../shared/data beside the checkout.
//
// Cost: the replays are linear in the traces' segments; the what-if study
// dominates, scenarios × (at most maxX + 43) × reps simulations of
// O(failures) each, on failures drawn once per scenario (interval.Runs),
// plus 20 × reps renewal draws for E(Y) (BENCHMARKS.md has the measured
// times). The what-if draws come from
// runner's per-scenario seeds (rng.Derive of the base seed 2013), so every
// run, with any number of workers, writes the same bytes.
//
// Complexity: the replays are O(tasks × intervals) per method and trace;
// the what-if Monte Carlo is O(runs × failures per run) per scenario, on
// cfg.Workers workers. Randomness: seeded through repro.Config.BaseSeed
// (2013 by default) and runner.Seed, so the output does not depend on the
// worker count.
package cloud
