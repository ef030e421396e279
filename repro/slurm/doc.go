// Package slurm is `ckpt repro slurm`: the real-scheduler
// experiment of Section 5 of Gainaru, Goglin, Honoré, Pallez, Raghavan,
// Robert and Sun, "Reservation and Checkpointing Strategies for Stochastic
// Jobs" (IPDPS 2020): three neuroscience applications (Table 3: Qball, SD,
// FCA) submitted through Slurm under DYN-PROG-COUNT, ALL-CKPT and the MASI
// lab's practice (HPC: the mean of the last 5 runs, then +50% per retry,
// from scratch), with the utilisation and average stretch of Fig. 8, the
// C/R variation of Fig. 9 and the mixed workload of Table 4.
//
// # What is here
//
// Apps holds Table 3 and Mix Table 4's workload. SimHeld is ckpt's own
// simulation of the same jobs, the column the real run is to be set
// beside: for each application Design.Make draws the walltimes, plans
// DYN-PROG-COUNT and ALL-CKPT under RESERVATION-ONLY (α = 1, β = γ = 0,
// Section 5.1) and builds the HPC strategy of each job from the five
// walltimes before it; Summarize computes the paper's two measures on the time
// each job holds a node (failed reservations in full, then restart plus
// the remaining work of the last): utilisation Σ walltime / Σ time held,
// and the mean over jobs of stretch = time held / walltime; and the same
// with the time reserved (the last reservation in full, the cost the
// plans minimise) in place of the time held. The definition matters: on
// 200 jobs per application, DYN-PROG-COUNT beats ALL-CKPT and HPC on the
// reserved measures, but ALL-CKPT edges out DYN-PROG-COUNT on the held
// ones (a failed reservation without a checkpoint is redone from
// scratch, and the time held does not charge the unused end of the last
// reservation), whereas Fig. 8 ranks DYN-PROG-COUNT first on both. With no queue
// the simulated stretch has no wait in it; on the cluster the time from
// first submission to completion replaces the time held, and the
// difference is what the scheduler adds.
//
// # The real run (ckpt repro slurm)
//
// Design.Make draws the jobs: Fig. 8 (every application under every
// strategy, the same walltimes for each), Fig. 9 (the same walltimes under
// DYN-PROG-COUNT with the checkpoint size drawn per reservation uniform
// within ±v of C, v = 10, 20, 30%; HPC takes no checkpoint, so C/R do not
// touch it: its Fig. 8 cell is its Fig. 9 line) and Table 4 (runs of the
// mix, new walltimes per run, DYN-PROG-COUNT and HPC on the same ones).
// Execute submits each job as a chain (package slurm: Chain.Script, the
// submission script a user pipes to bash) whose job script runs
// "ckpt run --scale S -- ckpt repro standin …"; at most Slots chains are
// in flight (the node declares 256 CPUs, scripts/slurm-localhost.sh), the
// jobs round-robin over the cells so that every cell meets the same queue.
// The plans price what the runner really does (Design.Margin,
// reservation.Costs.Margin, as ckpt reserve --slurm plans): a checkpoint
// reserves C + M, M = S × (the runner's margin + StartAllowance, 1 s for
// the stand-in's late start: it counts its work from its own start,
// measured 0.15–0.79 s after the runner's clock on this node), so that
// the saved progress reaches each planned milestone (Milestones counts
// them from the chains' records); Config.PaperCosts (--paper-costs)
// plans with the paper's C, whose milestones a real run misses by that
// much (FINDINGS.md).
// StandIn works for its drawn walltime, writes a checkpoint file of
// C'·BytesPerSecond bytes (C' = C·f, f its size factor) at SIGUSR1 or, knowing its size,
// at end − C' − margin, whichever comes first, taking C' of the plan's
// time, and reads it back at restart, taking R·f.
//
// Scaling: S is paper seconds per real second. A reservation of paper
// length L lasts L/S real seconds from the runner's start, and the runner
// stops the app then (SIGTERM, SIGKILL a second later); sbatch --time is
// ⌈L/S/60⌉ minutes, a bound Slurm never reaches. C, R, walltimes and
// progress stay in paper seconds in every file; times measured on the
// cluster are multiplied by S. By default S is Σ simulated time held /
// (Slots · 30 min), at least 20 (AutoScale). The time a job holds the node
// is measured by its job script (bash's microsecond clock around ckpt run;
// sacct keeps whole seconds, i.e. S paper seconds); the wait (submission
// to the end of the last reservation, less the time held) is Slurm's
// latency — start-up of the first reservation, release of each dependent
// one — which does not shrink with S: it is reported in real seconds, and
// the measures are given with it scaled (as if the scheduler were S times
// slower) and at its real length.
//
// Summarize gives, per cell, the utilisation Σ walltime / Σ held and the
// mean stretch held / walltime, on the cluster and in simulation (SimHeld:
// ckpt's model of the stand-in, equal to package reservation's cost with
// β = 1 when v = 0), and the same
// with the waits; Comparisons puts Table 4's published means beside them
// (Fig. 8 and 9 are figures: their numbers are not in the text, the rows
// carry the paper's claim). The figures are fig8 (utilisation, held and
// reserved, and stretch per application and strategy, the cluster beside
// the simulation) and fig9-utilization / fig9-stretch (against the C/R
// variation). Without a cluster (sinfo fails) the command
// says so on one line and exits 1.
//
// Table 3's SD law reads "Weibull (k = 1043811, λ = 1174322466, [a, b] =
// [46 min, 2.3 h])": the decimal points were lost in the paper's typesetting;
// Apps reads it as k = 1.043811, λ = 1174.322466 s placed at a = 46 min, the
// way Qball's and FCA's Gamma laws are placed at their a.
//
// Complexity: Design.Make plans each application once (the dynamic
// program, O(N²) on Algorithm 1's grid of N points) and then costs
// O(jobs · reservations) time and O(jobs) memory; Execute holds O(Slots)
// chains and reads each one's small files once per poll; its real time is
// about Σ held / (S · Slots) plus the waits.
package slurm
