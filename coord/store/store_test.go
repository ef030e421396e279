package store

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	bolt "go.etcd.io/bbolt"
)

func cfg(t *testing.T) coord.Config {
	p, err := arbiter.Policies.Lookup("least-waste")
	if err != nil {
		t.Fatal(err)
	}
	return coord.Config{Policy: p, Bandwidth: 1e9, TTL: 10, NodeMTBF: 1e6}
}

// Everything the core holds comes back after a reopen: jobs, statistics,
// waiting and granted leases with their expiries, and the counters — and
// the restored core makes the same next decisions.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(path, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := coord.New(cfg(t))
	w := NewWriterWait(s, 0)
	commit := func() {
		if err := <-w.Submit(c.TakeChanges()); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"a", "b", "c", "d"} {
		if _, err := c.Register(0, coord.JobSpec{ID: id, Nodes: i + 1, Bytes: 1e9, MTBF: 1e5}); err != nil {
			t.Fatal(err)
		}
		commit()
	}
	for i, id := range []string{"a", "b", "c", "d"} {
		if _, err := c.Acquire(float64(i), coord.AcquireRequest{Job: id, RequestID: "r", Kind: arbiter.Checkpoint}); err != nil {
			t.Fatal(err)
		}
		commit()
	}
	c.Release(5, "a", 1, 0)
	c.Done(6, "d", true)
	commit()
	w.Close()
	s.Close()

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	meta, jobs, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := coord.Restore(cfg(t), meta, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jobsOf(r, jobs), jobsOf(c, jobs)) || r.Stats() != c.Stats() {
		t.Fatalf("restored\n%+v\n%+v\nhad\n%+v\n%+v", r.Stats(), jobsOf(r, jobs), c.Stats(), jobsOf(c, jobs))
	}
	var holder string
	var tok uint64
	for _, j := range jobsOf(c, jobs) {
		if j.Lease != nil && j.Lease.Granted {
			holder, tok = j.Spec.ID, j.Lease.Token
		}
	}
	// the ended job is remembered across the restart: done again answers
	// as the first did
	if err := r.Done(6.5, "d", true); err != nil {
		t.Errorf("done replayed after a restart: %v", err)
	}
	if err := r.Done(6.5, "d", false); err == nil {
		t.Error("done replayed with another outcome accepted")
	}
	g1, e1 := c.Release(7, holder, tok, 0)
	g2, e2 := r.Release(7, holder, tok, 0)
	if !reflect.DeepEqual(g1, g2) || e1 != nil || e2 != nil {
		t.Fatalf("diverged: %+v %v / %+v %v", g1, e1, g2, e2)
	}
}

func TestOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.db")
	if _, err := Open(missing, Options{}); err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "--init") {
		t.Errorf("missing: %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a missing database was created without --init")
	}
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("not a database\n", 2000)), 0o600)
	if _, err := Open(garbage, Options{}); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("garbage: %v", err)
	}
	if _, err := Open(garbage, Options{Init: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("init over a file: %v", err)
	}
	// An empty file is refused and left empty (bbolt would write a new
	// database into it).
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	if _, err := Open(empty, Options{}); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("empty: %v", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("opening an empty file without --init changed it: %v %v", fi.Size(), err)
	}
	// A bbolt file of another program.
	other := filepath.Join(dir, "other.db")
	db, _ := bolt.Open(other, 0o600, nil)
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("x")); return err })
	db.Close()
	if _, err := Open(other, Options{}); err == nil || !strings.Contains(err.Error(), "not a ckpt coordinator database") {
		t.Errorf("other bbolt: %v", err)
	}
	// A damaged record: a clear error naming it at load.
	good := filepath.Join(dir, "good.db")
	s, err := Open(good, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketJobs).Put([]byte("j1"), []byte("{broken")) })
	if _, _, err := s.Load(); err == nil || !strings.Contains(err.Error(), `job record "j1"`) {
		t.Errorf("broken record: %v", err)
	}
	s.Close()
	// Bytes overwritten in the middle of the file (pages damaged).
	b, _ := os.ReadFile(good)
	for i := 0; i < len(b); i += 7 {
		b[i] ^= 0x5a
	}
	os.WriteFile(good, b, 0o600)
	if s, err := Open(good, Options{}); err == nil {
		_, _, err = s.Load()
		s.Close()
		if err == nil {
			t.Error("damaged pages loaded without error")
		}
	}
}

