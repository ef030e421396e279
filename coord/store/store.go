package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

var (
	bucketMeta = []byte("meta")
	bucketJobs = []byte("jobs")
	keyVersion = []byte("version")
	keyState   = []byte("state")
	// The WAL's identity (16 random bytes, also in the WAL's header; new at
	// every open), the
	// last WAL sequence the database holds (8 bytes, big endian), and
	// "1" once a clean Close left every change in the database.
	keyWALID    = []byte("wal-id")
	keyWALSeq   = []byte("wal-seq")
	keyWALClean = []byte("wal-clean")
	// Where the last record applied ends: the WAL (1 byte, 0 or 1), the
	// offset after the record (8 bytes, big endian; 0: no record of the
	// current WALs is applied yet) and the WAL identity it was written
	// under (16 bytes; another than keyWALID's: the position is unknown).
	keyWALPos = []byte("wal-pos")
)

// Version is the database schema version.
const Version = "ckpt-coord/1"

// VersionWAL is the schema version while the WALs are in use (the
// database not clean): binaries from before the WAL want Version exactly,
// so they refuse a database whose WAL may hold changes it lacks instead of
// serving it without them. A clean Close writes Version back.
const VersionWAL = "ckpt-coord/1+wal"

// Options for Open.
type Options struct {
	// Init creates a new database; the file must not exist.
	Init bool
	// NoSync skips fsync, the WAL's too (tests of throughput only; not
	// durable).
	NoSync bool
	// NoWAL commits each batch straight into the database (bbolt's two
	// fsyncs per commit), the path before the write-ahead log: kept for
	// comparison. It refuses a database whose WAL may hold changes (one
	// not closed cleanly).
	NoWAL bool
	// CheckpointBytes is the size of records in the WAL receiving
	// commits past which the commits move to the other WAL while its
	// records are applied to the database in the background; 0 means
	// DefaultCheckpointBytes.
	CheckpointBytes int64
	// Log receives a line when opening discards a torn WAL record; nil
	// means slog.Default().
	Log *slog.Logger
}

// DefaultCheckpointBytes is the WAL size that triggers a checkpoint.
const DefaultCheckpointBytes = 8 << 20

// Store is what the coordinator needs of its persistence: the state at
// start and a durable commit of each batch of changes, in order. The
// server and the Writer depend on this interface only, so another store
// (a replicated one, say) can replace the bbolt file without touching
// them.
type Store interface {
	// Load reads the whole committed state.
	Load() (coord.Meta, []coord.Job, error)
	// Commit makes a sequence of changes durable, in order, all or none;
	// the meta record of the last one is the new meta record.
	Commit(chs ...coord.Changes) error
	// Name names the store in messages (a file's path).
	Name() string
}

// Bolt is an open coordinator database in a bbolt file; it implements
// Store.
type Bolt struct {
	db   *bolt.DB
	path string
	// recs holds a commit's encoded records (bbolt keeps a value until
	// the transaction ends); reused, under bbolt's writer lock.
	recs bytes.Buffer
	enc  *json.Encoder

	// With the WAL (nil with Options.NoWAL): mu orders commits, loads and
	// checkpoints.
	mu        sync.Mutex
	wals      [2]*wal
	act       int    // the WAL receiving commits
	seq       uint64 // the last record's sequence
	lastPos   walPos // where it ends
	walID     []byte
	ckptBytes int64
	ckpt      *ckptRun      // the checkpoint under way (or failed), nil if none
	ckptDone  *sync.Cond    // on mu: a checkpoint ended
	spare     []byte        // a finished checkpoint's buffer, for the next swap
	failed    error         // a failed append that could not be erased: commits refused
	backoff   time.Duration // the wait after the last failed checkpoint (0: none failed since a success)
	retryAt   time.Time     // a failed checkpoint is not tried again before
	log       *slog.Logger
}

var _ Store = (*Bolt)(nil)

