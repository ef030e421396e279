package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"pgregory.net/rapid"
)

// crash abandons s as a killed process would: the files are closed and
// nothing more is written (no checkpoint).
func crash(s *Bolt) {
	s.mu.Lock()
	for _, w := range s.wals {
		if w != nil {
			w.f.Close()
		}
	}
	s.mu.Unlock()
	s.db.Close() // waits for a checkpoint's transaction under way: as if the crash came after it
}

// state is what s loads.
type state struct {
	Meta coord.Meta
	Jobs []coord.Job
}

func load(t interface{ Fatal(...any) }, s *Bolt) state {
	m, j, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	return state{m, j}
}

// randomBatch draws a batch of changes over a few job ids (so that puts
// overwrite, delete and re-create one another).
func randomBatch(t *rapid.T) []coord.Changes {
	var chs []coord.Changes
	for range rapid.IntRange(1, 4).Draw(t, "changes") {
		var ch coord.Changes
		for range rapid.IntRange(0, 4).Draw(t, "puts") {
			id := fmt.Sprint("job-", rapid.IntRange(0, 9).Draw(t, "id"))
			ch.Put = append(ch.Put, coord.Job{Spec: coord.JobSpec{ID: id, Nodes: rapid.IntRange(1, 1<<20).Draw(t, "nodes"), MTBF: 1},
				Checkpoints: rapid.IntRange(0, 99).Draw(t, "ckpts")})
		}
		for range rapid.IntRange(0, 2).Draw(t, "deletes") {
			ch.Delete = append(ch.Delete, fmt.Sprint("job-", rapid.IntRange(0, 9).Draw(t, "did")))
		}
		ch.Meta = coord.Meta{Token: rapid.Uint64().Draw(t, "token"), JobNum: rapid.IntRange(0, 1000).Draw(t, "num")}
		chs = append(chs, ch)
	}
	return chs
}

// The WAL store and the plain bbolt store (the oracle: every batch in its
// own bbolt transaction) given the same random commits load equal states
// — after every commit, after a clean reopen, and after a crash (the
// process gone without a checkpoint) at random points, also in the middle
// of a background checkpoint (inside its bbolt transaction, or after it
// committed and before the store learnt it), with checkpoints every few
// hundred bytes so that rounds of the WAL overwrite earlier ones.
func TestWALMatchesBolt(t *testing.T) {
	var armed ckptCrashPoint
	checkpointHook = armed.hook
	defer func() { checkpointHook = nil }()
	rapid.Check(t, func(t *rapid.T) {
		defer armed.arm("") // a failed run leaves no checkpoint waiting
		dir, err := os.MkdirTemp("", "walprop")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		opt := Options{NoSync: true, CheckpointBytes: int64(rapid.IntRange(1, 2000).Draw(t, "ckptBytes")),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))} // a crash closes the database under a checkpoint about to start: it fails, as it would
		path := filepath.Join(dir, "w.db")
		o := opt
		o.Init = true
		w, err := Open(path, o)
		if err != nil {
			t.Fatal(err)
		}
		orc, err := Open(filepath.Join(dir, "o.db"), Options{Init: true, NoSync: true, NoWAL: true})
		if err != nil {
			t.Fatal(err)
		}
		defer orc.Close()
		for i := range rapid.IntRange(1, 60).Draw(t, "steps") {
			chs := randomBatch(t)
			reopen := rapid.IntRange(0, 9).Draw(t, "reopen")
			var c *ckptCrash
			if reopen == 2 { // a crash inside the checkpoint this commit starts, if it starts one
				waitCheckpoint(w)
				c = armed.arm(rapid.SampledFrom([]string{"applying", "applied"}).Draw(t, "phase"))
			}
			if err := w.Commit(chs...); err != nil {
				t.Fatal(err)
			}
			if err := orc.Commit(chs...); err != nil {
				t.Fatal(err)
			}
			if got, want := load(t, w), load(t, orc); !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: WAL store loads\n%+v\nbbolt\n%+v", i, got, want)
			}
			switch {
			case reopen == 0:
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			case reopen == 1:
				crash(w)
			case reopen == 2 && checkpointing(w):
				c.crash(t, w)
			default:
				armed.arm("")
				continue
			}
			if w, err = Open(path, opt); err != nil {
				t.Fatal(err)
			}
			if got, want := load(t, w), load(t, orc); !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d, reopened: WAL store loads\n%+v\nbbolt\n%+v", i, got, want)
			}
		}
		w.Close()
	})
}

