// Package arbiter holds the I/O-token policies of Herault et al., "Optimal
// Cooperative Checkpointing for Shared High-Performance Computing
// Platforms" (APDCM 2018), Section III, as pure functions of the queue
// state: given the time and the waiting requests, Pick returns the next
// holder of the file system. It has no I/O and no clock; the checkpoint
// coordinator (package coord) and the simulator call the same code.
//
// Request, Kind, Env and Arbiter have the shape of iosim's types of the
// same names, field for field, so that iosim can alias them
// (type Request = arbiter.Request, …) and use FCFS and LeastWaste from here.
//
// Complexity: FCFS is O(n) per decision for n waiting requests; LeastWaste
// is O(n²) per decision (W_i costs O(n) for each of the n candidates).
// Memory O(1) beyond the caller's slice.
package arbiter
