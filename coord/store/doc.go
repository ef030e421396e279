// Package store persists a checkpoint coordinator's state (package coord)
// in an embedded bbolt database: a meta record (counters, platform
// statistics) and one record per job with its outstanding lease and its
// expiry. Every change is durable before the request that made it is
// acknowledged; a Writer groups the changes of concurrent requests into
// one commit, in the order the core made them (group commit: one fsync
// answers the whole batch), and may hold a batch smaller than the
// previous one for a bounded time so that more requests share its fsync.
//
// A commit is one record appended to a write-ahead log beside the
// database and one fdatasync of it, where a bbolt transaction costs two
// (its pages, then its meta page). A record is its length, a CRC-32C, a
// sequence number rising by one, and the batch's operations: each job's
// JSON record as the database holds it, each deletion, and the last meta
// record. There are two logs, <db>.wal and <db>.wal2: once the one
// receiving commits holds Options.CheckpointBytes (8 MiB) of records, the
// commits go on in the other while a goroutine applies the first's
// records to the database in one ordinary durable bbolt transaction
// (each job written once, with its last record) that also stores the last
// sequence applied; no commit waits for bbolt's fsyncs. A log is switched
// to again only once its records are in the database, and it is then
// written from its start: the space is reused, not truncated, so a
// record overwrites zeros or older records and its fdatasync writes no
// inode size (a new log is written with CheckpointBytes + 1 MiB of zeros
// when it is created, fsync on; it grows when a round needs more). bbolt never runs without its fsyncs in durable mode (its
// meta page could then land before its pages: a corrupt file, not a
// stale one).
//
// The state is the database's plus every complete WAL record after the
// sequence it holds, in order (those of both logs, which must continue
// one another). Reading a WAL, the log is the run of
// records from its header whose sequences rise by one; a record of an
// earlier round (a lower sequence, left beyond the current one) ends it,
// and a record already in the database (a crash between a checkpoint and
// the next record) is skipped. A torn or CRC-failing last record (a crash
// during its append: never acknowledged) is discarded with a log line; a
// damaged record followed by a complete newer one is corruption, refused
// naming the file and the offset. Opening replays and checkpoints at once,
// so any other reader of the bbolt file sees everything acknowledged, and
// Close checkpoints and marks the database clean: after a clean stop the
// database alone is complete. While the WALs are in use the database's
// schema version is VersionWAL, which binaries from before the WAL refuse
// (they would serve it without the WAL's records); a clean Close writes
// Version back.
//
// Opening is strict: a missing file is an error unless Init is set (which
// creates it, and refuses a file that exists — or a WAL left without its
// database); a file that is not a coordinator database, or whose records
// do not decode, is an error naming the file and the record — never a
// silent empty state; Open checks every record before it writes anything.
// The WAL's header carries a random identity, new at every open, that the
// database's meta also holds: another database's WAL (a copy's too), a WAL
// beside a database that has none, and a missing WAL beside a database not
// closed cleanly are refused. Each checkpoint also stores where the last
// record it applied ends (which WAL, which offset, under which identity;
// a position of another identity is not checked): WALs that neither
// continue past that record nor still hold it there — a restored older
// copy, whose records the database already holds, while the acknowledged
// changes of the WALs it replaced are lost — are refused naming the WAL
// (a copy newer than the last checkpoint but older than the crash cannot
// be told from the real WALs: the database knows of no later record). Beside a database marked clean the WALs hold
// nothing it lacks: they are ignored and created again (each under a
// temporary name, renamed once its header is synced). Options.NoWAL commits each batch straight into
// bbolt (the path before the WAL, for comparison) and refuses a database
// not closed cleanly.
//
// A record is json.Marshal's bytes of its coord.Job or coord.Meta (old
// databases and logs are read back with encoding/json), appended by hand
// (record.go); a value it cannot write exactly as json does goes through
// encoding/json, errors included.
//
// Complexity: a commit costs O(changed jobs) plus one fdatasync of the
// record's bytes; a checkpoint O(bytes of WAL + distinct jobs changed ·
// log jobs) plus bbolt's two fsyncs, once per CheckpointBytes and off the
// commit's path; opening reads both WALs whole (O(its size), a scan past the log's end for a newer
// record) and Load is O(jobs + WAL records since the last checkpoint)
// time and memory.
package store