// ckptCrashPoint is a crash point inside a background checkpoint, for
// checkpointHook: armed, the next checkpoint reaching the phase waits
// there for the test to crash the store.
type ckptCrashPoint struct {
	mu sync.Mutex
	c  *ckptCrash
}

// ckptCrash is one armed crash point.
type ckptCrash struct {
	phase       string
	at, crashed chan struct{}
	once        sync.Once // closes crashed
	fired       bool      // the hook stopped at phase (under ckptCrashPoint.mu)
}

// arm arms the crash point at phase ("": disarmed).
func (p *ckptCrashPoint) arm(phase string) *ckptCrash {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil {
		p.c.once.Do(func() { close(p.c.crashed) })
	}
	p.c = nil
	if phase != "" {
		p.c = &ckptCrash{phase: phase, at: make(chan struct{}), crashed: make(chan struct{})}
	}
	return p.c
}

func (p *ckptCrashPoint) hook(phase string) error {
	p.mu.Lock()
	c := p.c
	fire := c != nil && c.phase == phase && !c.fired
	if fire {
		c.fired = true // once
	}
	p.mu.Unlock()
	if !fire {
		return nil
	}
	close(c.at)
	<-c.crashed
	return errors.New("crashed") // in "applying": the transaction rolls back, as after a crash before its commit
}

// checkpointing tells whether a checkpoint of s is under way.
func checkpointing(s *Bolt) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ckpt != nil && !s.ckpt.done
}

// crash waits until the checkpoint under way reaches c's phase, then
// abandons s there as a killed process would (the WALs' files closed,
// nothing more written; in "applying" the checkpoint's transaction does not
// commit).
func (c *ckptCrash) crash(t *rapid.T, s *Bolt) {
	select {
	case <-c.at:
	case <-time.After(10 * time.Second):
		t.Fatalf("the checkpoint under way did not reach %q", c.phase)
	}
	s.mu.Lock()
	for _, w := range s.wals {
		w.f.Close()
	}
	s.mu.Unlock()
	c.once.Do(func() { close(c.crashed) })
	s.db.Close()
}

// walRecords are the offsets and ends of the records of the WAL at path,
// read in order by their headers (an oracle independent of scanWAL).
func walRecords(t *testing.T, path string) (offs, ends []int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for off := walHeaderLen; off+recHeaderLen <= len(data); {
		l := int(binary.LittleEndian.Uint32(data[off:]))
		if l == 0 {
			break
		}
		offs, ends = append(offs, off), append(ends, off+recHeaderLen+l)
		off += recHeaderLen + l
	}
	return offs, ends
}

