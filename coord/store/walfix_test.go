package store

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// dbVersion reads the schema version of the database at path with bbolt
// alone, as an older binary would.
func dbVersion(t *testing.T, path string) string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get(keyVersion))
		return nil
	})
	return v
}

// A database left by a crash while its WALs were in use carries a version
// that the check of binaries from before the WAL (exactly "ckpt-coord/1")
// refuses, so they never serve it without the WAL's tail; a clean close
// writes "ckpt-coord/1" back, and this binary opens both.
func TestWALVersionRefusedByOlderBinaries(t *testing.T) {
	const old = "ckpt-coord/1" // bfa1a78's Version, its exact check
	p := filepath.Join(t.TempDir(), "c.db")
	s, err := Open(p, Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(put("j", 9)); err != nil {
		t.Fatal(err)
	}
	crash(s)
	if v := dbVersion(t, p); v == old {
		t.Fatalf("after a crash the version is %q: an older binary would serve the database without its WAL", v)
	}
	s, err = Open(p, Options{})
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
