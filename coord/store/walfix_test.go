package store

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// metaValue reads a key of the database's meta bucket at path with bbolt
// alone, as an older binary would.
func metaValue(t *testing.T, path string, key []byte) string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get(key))
		return nil
	})
	return v
}

// dbVersion is the database's schema version; walClean its clean flag.
func dbVersion(t *testing.T, path string) string { t.Helper(); return metaValue(t, path, keyVersion) }
func walClean(t *testing.T, path string) string  { t.Helper(); return metaValue(t, path, keyWALClean) }

// A database left by a crash while its WALs were in use carries a version
// that the check of binaries from before the WAL (exactly "ckpt-coord/1")
// refuses, so they never serve it without the WAL's tail; a clean close
// writes "ckpt-coord/1" back, and this binary opens both.
func TestWALVersionRefusedByOlderBinaries(t *testing.T) {
	const old = "ckpt-coord/1" // bfa1a78's Version, its exact check
	p := filepath.Join(t.TempDir(), "c.db")
	crash(openWith(t, p, Options{}, "j", 9))
	if v := dbVersion(t, p); v == old {
		t.Fatalf("after a crash the version is %q: an older binary would serve the database without its WAL", v)
	}
	s, err := Open(p, Options{})
	if err != nil {
		t.Fatalf("this binary refuses the crashed database: %v", err)
	}
	if st := load(t, s); len(st.Jobs) != 1 || st.Meta.Token != 9 {
		t.Fatalf("after the crash it loads %+v", st)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if v := dbVersion(t, p); v != old {
		t.Fatalf("after a clean close the version is %q, want %q", v, old)
	}
}

// Upgrading a database from before the WAL never locks it out: when
// creating a WAL fails (a full disk), the database is still opened by a
// later open, with or without the WAL, and holds its state.
func TestWALUpgradeCreateFailureRecoverable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.db")
	if err := openWith(t, p, Options{NoWAL: true}, "j", 4).Close(); err != nil {
		t.Fatal(err)
	}
	walCreateHook = func(path string) error {
		if strings.HasSuffix(path, ".wal2") {
			return syscall.ENOSPC
		}
		return nil
	}
	_, err := Open(p, Options{})
	walCreateHook = nil
	if err == nil {
		t.Fatal("opened although creating the WAL failed")
	}
	for _, opt := range []Options{{NoWAL: true}, {}} {
		s, err := Open(p, opt)
		if err != nil {
			t.Fatalf("after a failed WAL creation, Open(%+v) refuses: %v", opt, err)
		}
		if st := load(t, s); len(st.Jobs) != 1 || st.Meta.Token != 4 {
			t.Fatalf("Open(%+v) loads %+v", opt, st)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Beside a database marked clean the WALs hold nothing it lacks: a WAL
// without its header (a power loss while it was created), a truncated or
// a foreign one is ignored and created again.
func TestWALBesideCleanDatabaseIgnored(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.db")
	if err := openWith(t, p, Options{}, "j", 7).Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p+".wal", make([]byte, 4096), 0o600) // no header
	os.WriteFile(p+".wal2", []byte("ckpt"), 0o600)    // truncated
	s, err := Open(p, Options{})
	if err != nil {
		t.Fatalf("WALs beside a clean database refused: %v", err)
	}
	if st := load(t, s); len(st.Jobs) != 1 || st.Meta.Token != 7 {
		t.Fatalf("loads %+v", st)
	}
	if err := s.Commit(put("k", 8)); err != nil {
		t.Fatal(err)
	}
	crash(s)
	s, err = Open(p, Options{})
	if err != nil {
		t.Fatalf("the recreated WALs after a crash: %v", err)
	}
	if st := load(t, s); len(st.Jobs) != 2 || st.Meta.Token != 8 {
		t.Fatalf("after the crash loads %+v", st)
	}
	s.Close()
}

// A copy of a cleanly stopped database is another database: each open
// takes a new identity, so after both crash, neither accepts the other's
// WALs.
func TestWALCopyDoesNotTakeOriginalsWALs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	s, err := Open(a, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(b, data, 0o600)
	for i, p := range []string{a, b} {
		s, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(put(fmt.Sprint("j", i), i+1)); err != nil {
			t.Fatal(err)
		}
		crash(s)
	}
	for _, ext := range []string{".wal", ".wal2"} {
		wa, _ := os.ReadFile(a + ext)
		wb, _ := os.ReadFile(b + ext)
		os.WriteFile(a+ext, wb, 0o600)
		os.WriteFile(b+ext, wa, 0o600)
	}
	for _, p := range []string{a, b} {
		s, err := Open(p, Options{})
		if err == nil {
			st := load(t, s)
			s.Close()
			t.Fatalf("%s accepted the other database's WALs and loads %+v", p, st)
		}
		if !strings.Contains(err.Error(), "another database") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// A database that Open refuses for a damaged record is left as it was:
// still marked clean, with its version, so nothing is written before the
// state is checked.
func TestWALRefusedDatabaseNotWritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(p, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketJobs).Put([]byte("j"), []byte("{not json")) })
	db.Close()
	before, _ := os.ReadFile(p)
	if s, err := Open(p, Options{}); err == nil {
		s.Close()
		t.Fatal("a damaged record was opened")
	}
	if v, c := dbVersion(t, p), walClean(t, p); v != Version || c != "1" {
		t.Errorf("after the refusal: version %q, clean %q; want %q and 1", v, c, Version)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("the refused database was written")
	}
}

// A commit whose fdatasync fails is refused and stays refused: neither a
// crash and reopen nor a clean close and reopen replays it, later commits
// go on over it; and when the record cannot be erased either, the store
// refuses every later commit.
func TestWALFailedSyncNotReplayed(t *testing.T) {
	defer func() { syncHook = nil }()
	for _, stop := range []string{"crash", "close", "continue", "failstop"} {
		p := filepath.Join(t.TempDir(), "c.db")
		s := openWith(t, p, Options{}, "a", 1)
		fails := 1
		if stop == "failstop" {
			fails = 2 // the append's sync and the erasure's
		}
		syncHook = func() error {
			if fails > 0 {
				fails--
				return syscall.EIO
			}
			return nil
		}
		if err := s.Commit(put("b", 2)); err == nil {
			t.Fatalf("%s: a commit whose sync failed succeeded", stop)
		}
		syncHook = nil
		want := 1 // a
		switch stop {
		case "continue":
			if err := s.Commit(put("c", 3)); err != nil {
				t.Fatal(err)
			}
			want = 2
		case "failstop":
			if err := s.Commit(put("c", 3)); err == nil {
				t.Fatal("failstop: a commit after an unerasable failed append succeeded")
			}
		}
		if stop == "close" {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		} else {
			crash(s)
		}
		s, err := Open(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", stop, err)
		}
		st := load(t, s)
		s.Close()
		for _, j := range st.Jobs {
			if j.Spec.ID == "b" {
				t.Fatalf("%s: the refused commit was replayed: %+v", stop, st)
			}
		}
		if len(st.Jobs) != want {
			t.Fatalf("%s: loads %+v, want %d jobs", stop, st, want)
		}
	}
}

// A failing background checkpoint (a full disk) is logged once until a
// success and tried again after a backoff, not on every commit past the
// bound; once the disk has room it succeeds and the state is complete.
func TestWALFailedCheckpointBacksOff(t *testing.T) {
	var failing atomic.Bool
	var tries atomic.Int64
	applyFailHook = func() error {
		if failing.Load() {
			tries.Add(1)
			return syscall.ENOSPC
		}
		return nil
	}
	defer func() { applyFailHook = nil }()
	var logBuf syncBuffer
	p := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(p, Options{Init: true, NoSync: true, CheckpointBytes: 64, Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	start := time.Now()
	const n = 300
	for i := range n {
		if err := s.Commit(put(fmt.Sprint("j", i), i+1)); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	s.mu.Lock()
	for s.ckpt != nil && !s.ckpt.done {
		s.ckptDone.Wait()
	}
	s.mu.Unlock()
	// Tries at 0, 100, 300, 700 ms, … after the first: at most 2 + elapsed/100 ms.
	if got, most := tries.Load(), 2+int64(elapsed/ckptRetryMin); got > most {
		t.Errorf("%d checkpoint tries over %d commits in %v, want at most %d", got, n, elapsed, most)
	}
	if got := strings.Count(logBuf.String(), "WAL checkpoint failed"); got != 1 {
		t.Errorf("%d error lines, want 1:\n%s", got, logBuf.String())
	}
	failing.Store(false)
	time.Sleep(s.backoffNow() + 10*time.Millisecond)
	if err := s.Commit(put("last", 1)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	for s.ckpt != nil && !s.ckpt.done {
		s.ckptDone.Wait()
	}
	ok := s.ckpt == nil
	s.mu.Unlock()
	if !ok || !strings.Contains(logBuf.String(), "succeeded again") {
		t.Errorf("the checkpoint did not succeed once the disk had room:\n%s", logBuf.String())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(p, Options{NoWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := load(t, s); len(st.Jobs) != n+1 {
		t.Fatalf("the database alone holds %d jobs, want %d", len(st.Jobs), n+1)
	}
}

func (s *Bolt) backoffNow() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Until(s.retryAt)
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
