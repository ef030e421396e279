// Package coord is the decision core of the checkpoint coordinator that
// running jobs ask (`ckpt serve`): per-job checkpoint advice after the
// checkpoint-interval paper (Young, Daly and Theorem 1's E(Y) rule, through
// package interval) and arbitration of the shared file system after the
// cooperative-checkpointing paper (Herault et al., APDCM 2018, Section
// III; the policies are the simulator's, in iosim/arbiter).
//
// The core is a deterministic state machine with no I/O, in the style of
// etcd's raft: every method takes the time now (seconds, the caller's
// clock: wall time in production, the simulated time in a simulation) and
// the same calls give the same decisions. The caller persists what
// TakeChanges returns before it acknowledges a request (coord/store) and
// rebuilds the core with Restore after a restart.
//
// Leases. A job has at most one outstanding request for the file system.
// Acquire queues it; the policy grants it at once (Oblivious) or when the
// file system is free (Ordered, Ordered-NB, Least-Waste: one holder at a
// time, the Arbiter picks among the waiting). A grant is a lease with a
// TTL and a fencing token drawn from a counter that only increases (also
// across restarts: the counter is persisted). A holder renews by
// heartbeat; a lease not renewed within its TTL expires and the next
// request is served; a waiting request not polled within its TTL is
// dropped. Release with a token that is not held (expired, or never
// granted) is refused. Requests carry a client request id: a retry with
// the same id returns the first answer and never a second grant, for as
// long as a lease can live (MaxTTL after the request ended; at most a
// job's last 32 requests), and a retry asking for another transfer (kind,
// size) is a Conflict. A job that is done is remembered as long: done
// again answers as the first did. Cancel
// withdraws a request (waiting or granted) without counting a checkpoint,
// as a failed job's transfer is aborted.
//
// Simulation. Every answer that can grant lists the grants made during
// the call (Grant.Granted, Coordinator.Granted), so a simulator driving
// the core — in process or over HTTP with the client's clock — learns each
// decision at the instant it is made: request → Acquire (Kind, Bytes,
// LastCheckpoint), transfer end → Release, failure → Cancel, with
// Config.FixedMTBF so that Least-Waste weighs risk with the simulator's
// μ_ind. Driven so, the core grants exactly what iosim's token logic with
// the shared arbiters grants, decision for decision (TestSameDecisionsAsSimulator;
// over HTTP, coord/client's SimArbiter as iosim's Options.Remote:
// TestClosedLoopSameAsInProcess and `ckpt coord simulate`).
//
// Estimators. A measured checkpoint duration updates the job's C by an
// exponentially weighted moving average (weight Alpha, default 0.25, on
// the newest sample; the first measurement replaces the prior Bytes/β).
// The platform's node MTBF is estimated from the jobs' reports as
// μ̂_ind = (E + μ₀)/(F + 1) with E the node-seconds observed, F the node
// failures reported and μ₀ the configured prior (one pseudo-observation);
// without a prior, μ̂_ind = E/F, undefined until a failure is seen.
//
// Complexity: Register, Done, Next, Renew O(1) (amortised map operations);
// Acquire, Release and expiry O(w) to maintain the queue of w waiting
// requests plus one arbiter decision (O(w) FCFS, O(w²) Least-Waste).
// Memory O(jobs).
package coord