// Open opens the database at path (see the package comment for the
// rules on missing and corrupt files).
func Open(path string, opt Options) (s *Bolt, err error) {
	fi, statErr := os.Stat(path)
	switch {
	case !opt.Init && statErr == nil && fi.Size() == 0:
		// bbolt writes a fresh database into an empty file: the file
		// would be changed by a command that only meant to read it.
		return nil, fmt.Errorf("database %s is an empty file, not a ckpt coordinator database (start with --init on a new path to create one)", path)
	case opt.Init && statErr == nil:
		return nil, fmt.Errorf("database %s already exists: --init creates a new one only", path)
	case !opt.Init && errors.Is(statErr, fs.ErrNotExist):
		return nil, fmt.Errorf("database %s does not exist (start once with --init to create it)", path)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return nil, fmt.Errorf("database %s: %w", path, statErr)
	}
	if opt.Init && !opt.NoWAL {
		for _, wp := range walPaths(path) {
			if _, err := os.Lstat(wp); err == nil {
				return nil, fmt.Errorf("WAL %s exists without its database %s: --init creates a new one only (remove the WAL if it is stale)", wp, path)
			}
		}
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a damaged page may point outside the file
	defer func() {
		if r := recover(); r != nil { // bbolt panics on some corrupt pages
			s, err = nil, fmt.Errorf("database %s is corrupt: %v", path, r)
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: opt.NoSync})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("database %s is locked by another process", path)
		}
		return nil, fmt.Errorf("database %s is not a usable bbolt file: %w", path, err)
	}
	s = &Bolt{db: db, path: path, log: cmp.Or(opt.Log, slog.Default()), ckptBytes: cmp.Or(opt.CheckpointBytes, DefaultCheckpointBytes)}
	s.enc = json.NewEncoder(&s.recs)
	if opt.Init {
		err = db.Update(func(tx *bolt.Tx) error {
			m, err := tx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			if _, err := tx.CreateBucket(bucketJobs); err != nil {
				return err
			}
			if err := m.Put(keyVersion, []byte(Version)); err != nil {
				return err
			}
			if !opt.NoWAL {
				if err := m.Put(keyWALClean, []byte("1")); err != nil { // no WAL yet: openWALOf creates it
					return err
				}
			}
			b, err := json.Marshal(coord.Meta{})
			if err != nil {
				return err
			}
			return m.Put(keyState, b)
		})
	} else {
		err = db.View(func(tx *bolt.Tx) error {
			m := tx.Bucket(bucketMeta)
			if m == nil || tx.Bucket(bucketJobs) == nil {
				return errors.New("not a ckpt coordinator database (no meta or jobs bucket)")
			}
			if v := string(m.Get(keyVersion)); v != Version && v != VersionWAL {
				return fmt.Errorf("schema version %q, want %q or %q", clip(v), Version, VersionWAL)
			}
			return nil
		})
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	if opt.NoWAL {
		if err = s.checkNoWAL(); err == nil && !opt.Init {
			_, _, err = s.Load() // every record readable: a damaged file is refused now, not when served
		}
	} else {
		err = s.openWALOf(opt) // which checks every record before it writes
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// faulted turns a panic of bbolt on a damaged page (with
// debug.SetPanicOnFault, also a read outside the mapped file) into err.
func (s *Bolt) faulted(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("database %s is corrupt: %v", s.path, r)
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Close checkpoints the WAL (so that the database alone holds every
// change, and says so) and closes the database.
func (s *Bolt) Close() error {
	var err error
	if s.wals[0] != nil {
		s.mu.Lock()
		err = s.checkpointAll("1")
		for _, w := range s.wals {
			err = errors.Join(err, w.f.Close())
		}
		s.mu.Unlock()
	}
	return errors.Join(err, s.db.Close())
}

// Name is the database file.
func (s *Bolt) Name() string { return s.path }

// Load reads the whole state: the database's, and with the WAL the
// changes of the records not yet checkpointed over it.
func (s *Bolt) Load() (meta coord.Meta, jobs []coord.Job, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faulted(&err)
	var over map[string][]byte // a WAL's later records: id -> record (nil: deleted)
	var overMeta []byte
	if s.wals[0] != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		over, overMeta = s.pending()
	}
	decode := func(k, v []byte) error {
		var j coord.Job
		if err := json.Unmarshal(v, &j); err != nil {
			return fmt.Errorf("job record %q: %w", clip(string(k)), err)
		}
		if j.Spec.ID != string(k) {
			return fmt.Errorf("job record %q holds job %q", clip(string(k)), clip(j.Spec.ID))
		}
		jobs = append(jobs, j)
		return nil
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		mb := tx.Bucket(bucketMeta).Get(keyState)
		if overMeta != nil {
			mb = overMeta
		}
		if err := json.Unmarshal(mb, &meta); err != nil {
			return fmt.Errorf("meta record: %w", err)
		}
		if over != nil {
			return loadOver(tx, over, decode)
		}
		return tx.Bucket(bucketJobs).ForEach(decode)
	})
	if err != nil {
		return coord.Meta{}, nil, fmt.Errorf("database %s: %w", s.path, err)
	}
	if over != nil {
		sortJobs(jobs)
	}
	return meta, jobs, nil
}

// Commit makes a sequence of changes durable, in order, all or none: one
// WAL record and its fdatasync (a checkpoint first applies the WAL to the
// database once it has grown past Options.CheckpointBytes), or with
// Options.NoWAL one bbolt transaction.
func (s *Bolt) Commit(chs ...coord.Changes) (err error) {
	if len(chs) == 0 {
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faulted(&err)
	if s.wals[0] != nil {
		return s.commitWAL(chs)
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		s.recs.Reset()
		jb := tx.Bucket(bucketJobs)
		for _, ch := range chs {
			for i := range ch.Put {
				j := &ch.Put[i]
				b, err := s.recordJob(j)
				if err != nil {
					return fmt.Errorf("job %q: %w", j.Spec.ID, err)
				}
				if err := jb.Put([]byte(j.Spec.ID), b); err != nil {
					return err
				}
			}
			for _, id := range ch.Delete {
				if err := jb.Delete([]byte(id)); err != nil {
					return err
				}
			}
		}
		b, err := s.recordMeta(&chs[len(chs)-1].Meta)
		if err != nil {
			return fmt.Errorf("meta record: %w", err)
		}
		return tx.Bucket(bucketMeta).Put(keyState, b)
	})
}

// recordJob is job j's record, json.Marshal's bytes, appended to the
// commit's buffer with a newline: by hand (appendJob) or else by
// encoding/json; no allocation per record once the buffer has grown. The
// slice stays valid until the next commit resets the buffer (a buffer
// that grows leaves the earlier records in the array they were written
// to).
func (s *Bolt) recordJob(j *coord.Job) ([]byte, error) {
	start := s.recs.Len()
	b, ok := appendJob(s.recs.AvailableBuffer(), j)
	return s.kept(start, b, ok, j)
}

// recordMeta is recordJob for the meta record.
func (s *Bolt) recordMeta(m *coord.Meta) ([]byte, error) {
	start := s.recs.Len()
	b, ok := appendMeta(s.recs.AvailableBuffer(), m)
	return s.kept(start, b, ok, m)
}

// kept keeps the record b appended by hand (ok), or else encodes v (a
// pointer: json writes its value's bytes) with encoding/json, and returns
// the record, without the newline, from the buffer.
func (s *Bolt) kept(start int, b []byte, ok bool, v any) ([]byte, error) {
	if ok {
		s.recs.Write(append(b, '\n'))
	} else if err := s.enc.Encode(v); err != nil { // Marshal's encoding (HTML escaped), and a newline
		return nil, err
	}
	b = s.recs.Bytes()
	return b[start : len(b)-1 : len(b)-1], nil
}