// Concurrent submitters: every change committed, in submission order.
func TestWriterOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(path, Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := coord.New(cfg(t))
	w := NewWriterWait(s, 0)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				mu.Lock()
				id := string(rune('a'+g)) + "x"
				c.Done(float64(i), id, false)
				c.Register(float64(i), coord.JobSpec{ID: id, Nodes: i + 1, C: 1, MTBF: 1})
				ack := w.Submit(c.TakeChanges())
				mu.Unlock()
				if err := <-ack; err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	w.Close()
	_, jobs, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jobs, jobsOf(c, jobs)) || len(jobs) != c.Stats().Jobs {
		t.Fatalf("stored %+v\nhave %+v", jobs, jobsOf(c, jobs))
	}
}

// A barrier taken while a change is queued or being committed fires only
// after that change's commit: a poll that finds a grant made by another
// request must not answer before the grant is durable (the kill -9 test
// caught an acknowledged grant lost this way). With nothing pending it is
// nil, and after a failed commit it reports the failure.
func TestWriterBarrier(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := coord.New(cfg(t))
	w := NewWriterWait(s, 0)
	if w.Barrier() != nil {
		t.Fatal("barrier with nothing pending")
	}
	for i := range 200 {
		c.Register(float64(i), coord.JobSpec{ID: fmt.Sprint("j", i), Nodes: 1, C: 1, MTBF: 1})
		ack := w.Submit(c.TakeChanges())
		b := w.Barrier()
		if b == nil {
			select {
			case <-ack: // committed already: nil is right
				continue
			default:
				t.Fatal("nil barrier while a commit is pending")
			}
		}
		if err := <-b; err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-ack:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("barrier %d fired before the change it follows committed", i)
		}
	}
	s.Close() // commits now fail; the writer remembers it
	c.Register(0, coord.JobSpec{ID: "late", Nodes: 1, C: 1, MTBF: 1})
	if err := <-w.Submit(c.TakeChanges()); err == nil {
		t.Fatal("commit on a closed store succeeded")
	}
	if b := w.Barrier(); b == nil || <-b == nil {
		t.Fatal("barrier after a failed commit reports no failure")
	}
	w.Close()
}

// jobsOf is c's copy of each of jobs (by id), in the same order.
func jobsOf(c *coord.Coordinator, jobs []coord.Job) []coord.Job {
	out := make([]coord.Job, 0, len(jobs))
	for _, j := range jobs {
		if cj, ok := c.Job(j.Spec.ID); ok {
			out = append(out, cj)
		}
	}
	return out
}

// A damaged page is refused in one line, never a crash: without
// debug.SetPanicOnFault, a byte flipped in the jobs' pages made a read
// outside the mapped file kill the process ("fatal error: fault").
func TestDamagedPagesRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	s, err := Open(good, Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := coord.New(cfg(t))
	w := NewWriterWait(s, 0)
	for i := range 300 {
		c.Register(0, coord.JobSpec{ID: fmt.Sprint("job-", i), Nodes: 1, C: 1, MTBF: 1})
		if err := <-w.Submit(c.TakeChanges()); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	s.Close()
	orig, _ := os.ReadFile(good)
	page := os.Getpagesize()
	refused := 0
	for i := 2 * page; i < 2*page+64 && i < len(orig); i++ {
		b := append([]byte(nil), orig...)
		b[i] ^= 0xff
		bad := filepath.Join(dir, "bad.db")
		os.WriteFile(bad, b, 0o600)
		s, err := Open(bad, Options{})
		if err == nil {
			_, _, err = s.Load()
			s.Close()
		}
		if err != nil {
			refused++
			if !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "\n") {
				t.Errorf("byte %d: %q does not name the file in one line", i, err)
			}
		}
	}
	if refused == 0 {
		t.Error("no damaged file refused")
	}
}
