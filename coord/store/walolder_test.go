package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// waitCheckpoint waits until no checkpoint of s is under way.
func waitCheckpoint(s *Bolt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.ckpt != nil && !s.ckpt.done {
		s.ckptDone.Wait()
	}
}

// olderCopyRun commits X=1 … X=n to a new database at path whose WALs
// checkpoint every 100 bytes (each commit waiting for the checkpoint it
// started), copies both WALs after commit at (before the first if 0),
// crashes, and, if restore, puts the copies back before it opens the
// database again. It returns the state loaded, the open's error, and the
// last sequence the database held at the crash.
func olderCopyRun(t *testing.T, path string, at, n int, restore bool, before ...func()) (state, uint64, error) {
	t.Helper()
	s, err := Open(path, Options{Init: true, NoSync: true, CheckpointBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	var copies [2][]byte
	for i := 0; i <= n; i++ {
		if i == at {
			for k, wp := range walPaths(path) {
				if copies[k], err = os.ReadFile(wp); err != nil {
					t.Fatal(err)
				}
			}
		}
		if i == n {
			break
		}
		if err := s.Commit(put("X", i+1)); err != nil {
			t.Fatal(err)
		}
		waitCheckpoint(s)
	}
	_, applied, _, err := s.walMeta()
	if err != nil {
		t.Fatal(err)
	}
	crash(s)
	if restore {
		for k, wp := range walPaths(path) {
			if err := os.WriteFile(wp, copies[k], 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range before {
		f()
	}
	s, err = Open(path, Options{NoSync: true})
	if err != nil {
		return state{}, applied, err
	}
	defer s.Close()
	return load(t, s), applied, nil
}

// A restored older copy of the WALs beside a database that holds all
// their records (and more) is refused naming the WAL, in one line, and
// refused again at the next open (nothing was written): copies taken
// right after the open (the WALs hold no record) and mid-run, the run
// going on through background checkpoints past them, then a crash and
// the copies put back. Served, such copies would lose X=4 … X=n silently.
// The oracles: the same crash without the copies put back loads the last
// commit (X=n, token n), and copies taken after the last commit (equal to
// the WALs) are accepted with the same state.
func TestWALOlderCopyRefused(t *testing.T) {
	const n = 9
	for _, at := range []int{0, 3} {
		t.Run(fmt.Sprint("copied after ", at, " commits"), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.db")
			_, applied, err := olderCopyRun(t, path, at, n, true)
			if applied <= uint64(at) {
				t.Fatalf("the database holds sequence %d at the crash: the copies are not older", applied)
			}
			if err == nil || !strings.Contains(err.Error(), "is older than database") || strings.Contains(err.Error(), "\n") ||
				!(strings.Contains(err.Error(), "WAL "+path+".wal ") || strings.Contains(err.Error(), "WAL "+path+".wal2 ")) {
				t.Fatalf("older WALs put back: %v; want one line naming the WAL", err)
			}
			if _, err2 := Open(path, Options{NoSync: true}); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("opened again: %v, want %v", err2, err)
			}
		})
	}
	for _, tc := range []struct {
		at      int
		restore bool
	}{{3, false}, {n, true}} {
		st, _, err := olderCopyRun(t, filepath.Join(t.TempDir(), "c.db"), tc.at, n, tc.restore)
		if err != nil || len(st.Jobs) != 1 || st.Jobs[0].Spec.Nodes != n || st.Meta.Token != n {
			t.Fatalf("copy after %d, put back %v: %+v, %v; want X=%d and token %d", tc.at, tc.restore, st, err, n, n)
		}
	}
}

// A position written under another identity than the database's (by a
// binary that keeps none: it changed the identity at its open and left
// the older position) is unknown, not checked: the older copy put back is
// accepted as before this check, not refused for a position that means
// nothing.
func TestWALPositionOfAnotherIdentityIgnored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	_, _, err := olderCopyRun(t, path, 3, 9, true, func() {
		editWALPos(t, path, func(v []byte) []byte { v[len(v)-1] ^= 1; return v })
	})
	if err != nil {
		t.Fatalf("a position of another identity was checked: %v", err)
	}
}

// A position in another form (a shorter one, as a build without the
// identity wrote; a longer one; a file number other than 0 and 1) is
// unknown, not a reason to refuse the database: the older copy put back is
// accepted as before this check, with the position of the forms tried.
func TestWALPositionOfAnotherFormIgnored(t *testing.T) {
	for _, form := range []string{"short", "long", "file"} {
		path := filepath.Join(t.TempDir(), "c.db")
		_, _, err := olderCopyRun(t, path, 3, 9, true, func() {
			editWALPos(t, path, func(v []byte) []byte {
				switch form {
				case "short":
					v = v[:9]
				case "long":
					v = append(v, 0)
				case "file":
					v[0] = 2
				}
				return v
			})
		})
		if err != nil {
			t.Fatalf("a position of form %s refused the database: %v", form, err)
		}
	}
}

// editWALPos rewrites the database's stored WAL position with edit (given
// a copy).
func editWALPos(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		return m.Put(keyWALPos, edit(slices.Clone(m.Get(keyWALPos))))
	})
	if err != nil {
		t.Fatal(err)
	}
}
