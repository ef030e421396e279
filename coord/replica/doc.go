// Package replica replicates the checkpoint coordinator's state (package
// coord, the decision core of `ckpt serve`; the cooperative-checkpointing
// paper, Herault et al., APDCM 2018, Section III) over a group of three or
// five replicas with hashicorp/raft, so that the coordinator outlives the
// node it runs on. It is a store.Store (coord/store): the server and its
// Writer use it in place of the single bbolt file, unchanged.
//
// The replicated state machine holds what the bbolt file holds: the meta
// record (counters, among them the last fencing token) and the jobs. A log
// entry is a batch of the core's coord.Changes — absolute records of the
// jobs to write and delete and the new meta record, computed by the
// leader's core with the leader's clock (lease expiries included) — so
// every replica applying the same entries in the same order holds the
// same state, and no replica consults its own clock.
//
// Load on the leader waits (raft Barrier) until every entry committed by
// any earlier leader is applied, then returns the state and opens an
// epoch: the current term. Commit appends one entry stamped with the
// epoch and returns once a majority holds it and the leader has applied
// it, so an answer is sent only after that. Commit refuses on a follower,
// on a leader whose term is not the epoch's (it lost and regained
// leadership: another leader may have changed the state), and after a
// failed commit until the next Load; the owner then rebuilds its core
// from Load (coord/server does so after any failed commit). The state
// machine itself also refuses an entry whose epoch is not the term it was
// appended in, so a leader deposed between its check and its append still
// writes nothing.
//
// Fencing tokens stay strictly increasing across leader changes because
// they are a counter in the replicated meta record (coord.Meta.Token), not
// the raft index: a token is acknowledged only once its entry is
// committed, and a new leader loads the state only after applying every
// committed entry, so its counter is at least every acknowledged token.
//
// Storage, under the replica's folder: the raft log and stable store in
// raft.db (raft-boltdb/v2, bbolt), snapshots in snapshots/ (the last two
// kept). A snapshot is the meta record and the jobs, one JSON value each:
// its size is linear in the jobs, bounded by the core's MaxJobs (each job
// keeps at most its last 32 requests); after a snapshot the log keeps
// TrailingLogs entries, so a replica that was down longer catches up from
// the snapshot. The transport is raft's TCP transport (a stream layer on
// the given address, 127.0.0.1 in the tests).
//
// Serving: Serve (`ckpt serve --id --raft --peers [--bootstrap]`) opens a
// replica and runs coord/server on it. The peer list names each replica's
// raft address and, after '@', its HTTP address, which is where a follower
// redirects writes. A member added later (`ckpt coord members add
// id=raft@http`) has its HTTP address committed as an entry of the
// replicated state (and so in every snapshot) before raft adds it, so
// every replica redirects to it once it leads, without a restart;
// `members remove` deletes it the same way. The bootstrapped members'
// addresses come from the peer list and are replicated by the first
// leader: on each election the leader commits, for every member of raft's
// configuration that its --peers names with an HTTP address and the
// replicated map lacks, that record, through the same entries (a seed
// record, applied only where the map holds none: an address already
// replicated is never overwritten). The replicated address wins over the
// peer list's; a replica whose --peers gives another one, for any member,
// logs the difference and shows it in /v1/status
// (replication.conflicts).
//
// Complexity: a commit costs one entry encoding, O(changed jobs), one
// round trip to a majority and an fsync on each; Load is O(jobs log jobs)
// (sorted by id); a snapshot or a restore is O(jobs) time and memory.
package replica
