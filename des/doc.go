// Package des is a small, reusable discrete-event simulation engine: the
// engine behind iosim, the simulator of the cooperative-checkpointing paper
// (Herault et al., APDCM 2018, Section V: "we use a discrete-event
// simulator").
//
// A Sim holds a clock and a priority queue of pending events ordered by
// (time, sequence number): events at the same time fire in the order they
// were scheduled, so a run is a deterministic function of its inputs.
// Events can be cancelled (Cancel removes them from the queue at once, so a
// simulator that reschedules thousands of transfer completions does not
// accumulate dead entries).
//
// Stream gives every entity (a node, a job, a workload generator) its own
// seeded math/rand/v2 generator, rng.Stream(seed, entity identifiers) — the
// module's one seed derivation: a node's failure times depend on the seed
// and the node's number only, so adding a node to a platform does not
// change the failure times of the others.
//
// # Complexity
//
// The queue is a binary heap written for *Event (no interface calls): At,
// After, Schedule, ScheduleSeq and Cancel are O(log n) time for n pending
// events, Step is O(log n) plus the event's own work, Now, Len and Reserve
// are O(1). Schedule and ScheduleSeq reuse an event made once by NewEvent,
// so a simulator that reschedules the same completion many times does not
// allocate. Memory is O(n) for the pending events
// only: fired and cancelled events are not kept. Stream is O(k) for k
// identifiers.
package des