// history commits n random batches to a WAL store at dir/c.db (no
// checkpoint: every record stays in the WAL) and crashes it; it returns
// the states after each commit, from a plain bbolt store given the same
// batches (states[0] is the empty one).
func history(t *testing.T, dir string, n int) []state {
	w, err := Open(filepath.Join(dir, "c.db"), Options{Init: true, NoSync: true, CheckpointBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	orc, err := Open(filepath.Join(dir, "oracle.db"), Options{Init: true, NoSync: true, NoWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer orc.Close()
	states := []state{load(t, orc)}
	rapid.Check(t, func(rt *rapid.T) { // draws the batches once, deterministically
		if len(states) > 1 {
			return
		}
		for range n {
			chs := randomBatch(rt)
			if err := w.Commit(chs...); err != nil {
				rt.Fatal(err)
			}
			if err := orc.Commit(chs...); err != nil {
				rt.Fatal(err)
			}
			states = append(states, load(rt, orc))
		}
	})
	crash(w)
	return states
}

// copyDB writes the database and the given WAL bytes under a fresh name
// in dir and returns the database's path.
func copyDB(t *testing.T, dir, name string, wal []byte) string {
	db, err := os.ReadFile(filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	wal2, err := os.ReadFile(filepath.Join(dir, "c.db.wal2"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, db, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".wal2", wal2, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A crash during the last record's append — the WAL cut at every byte of
// that record, or its bytes from there on still zero (the file was
// preallocated) — loads the state without that record (it was never
// acknowledged); the complete record loads the state with it.
func TestWALTornTailDiscarded(t *testing.T) {
	dir := t.TempDir()
	states := history(t, dir, 5)
	wal, err := os.ReadFile(filepath.Join(dir, "c.db.wal"))
	if err != nil {
		t.Fatal(err)
	}
	offs, ends := walRecords(t, filepath.Join(dir, "c.db.wal"))
	if len(offs) != 5 {
		t.Fatalf("%d records, want 5", len(offs))
	}
	last, end := offs[4], ends[4]
	for cut := last; cut <= end; cut++ {
		want := states[4]
		if cut == end {
			want = states[5]
		}
		zeroed := append([]byte(nil), wal...)
		clear(zeroed[cut:end])
		for kind, b := range map[string][]byte{"cut": wal[:cut], "zeroed": zeroed} {
			p := copyDB(t, dir, "t.db", b)
			s, err := Open(p, Options{NoSync: true}) // the reading is the same; no 18 MiB of fresh logs written and synced per open
			if err != nil {
				t.Fatalf("%s at %d of record [%d,%d): %v", kind, cut, last, end, err)
			}
			if got := load(t, s); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s at %d of record [%d,%d): loads\n%+v\nwant\n%+v", kind, cut, last, end, got, want)
			}
			s.Close()
		}
	}
}

// A damaged record followed by complete ones — any byte of the second of
// four records flipped — is corruption: Open refuses it, naming the WAL
// and the damaged record's offset in one line, never loading the state
// before it.
func TestWALDamagedMiddleRefused(t *testing.T) {
	dir := t.TempDir()
	history(t, dir, 4)
	wal, err := os.ReadFile(filepath.Join(dir, "c.db.wal"))
	if err != nil {
		t.Fatal(err)
	}
	offs, ends := walRecords(t, filepath.Join(dir, "c.db.wal"))
	for i := offs[1]; i < ends[1]; i++ {
		b := append([]byte(nil), wal...)
		b[i] ^= 0x20
		p := copyDB(t, dir, "bad.db", b)
		s, err := Open(p, Options{})
		if err == nil {
			s.Close()
			t.Fatalf("byte %d of record [%d,%d) flipped: opened", i, offs[1], ends[1])
		}
		msg := err.Error()
		if !strings.Contains(msg, p+".wal") || !strings.Contains(msg, fmt.Sprint("offset ", offs[1])) || strings.Contains(msg, "\n") {
			t.Fatalf("byte %d flipped: %q does not name the WAL and offset %d in one line", i, msg, offs[1])
		}
	}
}

// openWith creates a database at p with opt (Init set) and commits
// put(id, n) to it.
func openWith(t *testing.T, p string, opt Options, id string, n int) *Bolt {
	t.Helper()
	opt.Init = true
	s, err := Open(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(put(id, n)); err != nil {
		t.Fatal(err)
	}
	return s
}

// put is a batch of one change putting job id with n nodes.
func put(id string, n int) coord.Changes {
	return coord.Changes{Put: []coord.Job{{Spec: coord.JobSpec{ID: id, Nodes: n, MTBF: 1}}}, Meta: coord.Meta{Token: uint64(n)}}
}

// A checkpoint size at either end of int64 (MaxInt64: never; negative:
// after every commit) commits and reads back: the WAL's first buffer is
// sized from it without overflowing.
func TestWALExtremeCheckpointBytes(t *testing.T) {
	for _, cb := range []int64{math.MaxInt64, math.MaxInt64 - 7, -1, math.MinInt64} {
		p := filepath.Join(t.TempDir(), "c.db")
		s := openWith(t, p, Options{NoSync: true, CheckpointBytes: cb}, "x", 3)
		if err := s.Commit(put("y", 4)); err != nil {
			t.Fatalf("CheckpointBytes %d: second commit: %v", cb, err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("CheckpointBytes %d: close: %v", cb, err)
		}
		r, err := Open(p, Options{NoSync: true})
		if err != nil {
			t.Fatalf("CheckpointBytes %d: reopen: %v", cb, err)
		}
		if got := load(t, r); len(got.Jobs) != 2 {
			t.Errorf("CheckpointBytes %d: %d jobs after reopening, want 2", cb, len(got.Jobs))
		}
		r.Close()
	}
}

// Records already in the database are not applied again, and records of
// an earlier round are not taken for the log's continuation. Round one
// writes X=1, X=2, delete X; a checkpoint applies them (the WAL still
// holds all three; the state is "no X"); then round two writes
// X=5 in a record exactly as long as round one's first, over it, and the
// process crashes: the WAL now reads X=5 | X=2 | delete X, complete
// records all three. The state must be X=5: a reader that took the
// stale records for the log would load "no X".
func TestWALAppliedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(path, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	del := coord.Changes{Delete: []string{"X"}, Meta: coord.Meta{Token: 3}}
	for _, ch := range []coord.Changes{put("X", 1), put("X", 2), del} {
		if err := s.Commit(ch); err != nil {
			t.Fatal(err)
		}
	}
	checkpointed(t, s)
	if offs, _ := walRecords(t, path+".wal"); len(offs) != 3 {
		t.Fatalf("the WAL holds %d records after the checkpoint, want round one's 3", len(offs))
	}
	if st := load(t, s); len(st.Jobs) != 0 || st.Meta.Token != 3 {
		t.Fatalf("after round one: %+v, want no job and token 3", st)
	}
	if err := s.Commit(put("X", 5)); err != nil {
		t.Fatal(err)
	}
	crash(s)
	if offs, _ := walRecords(t, path+".wal"); len(offs) != 3 {
		t.Fatalf("the WAL reads %d complete records, want 3 (X=5 over X=1, then round one's X=2 and delete)", len(offs))
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := load(t, s)
	if len(st.Jobs) != 1 || st.Jobs[0].Spec.Nodes != 5 || st.Meta.Token != 5 {
		t.Fatalf("after round two: %+v, want X with 5 nodes and token 5", st)
	}
}

// Opening refuses, naming the file, every WAL that is not the database's
// own or that may hold changes it lacks: --init beside an existing WAL,
// the WAL of another database, a missing WAL after a crash, a header that
// is not a WAL's, and the plain path (NoWAL) on a database not closed
// cleanly. A missing WAL after a clean close is not refused: the database
// holds everything.
func TestWALOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	for _, p := range []string{a, b} {
		crash(openWith(t, p, Options{}, "j", 1))
	}
	refused := func(what, path string, opt Options, want string) {
		t.Helper()
		s, err := Open(path, opt)
		if err == nil {
			s.Close()
			t.Errorf("%s: opened", what)
			return
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %q does not name %s and say %q in one line", what, err, path, want)
		}
	}
	// --init over a WAL left without its database.
	orphan := filepath.Join(dir, "orphan.db")
	os.WriteFile(orphan+".wal", []byte("x"), 0o600)
	refused("--init beside a WAL", orphan, Options{Init: true}, "exists without its database")
	if _, err := os.Stat(orphan); err == nil {
		t.Error("--init beside a WAL created the database")
	}
	refused("NoWAL after a crash", a, Options{NoWAL: true}, "not closed cleanly")
	// Another database's WAL.
	wa, _ := os.ReadFile(a + ".wal")
	wb, _ := os.ReadFile(b + ".wal")
	os.WriteFile(a+".wal", wb, 0o600)
	refused("another database's WAL", a, Options{}, "another database")
	os.WriteFile(a+".wal", append([]byte("ckpt-coord-wal/0"), wa[16:]...), 0o600)
	refused("a bad header", a, Options{}, "bad header")
	os.Remove(a + ".wal")
	refused("a missing WAL after a crash", a, Options{}, "missing")
	// After a clean close the database alone is complete.
	s, err := Open(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(b + ".wal")
	s, err = Open(b, Options{NoWAL: true})
	if err != nil {
		t.Fatalf("NoWAL after a clean close: %v", err)
	}
	if st := load(t, s); len(st.Jobs) != 1 {
		t.Errorf("after a clean close the database alone holds %+v", st)
	}
	s.Close()
	if s, err = Open(b, Options{}); err != nil {
		t.Fatalf("a missing WAL after a clean close: %v", err)
	}
	s.Close()
}

// FuzzScanWAL: any bytes after the header read as a log without a panic,
// and what is read is a log — sequences rising by one from at most
// applied+1, every record newer than applied, every payload parsing, and
// each record's CRC holding.
func FuzzScanWAL(f *testing.F) {
	seed := []byte(walMagic + "0123456789abcdef")
	for i := range 4 {
		r := make([]byte, recHeaderLen)
		r = appendField(appendField(append(r, 'P'), fmt.Append(nil, "j", i)), []byte(`{"spec":{"id":"j"}}`))
		r = appendField(append(r, 'D'), []byte("j0"))
		r = appendField(append(r, 'M'), []byte(`{"token":1}`))
		binary.LittleEndian.PutUint32(r[0:4], uint32(len(r)-recHeaderLen))
		binary.LittleEndian.PutUint64(r[8:16], uint64(i+1))
		binary.LittleEndian.PutUint32(r[4:8], recordCRC(r[:recHeaderLen], r[recHeaderLen:]))
		seed = append(seed, r...)
	}
	f.Add(seed, uint64(0))
	f.Add(seed, uint64(2))
	f.Add(seed[:len(seed)-3], uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, applied uint64) {
		if len(data) < walHeaderLen {
			data = append(make([]byte, walHeaderLen), data...)
		}
		sc, err := scanWAL(data, applied)
		if err != nil {
			return
		}
		next := uint64(0)
		for i, r := range sc.records {
			if r.seq <= applied || (i > 0 && r.seq != next) || (i == 0 && r.seq != applied+1) {
				t.Fatalf("record %d: sequence %d (applied %d, expected %d)", i, r.seq, applied, next)
			}
			if _, _, ok := recordAt(data, r.off); !ok || parseOps(r.payload, false, nil) != nil {
				t.Fatalf("record %d at %d does not hold", i, r.off)
			}
			next = r.seq + 1
		}
		if sc.last < applied || (len(sc.records) > 0 && sc.last != next-1) {
			t.Fatalf("last %d, applied %d, records up to %d", sc.last, applied, next-1)
		}
	})
}

// Concurrency (run under -race): eight submitters through a Writer, a
// checkpoint every 512 bytes in the background, and readers loading all
// the while; each load's jobs are ones the core had registered, and the
// final load, then a reopen's, is exactly the core's state.
func TestWALConcurrentCommitsLoadsCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(path, Options{Init: true, NoSync: true, CheckpointBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := coord.New(cfg(t))
	w := NewWriterWait(s, 0)
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var acked [8]atomic.Int64 // per submitter, the Nodes of its last acknowledged commit
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			seen := map[string]int{} // the Nodes this reader loaded last, per job
			for {
				select {
				case <-stop:
					return
				default:
				}
				var floor [8]int64 // acknowledged before the load began: it must show them
				for g := range floor {
					floor[g] = acked[g].Load()
				}
				_, jobs, err := s.Load()
				if err != nil {
					t.Error(err)
					return
				}
				got := map[string]int{}
				for _, j := range jobs {
					got[j.Spec.ID] = j.Spec.Nodes
				}
				for g := range floor {
					id := string(rune('a'+g)) + "x"
					n, ok := got[id]
					switch {
					case floor[g] > 0 && (!ok || int64(n) < floor[g]):
						t.Errorf("a load begun after %s's commit of nodes %d shows %d (present %v)", id, floor[g], n, ok)
					case ok && n < seen[id]:
						t.Errorf("%s went back from nodes %d to %d between two loads", id, seen[id], n)
					}
					seen[id] = n
					delete(got, id)
				}
				for id := range got {
					t.Errorf("loaded a job never registered: %q", id)
				}
			}
		}()
	}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				mu.Lock()
				id := string(rune('a'+g)) + "x"
				c.Done(float64(i), id, false)
				c.Register(float64(i), coord.JobSpec{ID: id, Nodes: i + 1, C: 1, MTBF: 1})
				ack := w.Submit(c.TakeChanges())
				mu.Unlock()
				if err := <-ack; err != nil {
					t.Error(err)
				}
				acked[g].Store(int64(i + 1))
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	w.Close()
	check := func(when string) {
		_, jobs, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(jobs, jobsOf(c, jobs)) || len(jobs) != c.Stats().Jobs {
			t.Fatalf("%s: stored %+v\nhave %+v", when, jobs, jobsOf(c, jobs))
		}
	}
	check("before closing")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{NoWAL: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("the database alone after a clean close")
}
