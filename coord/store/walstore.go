package store

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	bolt "go.etcd.io/bbolt"
)

// walPos is where a record ends: in WAL file (0: <db>.wal, 1:
// <db>.wal2), at offset end (0: no record).
type walPos struct {
	file int
	end  int64
}

func (p walPos) bytes() []byte {
	return binary.BigEndian.AppendUint64([]byte{byte(p.file)}, uint64(p.end))
}

// walMeta reads the database's WAL identity, last applied sequence and
// clean flag, and sets s.lastPos to where that sequence ends (if known:
// written under that identity).
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
		// The position is a safety net, not the state: one written under
		// another identity than the database's (by a binary that does not
		// keep it) or in another form (an older or newer binary's) is
		// unknown and not checked, never a reason to refuse the database.
		if v := m.Get(keyWALPos); len(v) == 9+walIDLen && v[0] <= 1 && binary.BigEndian.Uint64(v[1:9]) <= 1<<62 {
			if id != nil && string(v[9:]) == string(id) {
				s.lastPos = walPos{int(v[0]), int64(binary.BigEndian.Uint64(v[1:9]))}
			}
		}
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
		return fmt.Errorf("database %s was not closed cleanly: its WAL %s may hold changes it lacks (open it once with the WAL)", s.path, walPaths(s.path)[0])
	}
	return nil
}

// openWALOf opens the database's two WALs (if the database may lack what
// they hold: it was not closed cleanly), replays the records newer than
// the database and checks the whole state before anything is written.
// Then, in one transaction, it applies them under a new identity, marked
// clean; creates fresh WALs with that identity (each under a temporary
// name, renamed); and marks the database as having its WALs in use (not
// clean, VersionWAL) in another transaction. A crash at any point of that
// leaves either the old state or a clean database, whose WALs hold
// nothing it lacks: they are ignored and created again. A new identity per
// open also keeps a copy of a database from taking its original's WALs.
func (s *Bolt) openWALOf(opt Options) (err error) {
	id, applied, clean, err := s.walMeta()
	if err != nil {
		return err
	}
	s.ckptDone = sync.NewCond(&s.mu)
	s.seq = applied
	defer func() {
		if err != nil {
			s.closeWALs()
		}
	}()
	switch {
	case !clean && id != nil:
		if err := s.replay(id, applied, opt.NoSync); err != nil {
			return err
		}
	case !clean: // a database from before the WAL: no WAL is its
		for _, wp := range walPaths(s.path) {
			if _, err := os.Lstat(wp); err == nil || !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("WAL %s is not the WAL of database %s (the database has no WAL identity)", wp, s.path)
			}
		}
	}
	if _, _, err := s.Load(); err != nil { // every record readable: a damaged file is refused now, not when served, and before it is written
		return err
	}
	s.walID = make([]byte, walIDLen)
	rand.Read(s.walID)
	s.lastPos = walPos{} // the replayed logs' position means nothing under the new identity
	if err := s.checkpointAll("1"); err != nil {
		return err
	}
	s.closeWALs()
	for i, wp := range walPaths(s.path) {
		// A new WAL gets its zeros now (unless fsync is off), so that no
		// commit of its first round grows the file: a grown file's
		// fdatasync also writes its size and the zeros. On a disk without
		// the room it grows on demand.
		var pre int64
		if !opt.NoSync {
			pre = min(s.ckptBytes, maxPrealloc) + walChunk
		}
		if s.wals[i], err = createWAL(wp, s.walID, opt.NoSync, pre); err != nil {
			return fmt.Errorf("WAL %s: %w", wp, err)
		}
	}
	s.act, s.lastPos = 0, walPos{}
	return s.apply(nil, s.seq, "0", s.lastPos)
}

// closeWALs closes the open WALs' files and forgets them.
func (s *Bolt) closeWALs() {
	for _, w := range s.wals {
		if w != nil {
			w.f.Close()
		}
	}
	s.wals = [2]*wal{}
}

