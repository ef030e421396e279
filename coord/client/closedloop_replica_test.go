package client

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/replica"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// replicatedSimServer is simServer on a group of three replicas (raft on
// 127.0.0.1, logs without fsync), a server on each; the URLs start with
// a follower's, so that the client is redirected to the leader.
func replicatedSimServer(t *testing.T, c iosim.Config, policy string) string {
	t.Helper()
	p, err := arbiter.Policies.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg := coord.Config{Policy: p, Bandwidth: float64(c.Platform.Bandwidth), TTL: 1e9, MaxTTL: 1e9,
		NodeMTBF: float64(c.Platform.NodeMTBF), FixedMTBF: true}
	var lns []net.Listener
	var peers []replica.Peer
	for i := range 3 {
		raftLn, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		raftAddr := raftLn.Addr().String()
		raftLn.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		peers = append(peers, replica.Peer{ID: fmt.Sprintf("n%d", i+1), Addr: raftAddr, HTTP: ln.Addr().String()})
	}
	dir := t.TempDir()
	reps := make([]*replica.Replica, 3)
	for i, pe := range peers {
		r, err := replica.Open(replica.Options{ID: pe.ID, Bind: pe.Addr, Dir: filepath.Join(dir, pe.ID), Bootstrap: true,
			Peers: peers, NoSync: true, HeartbeatTimeout: 700 * time.Millisecond, ElectionTimeout: 700 * time.Millisecond,
			LeaderLeaseTimeout: 350 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		reps[i] = r
		t.Cleanup(func() { r.Close() })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leader, err := reps[0].WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i, r := range reps {
		s, err := server.New(server.Options{Config: cfg, Store: r, Tokens: []string{"tok"}, ClientClock: true, Rate: -1})
		if err != nil {
			t.Fatal(err)
		}
		sctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Serve(sctx, lns[i]); close(done) }()
		t.Cleanup(func() { stop(); <-done })
		u := "http://" + peers[i].HTTP
		if peers[i].ID == leader {
			urls = append(urls, u)
		} else {
			urls = append([]string{u}, urls...)
		}
	}
	return strings.Join(urls, ",")
}

// The closed loop with the service replicated: the simulator with a
// three-replica coordinator as its arbiter, reached through a follower's
// URL first, makes the in-process run's decisions and so the same run.
func TestClosedLoopReplicated(t *testing.T) {
	if testing.Short() {
		t.Skip("three replicas")
	}
	c := scaledCielo()
	opt := iosim.Options{Span: 5 * 86400, Skip: 86400, Seed: 3}
	st, err := iosim.Lookup("least-waste", 3600)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Arbiter: st.Arbiter}
	st.Arbiter = rec
	local, err := iosim.SimulateContext(context.Background(), &c, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	sa := &SimArbiter{Client: &Client{Base: replicatedSimServer(t, c, "least-waste"), Token: "tok"}}
	ropt := opt
	ropt.Remote = sa
	start := time.Now()
	remote, err := iosim.SimulateContext(context.Background(), &c, st, ropt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.got) < 100 || !reflect.DeepEqual(rec.got, sa.Decisions) {
		t.Fatalf("remote made %d decisions, in-process %d, or they differ", len(sa.Decisions), len(rec.got))
	}
	if !reflect.DeepEqual(local, remote) {
		t.Fatalf("runs differ:\nremote     %+v\nin-process %+v", remote, local)
	}
	t.Logf("%d decisions, %d failures, the same as in process, in %v", len(rec.got), local.JobFailures, time.Since(start).Round(time.Millisecond))
}
