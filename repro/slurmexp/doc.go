// Package slurmexp is the start of `ckpt repro slurm`: the real-scheduler
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
// Apps holds Table 3 and Mix Table 4's workload. Simulate is ckpt's own
// simulation of the same jobs, the column the real run is to be set
// beside: for each application it draws the walltimes, plans
// DYN-PROG-COUNT and ALL-CKPT under RESERVATION-ONLY (α = 1, β = γ = 0,
// Section 5.1) and builds the HPC strategy of each job from the five
// walltimes before it, and computes the paper's two measures on the time
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
// # The real run (not built yet)
//
// Each job is a chain (package slurm) of its plan's reservations whose job
// script runs `ckpt run -- STAND-IN`. The stand-in works for its drawn
// walltime (scaled) and really writes, at SIGUSR1, a checkpoint file of the
// reservation's size and reads it back at restart (Fig. 9: the size drawn
// uniform within ±v of Table 3's C, v = 0…30%). Time is scaled by a factor
// s (paper seconds / wall seconds): the full experiment's expected node
// time, Σ over strategies and applications of 500·E[time held], divided by
// the slots declared on the node and by 45 minutes gives s (SD's jobs,
// ~1 h each, dominate; about 3 × 3 × 500 × 1.2 h / 128 slots / 45 min
// ≈ 75, to be measured). Slurm's --time is then the whole-minute bound
// ⌈length/s/60⌉, and the runner enforces the scaled length (ckpt run --end
// = start + length/s; Slurm's limit only catches a runaway). Results are
// reported back in paper seconds (× s); queue waits and signal jitter scale
// up by s too, which is what makes them visible. --quick is a few dozen
// Qball and FCA jobs (SD's scaled hour is too long for CI) in under three
// minutes; without a cluster (sinfo fails) the command says so and exits 1.
//
// Table 3's SD law reads "Weibull (k = 1043811, λ = 1174322466, [a, b] =
// [46 min, 2.3 h])": the decimal points were lost in the paper's typesetting;
// Apps reads it as k = 1.043811, λ = 1174.322466 s placed at a = 46 min, the
// way Qball's and FCA's Gamma laws are placed at their a.
//
// Complexity: Simulate plans each application once (the dynamic program,
// O(N²) on Algorithm 1's grid of N points) and then costs O(jobs ·
// reservations) time and O(jobs) memory.
package slurmexp