// replay opens both WALs of a database not closed cleanly (id its
// identity, applied the last sequence it holds) and gathers their records
// newer than the database, in sequence order, as the first WAL's pending
// records.
func (s *Bolt) replay(id []byte, applied uint64, noSync bool) (err error) {
	var scans [2][]walRecord
	var runs [2]walScan
	for i, wp := range walPaths(s.path) {
		if _, statErr := os.Lstat(wp); statErr != nil {
			if errors.Is(statErr, fs.ErrNotExist) {
				return fmt.Errorf("WAL %s of database %s is missing and the database was not closed cleanly: acknowledged changes may be in it (restore it beside the database)", wp, s.path)
			}
			return fmt.Errorf("WAL %s: %w", wp, statErr)
		}
		var data []byte
		if s.wals[i], data, err = openWAL(wp, id, noSync); err != nil {
			return fmt.Errorf("WAL %s: %w", wp, err)
		}
		sc, err := scanWAL(data, applied)
		if err != nil {
			return fmt.Errorf("WAL %s is corrupt: %w", wp, err)
		}
		if sc.torn >= 0 {
			s.log.Warn("WAL: discarded a torn record at its end (a crash during its append; never acknowledged)", "wal", wp, "offset", sc.torn, "sequence", sc.last+1)
		}
		scans[i], runs[i] = sc.records, sc
	}
	if err := s.checkNotOlder(runs, applied); err != nil {
		return err
	}
	// The records of both, in sequence order, continue the database's.
	a, b, first := scans[0], scans[1], 0
	if len(a) == 0 || (len(b) > 0 && b[0].seq < a[0].seq) {
		a, b, first = b, a, 1
	}
	w := s.wals[0]
	for k, part := range [2][]walRecord{a, b} {
		for _, r := range part {
			if r.seq != s.seq+1 {
				return fmt.Errorf("WAL %s is corrupt: record at offset %d has sequence %d, want %d: records are missing", walPaths(s.path)[(first+k)%2], r.off, r.seq, s.seq+1)
			}
			w.pend = append(w.pend, r.payload...)
			s.seq = r.seq
		}
	}
	return nil
}

// checkNotOlder refuses WALs (runs: what reading them found) older than
// the database, which has applied their records up to sequence applied,
// the last ending at s.lastPos: either a WAL continues past applied, or
// the WAL the database checkpointed last still holds that record where it
// ended. A restored older copy of the WALs holds neither (its records end
// before applied): served, it would silently lose the acknowledged
// changes the replaced WALs held after the database's. Newer WALs than a
// database are not refused (it cannot know of records after its own).
func (s *Bolt) checkNotOlder(runs [2]walScan, applied uint64) error {
	p := s.lastPos
	if p.end == 0 || len(runs[0].records)+len(runs[1].records) > 0 {
		return nil
	}
	if r := runs[p.file]; r.runLast == applied && int64(r.end) == p.end {
		return nil
	}
	r := runs[p.file]
	return fmt.Errorf("WAL %s is older than database %s: the database holds its records up to sequence %d, ending at offset %d, and the WAL's records end at sequence %d, offset %d (a restored older copy? put back the WALs that were beside the database)",
		walPaths(s.path)[p.file], s.path, applied, p.end, r.runLast, r.end)
}

// maxPrealloc bounds the zeros written at open per WAL.
const maxPrealloc = 64 << 20

