package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Bad replica flags of `ckpt serve`: exit 2, one line naming the flag,
// before anything is opened or listened on.
func TestServeReplicaFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "n1")
	base := []string{"serve", "--no-auth", "--bandwidth", "1GB/s", "--listen", "127.0.0.1:0", "--db", db}
	peers := "n1=127.0.0.1:7101@127.0.0.1:7071,n2=127.0.0.1:7102"
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--id", []string{"--bootstrap"}},
		{"--id", []string{"--raft", "127.0.0.1:7101"}},
		{"--id", []string{"--id", "n/1", "--raft", "127.0.0.1:7101"}},
		{"--raft", []string{"--id", "n1", "--raft", "7101"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", "n1=127.0.0.1:7101@nowhere"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", "n1=127.0.0.1:0"}},
		{"--peers", []string{"--id", "n3", "--raft", "127.0.0.1:7101", "--peers", peers, "--bootstrap"}},
		{"--peers", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--bootstrap"}},
		{"--init", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--init"}},
		{"--bandwidth", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--bandwidth", "fast"}},
		{"--listen", []string{"--id", "n1", "--raft", "127.0.0.1:7101", "--peers", peers, "--listen", "10.1.2.3:80"}},
	} {
		_, stderr, code := run(t, "", append(base, tc.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.flag) {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming %s", tc.args, code, stderr, tc.flag)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(db, "*")); len(m) != 0 {
		t.Errorf("a refused start left %v", m)
	}
}
