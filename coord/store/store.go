package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
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
)

// Version is the database schema version.
const Version = "ckpt-coord/1"

// Options for Open.
type Options struct {
	// Init creates a new database; the file must not exist.
	Init bool
	// NoSync skips fsync (tests of throughput only; not durable).
	NoSync bool
}

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
	s = &Bolt{db: db, path: path}
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
			if v := string(m.Get(keyVersion)); v != Version {
				return fmt.Errorf("schema version %q, want %q", clip(v), Version)
			}
			return nil
		})
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	if !opt.Init {
		if _, _, err := s.Load(); err != nil { // every record readable: a damaged file is refused now, not when served
			db.Close()
			return nil, err
		}
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

// Close closes the database.
func (s *Bolt) Close() error { return s.db.Close() }

// Name is the database file.
func (s *Bolt) Name() string { return s.path }

// Load reads the whole state.
func (s *Bolt) Load() (meta coord.Meta, jobs []coord.Job, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faulted(&err)
	err = s.db.View(func(tx *bolt.Tx) error {
		if err := json.Unmarshal(tx.Bucket(bucketMeta).Get(keyState), &meta); err != nil {
			return fmt.Errorf("meta record: %w", err)
		}
		return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
			var j coord.Job
			if err := json.Unmarshal(v, &j); err != nil {
				return fmt.Errorf("job record %q: %w", clip(string(k)), err)
			}
			if j.Spec.ID != string(k) {
				return fmt.Errorf("job record %q holds job %q", clip(string(k)), clip(j.Spec.ID))
			}
			jobs = append(jobs, j)
			return nil
		})
	})
	if err != nil {
		return coord.Meta{}, nil, fmt.Errorf("database %s: %w", s.path, err)
	}
	return meta, jobs, nil
}

// Commit writes a sequence of changes, in order, in one transaction.
func (s *Bolt) Commit(chs ...coord.Changes) (err error) {
	if len(chs) == 0 {
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.faulted(&err)
	return s.db.Update(func(tx *bolt.Tx) error {
		s.recs.Reset()
		jb := tx.Bucket(bucketJobs)
		for _, ch := range chs {
			for _, j := range ch.Put {
				b, err := s.record(j)
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
		b, err := s.record(chs[len(chs)-1].Meta)
		if err != nil {
			return fmt.Errorf("meta record: %w", err)
		}
		return tx.Bucket(bucketMeta).Put(keyState, b)
	})
}

// record is v's JSON, json.Marshal's bytes, appended to the commit's
// buffer: no allocation per record once the buffer has grown. The slice
// stays valid until the next commit resets the buffer (a buffer that
// grows leaves the earlier records in the array they were written to).
func (s *Bolt) record(v any) ([]byte, error) {
	start := s.recs.Len()
	if err := s.enc.Encode(v); err != nil { // Marshal's encoding (HTML escaped), and a newline
		return nil, err
	}
	b := s.recs.Bytes()
	return b[start : len(b)-1 : len(b)-1], nil
}
