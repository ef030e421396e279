// Package slurm runs ckpt's reservation plans on the Slurm workload manager,
// end to end: it submits a plan as a chain of sbatch jobs (one per
// reservation; StepsOf (PlanSteps, MemPlanSteps) and ChainOf are the one
// way from a plan to a chain, CheckCluster the one check against the
// partitions' limits, Submission the two together), runs the application inside each reservation (Run, the
// job-side runner behind "ckpt run"), reports and cancels chains (Status,
// Cancel), and turns sacct records back into a walltime history in which a
// chain counts as one run and runs that never finished are right-censored
// (ReadSacct, the one sacct reader in ckpt, and ReadHistory for every
// layout of history), which Learn fits with the Kaplan–Meier estimate or
// censored maximum likelihood. It acts on Slurm only through the Cluster
// interface (Exec runs sbatch, squeue, sacct, sinfo, scancel, scontrol;
// tests put a recorder in its place). It implements the submission side of
// Gainaru et al., "Reservation strategies for stochastic jobs" (IPDPS
// 2019/2020, Sections 2–4): the plan is a sequence of reservations, each
// ending with or without a checkpoint.
//
// # Chains that stop
//
// Reservation k (k ≥ 2) is submitted with
// --dependency=afternotok:ID1:…:ID(k−1) and --kill-on-invalid-dep=yes: it
// starts only when every earlier reservation ended "not ok" (TIMEOUT, FAILED,
// CANCELLED, NODE_FAIL, …), so once one of them completes (exit 0) the
// dependency can never be met and Slurm cancels it, whatever position the
// completing reservation had and whatever happened to the others. A chain
// only on the previous reservation (afternotok:ID(k−1)) runs again after a
// completion: k completes, k+1 is cancelled, and a CANCELLED job is "not ok".
// The runner adds a second guard: it does not start the application when a
// reservation recorded that the work is done — an earlier one, or, when
// Slurm requeued this reservation (scontrol requeue works on finished jobs
// too), this one or a later one. A requeued reservation that runs again
// (after a node failure, say) restarts the application from the chain's
// last committed checkpoint, even where the plan starts it from scratch:
// its first run may have checkpointed before it was requeued.
//
// At most Ahead reservations are pending beyond the one that runs (a rolling
// window, default 2): the submission script submits the first Ahead, and the
// runner of reservation k submits up to k+Ahead. The runner of a reservation
// that completes the work cancels what is pending. Ahead = 0 means all
// reservations are submitted up front.
//
// # The application protocol
//
// "ckpt run -- APP ARGS…" starts APP with these variables in its environment:
//
//	CKPT_CHAIN, CKPT_CHAIN_DIR  the chain's id and its state folder
//	CKPT_RESERVATION            this reservation's index, 1-based
//	CKPT_RESERVATIONS           the number of reservations planned
//	CKPT_CHECKPOINT             1 if this reservation ends with a checkpoint
//	CKPT_CHECKPOINT_TIME        the planned checkpoint time C (seconds)
//	CKPT_RESTART                1 if the app must resume from its last checkpoint
//	CKPT_MILESTONE              the work done at the end of the reservation (s)
//	CKPT_PROGRESS_FILE          where the app writes its progress, and, when
//	                            CKPT_RESTART=1, reads the progress it resumes
//	                            from (this reservation's own file; see below)
//	CKPT_AFTER_CHECKPOINT       exit or continue (see below)
//	CKPT_END                    the reservation's end, Unix seconds (3 decimals)
//	CKPT_SCALE                  the time scale S (1: real time; see below)
//
// and, so that a framework's training loop can ask at each step without a
// server (docs/slurm.md, "Frameworks' signals"):
//
//	CKPT_END_TIME               the reservation's end, Unix seconds (3 decimals)
//	CKPT_CHECKPOINT_AT          when the runner asks for the checkpoint (absent
//	                            when the reservation plans none)
//	CKPT_APP_SIGNAL             the checkpoint signal of --app-signal (USR1,
//	                            TERM, USR2 or INT)
//	CKPT_CHECKPOINT_COST        the checkpoint cost priced (measured, else C)
//	CKPT_STEP_TIME              the step time priced (given, measured, else 0)
//	CKPT_CHECKPOINT_NOW         a file the runner creates, once, when the
//	                            checkpoint is due (the time, or a preemption or
//	                            Slurm's SIGTERM first)
//	CKPT_REPORT_FILE            JSON lines the app appends: {"checkpoint_s": 12.3},
//	                            {"step_s": 0.41}; later reservations price with them
//	CKPT_SOCKET                 a Unix socket answering "should_checkpoint" (yes,
//	                            or "no SECONDS") and "time_left" (absent when its
//	                            path would exceed 107 bytes)
//	SCR_END_TIME, SCR_HALT_SECONDS, SCR_CHECKPOINT_SECONDS  SCR's equivalents
//
// The runner sends SIGUSR1 (ckpt run --app-signal: TERM, USR2, INT) at
// end − C − step − margin, where end is the job's real end time
// (SLURM_JOB_END_TIME, else squeue), C and the step time are measured
// when the chain's apps reported them, and margin covers signal delivery
// and Slurm's enforcement lag. An app sent TERM or INT that has not
// exited within --app-grace (never after the end) is killed with its
// group. When Slurm preempts the job (PreemptMode=REQUEUE, a GraceTime)
// the runner asks for the checkpoint at once, records the reservation
// preempted, and requeues its job, which runs again from the checkpoint
// (at most MaxRequeues times). On SIGUSR1 the app writes its
// checkpoint, then writes its progress (seconds of work done, one number)
// to CKPT_PROGRESS_FILE (write a temporary file and rename it), and then
// exits with a non-zero status (CKPT_AFTER_CHECKPOINT=exit), or keeps working
// until it finishes or Slurm ends the job (continue). On SIGTERM (the time
// limit) it exits. It exits 0 only when its work is complete; it may write
// its final progress first. The runner records the outcome (done,
// checkpointed, killed, failed, out of reservations) in the chain folder, and
// exits 0 only for done, which is what the dependencies read. The app runs
// under package supervise: in its own process group, killed with it when
// it exits, and, on Linux, killed when the runner dies; a status of 128 + N
// means signal N killed it. Under Slurm's process tracking by cgroup or by
// process tree, Slurm's own SIGTERM (time limit, scancel) reaches the app:
// the runner does not send a second one (it does under proctrack/pgid).
//
// # One reservation at a time
//
// The runner takes the chain's lock (DIR/lock, naming the reservation,
// host and pid) before it starts the app: a stale holder (an earlier
// reservation, or a dead process) is taken over, a later reservation's
// lock makes a late runner refuse. It kills what earlier reservations'
// apps left running on its host, and completes the record of an earlier
// reservation whose runner vanished (outcome vanished, with Slurm's state
// and end; the progress its app saved before that end is committed). The
// app's CKPT_PROGRESS_FILE is its reservation's own (DIR/progress.rK): the
// runner commits it to the chain's (DIR/progress) only while it holds the
// lock, so that an app that outlived its reservation cannot overwrite a
// newer checkpoint.
//
// # A chain that stalls stops itself
//
// After ckpt run --stall-limit K reservations in a row (default 2) that
// saved no new progress (the app crashed, ignored the checkpoint signal or
// checkpointed slower than planned; reservations that plan no checkpoint
// and run to their end do not count), the runner records why (DIR/stopped,
// the job comment's stopped=stalled), cancels the rest of the chain, and
// ckpt chain status says "stalled" with the reason. On Slurm's SIGTERM the
// runner records outcome=timeout (within 5 s of the end) or cancelled in
// the job comment before Slurm's SIGKILL can come, then the outcome once
// the app has ended. ckpt chain history counts a chain whose app failed on
// its own as a failure (skipped), not as a censored walltime.
//
// # Scaled time
//
// A chain with Scale S (or "ckpt run --scale S") runs its plan S times
// faster than real time, to try a plan or reproduce an experiment in
// minutes: reservation k lasts Time/S real seconds from the app's start
// (Slurm's end, if earlier, still wins), sbatch --time is that rounded up
// to whole minutes, the app is signalled at end − C/S − margin (not
// rounded to the second), and the runner stops it at the end: SIGTERM,
// then SIGKILL KillAfter later. Lengths, C, R, milestones, progress and
// work stay in the plan's seconds: an app does S seconds of the plan's
// work per real second (CKPT_SCALE tells it S).
//
// # Complexity
//
// Building a chain of n reservations is O(n²) in the dependency lists
// (O(n·Ahead) per runner); status and history are linear in the records read.
package slurm
