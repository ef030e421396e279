package client

// GateHelp is the help of `ckpt coord gate`, which runs RunGate: kept
// beside the code whose behaviour it states.
const GateHelp = `gate is what "ckpt run --coordinator URL" runs in place of the app: on SIGUSR1
(the runner's checkpoint signal) it registers the job, acquires the file
system, forwards SIGUSR1 once granted and renews the lease until the app
writes $CKPT_PROGRESS_FILE (its checkpoint is done) or exits, then releases
it. SIGUSR2 and SIGHUP are forwarded at once. SIGTERM and SIGINT end the job
as they end ckpt run's: a pending request is withdrawn and the app gets
SIGTERM, once (not when Slurm's own SIGTERM reached it), since SIGTERM is what
the app protocol catches to save (an app's default SIGINT kills it unsaved).
The job is --id (default the chain and reservation,
$CKPT_CHAIN-r$CKPT_RESERVATION), on $SLURM_JOB_NUM_NODES nodes (default 1),
with C = $CKPT_CHECKPOINT_TIME. It exits with the app's status: its exit code,
or 128 + N when signal N killed it, as shells report it. A coordinator that
cannot be reached is logged, not fatal; a grant that does not come within
--max-wait (ckpt run passes its --margin: a checkpoint granted later could not
end before the allocation does) is withdrawn and the signal forwarded anyway.`
