package store

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/ckpt-hpc/ckpt/coord"
	bolt "go.etcd.io/bbolt"
)

// walMeta reads the database's WAL identity, last applied sequence and
// clean flag.
func (s *Bolt) walMeta() (id []byte, applied uint64, clean bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if v := m.Get(keyWALID); v != nil {
			if len(v) != walIDLen {
				return fmt.Errorf("WAL identity of %d bytes, want %d", len(v), walIDLen)
			}
			id = slices.Clone(v)
		}
		if v := m.Get(keyWALSeq); v != nil {
			if len(v) != 8 {
				return fmt.Errorf("WAL sequence of %d bytes, want 8", len(v))
			}
			applied = binary.BigEndian.Uint64(v)
		}
		clean = string(m.Get(keyWALClean)) == "1"
		return nil
	})
	if err != nil {
		err = fmt.Errorf("database %s: %w", s.path, err)
	}
	return id, applied, clean, err
}

// checkNoWAL refuses, for Options.NoWAL, a database whose WAL may hold
// changes it lacks.
func (s *Bolt) checkNoWAL() error {
	id, _, clean, err := s.walMeta()
	if err != nil {
		return err
	}
	if id != nil && !clean {
		return fmt.Errorf("database %s was not closed cleanly: its WAL %s may hold changes it lacks (open it once with the WAL)", s.path, walPath(s.path))
	}
	return nil
}

// openWALOf opens (or creates) the database's WAL, replays the records
// newer than the database and checkpoints them at once, marking the
// database as having a WAL in use (not clean).
func (s *Bolt) openWALOf(opt Options) error {
	id, applied, clean, err := s.walMeta()
	if err != nil {
		return err
	}
	wp := walPath(s.path)
	_, statErr := os.Lstat(wp)
	exists := statErr == nil
	switch {
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("WAL %s: %w", wp, statErr)
	case id == nil && exists:
		return fmt.Errorf("WAL %s is not the WAL of database %s (the database has no WAL identity)", wp, s.path)
	case id != nil && !exists && !clean:
		return fmt.Errorf("WAL %s of database %s is missing and the database was not closed cleanly: acknowledged changes may be in it (restore it beside the database)", wp, s.path)
	}
	if id == nil { // a database written without a WAL: it gets an identity before its WAL exists
		id = make([]byte, walIDLen)
		rand.Read(id)
		err = s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyWALID, id) })
		if err != nil {
			return fmt.Errorf("database %s: %w", s.path, err)
		}
	}
	s.walID = id
	var w *wal
	if !exists {
		if w, err = createWAL(wp, id, opt.NoSync); err != nil {
			return fmt.Errorf("WAL %s: %w", wp, err)
		}
		w.seq = applied
	} else {
		var data []byte
		if w, data, err = openWAL(wp, id, opt.NoSync); err != nil {
			return fmt.Errorf("WAL %s: %w", wp, err)
		}
		sc, err := scanWAL(data, applied)
		if err != nil {
			w.f.Close()
			return fmt.Errorf("WAL %s is corrupt: %w", wp, err)
		}
		if sc.torn >= 0 {
			s.log.Warn("WAL: discarded a torn record at its end (a crash during its append; never acknowledged)", "wal", wp, "offset", sc.torn, "sequence", sc.last+1)
		}
		for _, r := range sc.records {
			w.pend = append(w.pend, r.payload...)
		}
		w.seq = sc.last
	}
	s.wal = w
	if err := s.checkpoint("0"); err != nil {
		w.f.Close()
		return err
	}
	return nil
}