// commitWAL appends chs as one record to the active WAL and syncs it;
// once that WAL has grown past its bound it starts a checkpoint. s.mu
// orders it with loads and checkpoints.
func (s *Bolt) commitWAL(chs []coord.Changes) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	w := s.wals[s.act]
	s.recs.Reset()
	r := append(w.rec[:0], make([]byte, recHeaderLen)...)
	for _, ch := range chs {
		for i := range ch.Put {
			j := &ch.Put[i]
			b, err := s.recordJob(j)
			if err != nil {
				return fmt.Errorf("job %q: %w", j.Spec.ID, err)
			}
			r = appendField(appendField(append(r, 'P'), []byte(j.Spec.ID)), b)
		}
		for _, id := range ch.Delete {
			r = appendField(append(r, 'D'), []byte(id))
		}
	}
	b, err := s.recordMeta(&chs[len(chs)-1].Meta)
	if err != nil {
		return fmt.Errorf("meta record: %w", err)
	}
	w.rec = appendField(append(r, 'M'), b)
	if cap(w.pend) == 0 {
		// a round's payloads (about CheckpointBytes) in one buffer from
		// the start: grown by append's 1.25× steps, a round's 8 MiB were
		// copied about four times over (the pages a buffer never uses are
		// never touched); clamped first, so that a CheckpointBytes near
		// MaxInt64 (never) or negative (every commit) cannot overflow
		c := min(max(s.ckptBytes, 0), maxPendPrealloc)
		w.pend = make([]byte, 0, c+c/8)
	}
	if err := w.append(s.seq + 1); err != nil {
		err = fmt.Errorf("WAL %s: %w", w.path, err)
		if errors.Is(err, errFailStop) {
			// The record may be on disk: the database, marked clean
			// without it, makes every WAL ignored from now on.
			s.failed = err
			if cerr := s.checkpointAll("1"); cerr != nil {
				s.log.Error("WAL: marking the database clean after a failed append failed: a crash now may replay the refused record", "err", cerr)
			}
		}
		return err
	}
	s.seq++
	s.lastPos = walPos{s.act, w.off}
	if w.off-int64(walHeaderLen) >= s.ckptBytes {
		s.startCheckpoint()
	}
	return nil
}

// maxPendPrealloc bounds the buffer a WAL's pending payloads start with.
const maxPendPrealloc = 64 << 20

// ckptRun is a checkpoint in the background: the records (payloads) it
// applies, up to sequence seq.
type ckptRun struct {
	pend []byte
	seq  uint64
	pos  walPos // where record seq ends
	done bool
	err  error
}

// startCheckpoint (s.mu held) applies the active WAL's records to the
// database in the background, commits going on meanwhile to the other
// WAL, whose records are all in the database (its checkpoint ended). It
// does nothing while a checkpoint is under way (the active WAL grows
// meanwhile), and after a failed one it tries that one again, without
// switching.
func (s *Bolt) startCheckpoint() {
	run := s.ckpt
	switch {
	case run != nil && !run.done:
		return
	case run != nil: // failed: its records are still only in the other WAL
		if time.Now().Before(s.retryAt) {
			return
		}
		run.done, run.err = false, nil
	default:
		old := s.wals[s.act]
		run = &ckptRun{pend: old.pend, seq: s.seq, pos: s.lastPos}
		s.act = 1 - s.act
		nw := s.wals[s.act]
		old.pend, nw.pend, nw.off = nil, s.spare[:0], int64(walHeaderLen)
		s.spare = nil
		s.ckpt = run
	}
	go func() {
		err := func() (err error) {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer s.faulted(&err)
			return s.apply(run.pend, run.seq, "", run.pos)
		}()
		s.mu.Lock()
		defer s.mu.Unlock()
		run.done, run.err = true, err
		switch {
		case err == nil:
			s.ckpt, s.spare = nil, run.pend[:0]
			if s.backoff > 0 {
				s.log.Info("WAL checkpoint succeeded again")
			}
			s.backoff = 0
		default: // logged once until a success; tried again after a backoff
			if s.backoff == 0 {
				s.log.Error("WAL checkpoint failed: commits go on in the other WAL; it is tried again, from 100 ms to every 10 s, until one succeeds", "err", err)
			}
			s.backoff = min(max(2*s.backoff, ckptRetryMin), ckptRetryMax)
			s.retryAt = time.Now().Add(s.backoff)
		}
		s.ckptDone.Broadcast()
	}()
}

// The wait before a failed checkpoint is tried again doubles from
// ckptRetryMin to ckptRetryMax.
const (
	ckptRetryMin = 100 * time.Millisecond
	ckptRetryMax = 10 * time.Second
)

