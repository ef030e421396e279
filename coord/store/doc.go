// Package store persists a checkpoint coordinator's state (package coord)
// in an embedded bbolt database: a meta record (counters, platform
// statistics) and one record per job with its outstanding lease and its
// expiry. Every change is committed (and fsynced) before the request that
// made it is acknowledged; a Writer groups the changes of concurrent
// requests into one transaction, in the order the core made them (group
// commit: one fsync answers the whole batch), and may hold a batch
// smaller than the previous one for a bounded time so that more requests
// share its fsync.
//
// Opening is strict: a missing file is an error unless Init is set (which
// creates it, and refuses a file that exists); a file that is not a
// coordinator database, or whose records do not decode, is an error naming
// the file and the record — never a silent empty state.
//
// Complexity: a commit costs O(changed jobs) plus one fsync; Load is
// O(jobs) time and memory.
package store