// commitWAL appends chs as one WAL record, syncs it, and checkpoints once
// the WAL has grown past its bound. s.mu orders it with loads and
// checkpoints.
func (s *Bolt) commitWAL(chs []coord.Changes) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.wal
	s.recs.Reset()
	r := append(w.rec[:0], make([]byte, recHeaderLen)...)
	for _, ch := range chs {
		for _, j := range ch.Put {
			b, err := s.record(j)
			if err != nil {
				return fmt.Errorf("job %q: %w", j.Spec.ID, err)
			}
			r = appendField(appendField(append(r, 'P'), []byte(j.Spec.ID)), b)
		}
		for _, id := range ch.Delete {
			r = appendField(append(r, 'D'), []byte(id))
		}
	}
	b, err := s.record(chs[len(chs)-1].Meta)
	if err != nil {
		return fmt.Errorf("meta record: %w", err)
	}
	w.rec = appendField(append(r, 'M'), b)
	if err := w.append(); err != nil {
		return fmt.Errorf("WAL %s: %w", w.path, err)
	}
	if w.off-int64(walHeaderLen) >= s.ckptBytes {
		// The batch is durable in the WAL: a failed checkpoint does not
		// fail it, and the next commit tries again.
		err := s.checkpoint("")
		if err != nil && s.ckptErr == nil {
			s.log.Error("WAL checkpoint failed: the WAL keeps growing until one succeeds", "err", err)
		}
		s.ckptErr = err
	}
	return nil
}

// coalesce is the net effect of the operations in w.pend: each job's
// last record (nil if its last operation deleted it) and the last meta
// record. The slices point into w.pend.
func (w *wal) coalesce() (map[string][]byte, []byte) {
	over := make(map[string][]byte)
	var meta []byte
	parseOps(w.pend, true, func(op walOp) {
		switch op.tag {
		case 'P':
			over[string(op.id)] = op.value
		case 'D':
			over[string(op.id)] = nil
		case 'M':
			meta = op.value
		}
	})
	return over, meta
}

// checkpointHook, if set (by tests), is called inside a checkpoint's
// bbolt transaction before it commits ("applying") and after it
// committed, before the WAL is written from its start again ("applied").
var checkpointHook func(phase string)

// checkpoint (s.mu held, or during Open) applies the WAL's records to the
// database in one ordinary bbolt transaction (its fsyncs), with the last
// sequence applied, and then writes the WAL again from its start. With
// flag "" it does nothing when no record is pending; "0" or "1" also sets
// the clean flag (1: every change is in the database and the WAL is not in
// use).
func (s *Bolt) checkpoint(flag string) error {
	w := s.wal
	if len(w.pend) == 0 && flag == "" {
		return nil
	}
	var over map[string][]byte
	var meta []byte
	if len(w.pend) > 0 {
		over, meta = w.coalesce()
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		jb, mb := tx.Bucket(bucketJobs), tx.Bucket(bucketMeta)
		for id, v := range over {
			var err error
			if v == nil {
				err = jb.Delete([]byte(id))
			} else {
				err = jb.Put([]byte(id), v)
			}
			if err != nil {
				return err
			}
		}
		if meta != nil {
			if err := mb.Put(keyState, meta); err != nil {
				return err
			}
		}
		if err := mb.Put(keyWALSeq, binary.BigEndian.AppendUint64(nil, w.seq)); err != nil {
			return err
		}
		if flag != "" {
			if err := mb.Put(keyWALClean, []byte(flag)); err != nil {
				return err
			}
		}
		if checkpointHook != nil {
			checkpointHook("applying")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("database %s: checkpoint of WAL %s: %w", s.path, w.path, err)
	}
	if checkpointHook != nil {
		checkpointHook("applied")
	}
	w.pend, w.off = w.pend[:0], int64(walHeaderLen)
	return nil
}

// loadOver decodes the jobs of tx with the WAL's later records over them
// (the caller sorts them into the database's key order).
func loadOver(tx *bolt.Tx, over map[string][]byte, decode func(k, v []byte) error) error {
	err := tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
		if _, ok := over[string(k)]; ok {
			return nil
		}
		return decode(k, v)
	})
	if err != nil {
		return err
	}
	for id, v := range over {
		if v != nil {
			if err := decode([]byte(id), v); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortJobs(jobs []coord.Job) {
	slices.SortFunc(jobs, func(a, b coord.Job) int { return cmp.Compare(a.Spec.ID, b.Spec.ID) })
}
