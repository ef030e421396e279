package replica

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/usage"
)

func TestParsePeers(t *testing.T) {
	ps, err := ParsePeers("n1=127.0.0.1:7101, n2=127.0.0.1:7102,n3=[::1]:7103")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[1] != (Peer{"n2", "127.0.0.1:7102", ""}) || ps[2].Addr != "[::1]:7103" {
		t.Fatalf("%+v", ps)
	}
	ps, err = ParsePeers("n1=127.0.0.1:7101@127.0.0.1:7071,n2=127.0.0.1:7102")
	if err != nil || ps[0] != (Peer{"n1", "127.0.0.1:7101", "127.0.0.1:7071"}) || ps[1].HTTP != "" {
		t.Fatalf("%+v %v", ps, err)
	}
	for _, bad := range []string{"n1=127.0.0.1:7101@", "n1=127.0.0.1:7101@h", "n1=127.0.0.1:7101@h:0", "n1=127.0.0.1:7101@:80", "n1=h:1@h:2@h:3", "", "n1", "n1=", "=127.0.0.1:1", "n1=127.0.0.1", "n1=127.0.0.1:0", "n 1=127.0.0.1:1", "n1=127.0.0.1:1,,n2=127.0.0.1:2", "n1=:7101", "n1=h:65536", "n1=h:http", "n1=h:-1"} {
		if _, err := ParsePeers(bad); err == nil || !usage.Is(err) || !strings.Contains(err.Error(), "peers") {
			t.Errorf("%q: %v, want a usage error naming peers", bad, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	peers := []Peer{{"n1", "127.0.0.1:7101", ""}, {"n2", "127.0.0.1:7102", ""}}
	ok := Options{ID: "n1", Bind: "127.0.0.1:7101", Dir: "d", Bootstrap: true, Peers: peers}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		mod   func(*Options)
	}{
		{"id", func(o *Options) { o.ID = "" }},
		{"id", func(o *Options) { o.ID = "n/1" }},
		{"db", func(o *Options) { o.Dir = "" }},
		{"raft", func(o *Options) { o.Bind = "localhost" }},
		{"raft", func(o *Options) { o.Bind = ":7101" }},
		{"raft", func(o *Options) { o.Bind = "127.0.0.1:http" }},
		{"raft", func(o *Options) { o.Bind = "127.0.0.1:99999" }},
		{"raft", func(o *Options) { o.Bind = "127.0.0.1:-1" }},
		{"peers", func(o *Options) { o.Peers = nil }},
		{"peers", func(o *Options) { o.ID = "n9" }},
		{"peers", func(o *Options) { o.Peers = append(o.Peers, peers[0]) }},
		{"commit-timeout", func(o *Options) { o.CommitTimeout = -1 }},
	} {
		o := ok
		o.Peers = append([]Peer(nil), ok.Peers...)
		tc.mod(&o)
		if err := o.Validate(); err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%+v: %v, want a usage error on %s", o, err, tc.field)
		}
	}
	// raft's own checks: a lease longer than the heartbeat.
	o := ok
	o.Dir = t.TempDir()
	o.Bind = "127.0.0.1:0"
	o.HeartbeatTimeout, o.LeaderLeaseTimeout = 100e6, 200e6
	if _, err := Open(o); err == nil || !usage.Is(err) {
		t.Fatalf("lease > heartbeat: %v, want a usage error", err)
	}
}

// A folder another replica holds, a raft address in use and a folder
// that is a file are refused naming them, without hanging.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, nil)
	o := c.opts[0]
	o.Bind = "127.0.0.1:0"
	start := time.Now()
	if _, err := Open(o); err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("second replica on the folder: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refusal took %v", d)
	}
	o = c.opts[0]
	o.Dir = t.TempDir()
	if _, err := Open(o); err == nil || !strings.Contains(err.Error(), c.opts[0].Bind) {
		t.Fatalf("raft address in use: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o.Dir, o.Bind = file, "127.0.0.1:0"
	if _, err := Open(o); err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("folder that is a file: %v", err)
	}
}

func FuzzParsePeers(f *testing.F) {
	f.Add("n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103")
	f.Add("n1=[::1]:1")
	f.Add("=,=")
	f.Add("n1=127.0.0.1:7101@127.0.0.1:7071,n2=h:1@")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePeers(s)
		if err != nil {
			if !usage.Is(err) {
				t.Fatalf("%q: %v is not a usage error", s, err)
			}
			return
		}
		if len(ps) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d peers", s, len(ps))
		}
		for _, p := range ps {
			if !validID(p.ID) || !strings.Contains(s, p.ID+"="+p.Addr) || !validAddr(p.Addr) ||
				p.HTTP != "" && (!validAddr(p.HTTP) || !strings.Contains(s, p.Addr+"@"+p.HTTP)) {
				t.Fatalf("%q: peer %+v", s, p)
			}
		}
	})
}
