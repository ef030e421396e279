// Package arbiter holds the I/O-token policies of Herault et al., "Optimal
// Cooperative Checkpointing for Shared High-Performance Computing
// Platforms" (APDCM 2018), Section III — Oblivious, Ordered (FCFS),
// Ordered-NB and Least-Waste — as pure functions of the queue state: given
// the time and the waiting requests, an Arbiter's Pick returns the next
// holder of the file system. It has no I/O and no clock.
//
// It is the one implementation of the policies: the simulator (package
// iosim, whose Request, Kind, Env, Arbiter, FCFS and LeastWaste are
// aliases of these) and the checkpoint coordinator (package coord, `ckpt
// serve`, which hosts the simulator's policies) both call it. It imports
// only the shared registry, so that neither capability imports the other.
//
// Complexity: FCFS is O(n) per decision for n waiting requests; LeastWaste
// is O(n²) per decision (W_i costs O(n) for each of the n candidates).
// Memory O(1) beyond the caller's slice.
package arbiter