// checkpointAll (s.mu held, or during Open) waits for a checkpoint under
// way, then applies every record not yet in the database (a failed
// checkpoint's and the active WAL's) and the clean flag, and writes the
// active WAL again from its start.
func (s *Bolt) checkpointAll(flag string) error {
	for s.ckpt != nil && !s.ckpt.done {
		s.ckptDone.Wait()
	}
	w := s.wals[s.act]
	var pend []byte
	if w != nil { // nil at open when no WAL was read
		pend = w.pend
	}
	if s.ckpt != nil {
		pend = append(slices.Clip(s.ckpt.pend), pend...)
	}
	if err := s.apply(pend, s.seq, flag, s.lastPos); err != nil {
		return err
	}
	s.ckpt = nil
	if w != nil {
		w.pend, w.off = w.pend[:0], int64(walHeaderLen)
	}
	return nil
}

// pending (s.mu held) is the net effect of the records not yet in the
// database: each job's last record (nil if its last operation deleted it)
// and the last meta record; nil if there are none.
func (s *Bolt) pending() (map[string][]byte, []byte) {
	var parts [][]byte
	if s.ckpt != nil {
		parts = append(parts, s.ckpt.pend)
	}
	if p := s.wals[s.act].pend; len(p) > 0 {
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return coalesce(parts...)
}

// coalesce is the net effect of the operations of payloads, in order:
// each job's last record (nil if its last operation deleted it) and the
// last meta record. The slices point into the payloads.
func coalesce(payloads ...[]byte) (map[string][]byte, []byte) {
	over := make(map[string][]byte)
	var meta []byte
	for _, p := range payloads {
		parseOps(p, true, func(op walOp) {
			switch op.tag {
			case 'P':
				over[string(op.id)] = op.value
			case 'D':
				over[string(op.id)] = nil
			case 'M':
				meta = op.value
			}
		})
	}
	return over, meta
}

// checkpointHook, if set (by tests), is called inside a checkpoint's
// bbolt transaction before it commits ("applying"; an error rolls the
// transaction back: a crash before its commit) and after it committed
// ("applied").
var checkpointHook func(phase string) error

// applyFailHook, if set (by tests), is called by apply first; an error
// fails the checkpoint (a full disk).
var applyFailHook func() error

// apply writes the net effect of pend (records up to sequence seq, the
// last ending at pos) to the database in one ordinary bbolt transaction
// (its fsyncs), with seq and pos as the last sequence applied and where it
// ends and, unless flag is "", the clean flag (1: every change is in the
// database and no WAL is in use).
func (s *Bolt) apply(pend []byte, seq uint64, flag string, pos walPos) error {
	var over map[string][]byte
	var meta []byte
	if len(pend) > 0 {
		over, meta = coalesce(pend)
	} else if flag == "" {
		return nil
	}
	if applyFailHook != nil {
		if err := applyFailHook(); err != nil {
			return fmt.Errorf("database %s: checkpoint: %w", s.path, err)
		}
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
		if err := mb.Put(keyWALSeq, binary.BigEndian.AppendUint64(nil, seq)); err != nil {
			return err
		}
		if err := mb.Put(keyWALPos, append(pos.bytes(), s.walID...)); err != nil {
			return err
		}
		if flag != "" {
			if err := mb.Put(keyWALClean, []byte(flag)); err != nil {
				return err
			}
			v := VersionWAL // older binaries refuse it: the WALs may hold changes
			if flag == "1" {
				v = Version
			}
			if err := mb.Put(keyVersion, []byte(v)); err != nil {
				return err
			}
			if err := mb.Put(keyWALID, s.walID); err != nil {
				return err
			}
		}
		if checkpointHook != nil {
			return checkpointHook("applying")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("database %s: checkpoint: %w", s.path, err)
	}
	if checkpointHook != nil {
		return checkpointHook("applied")
	}
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
