package client

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// scaledCielo is Cielo scaled down 64×: the same four classes (Table I's
// shares and volumes), 1/64 of the nodes and of the bandwidth, and a node
// MTBF of 3 months so that a few days see failures.
func scaledCielo() iosim.Config {
	c := iosim.Cielo()
	c.Platform.Nodes /= 64
	c.Platform.Bandwidth /= 64
	c.Platform.NodeMTBF = iosim.Seconds(90 * 86400)
	for i := range c.Classes {
		c.Classes[i].Nodes = max(1, c.Classes[i].Nodes/64)
	}
	return c
}

// recorder is the in-process arbiter, noting its decisions.
type recorder struct {
	arbiter.Arbiter
	got []Decision
}

func (r *recorder) Pick(now float64, w []arbiter.Request, env arbiter.Env) int {
	i := r.Arbiter.Pick(now, w, env)
	r.got = append(r.got, Decision{Time: now, Job: w[i].Job})
	return i
}

// simServer is a coordinator on the client's clock for platform c under
// policy, on 127.0.0.1.
func simServer(t *testing.T, c iosim.Config, policy string) string {
	t.Helper()
	p, err := arbiter.Policies.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "sim.db"), store.Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := coord.Config{Policy: p, Bandwidth: float64(c.Platform.Bandwidth), TTL: 1e9, MaxTTL: 1e9,
		NodeMTBF: float64(c.Platform.NodeMTBF), FixedMTBF: true}
	s, err := server.New(server.Options{Config: cfg, Store: st, Tokens: []string{"tok"}, ClientClock: true, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s) // 127.0.0.1
	t.Cleanup(func() { ts.Close(); st.Close() })
	return ts.URL
}

// The closed loop: the simulator with the coordinator as its arbiter over
// loopback HTTP makes the in-process run's decisions (same time, same
// job, in the same order) and so the same run, for each token policy.
// The oracle is the in-process run of the same seed.
func TestClosedLoopSameAsInProcess(t *testing.T) {
	c := scaledCielo()
	opt := iosim.Options{Span: 5 * 86400, Skip: 86400, Seed: 3}
	for _, tc := range []struct{ strategy, policy string }{
		{"ordered-daly", "ordered"}, {"ordered-nb-fixed", "ordered-nb"},
		{"least-waste", "least-waste"}, {"least-waste-printed", "least-waste-printed"},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			st, err := iosim.Lookup(tc.strategy, 3600)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{Arbiter: st.Arbiter}
			st.Arbiter = rec
			local, err := iosim.SimulateContext(context.Background(), &c, st, opt)
			if err != nil {
				t.Fatal(err)
			}
			sa := &SimArbiter{Client: &Client{Base: simServer(t, c, tc.policy), Token: "tok"}}
			ropt := opt
			ropt.Remote = sa
			remote, err := iosim.SimulateContext(context.Background(), &c, st, ropt)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(rec.got); n < 100 || n > 3000 {
				t.Fatalf("%d decisions: the scenario should make a few hundred", n)
			}
			if local.JobFailures == 0 {
				t.Fatal("no failure: the scenario does not exercise cancels")
			}
			for i := range min(len(rec.got), len(sa.Decisions)) {
				if rec.got[i] != sa.Decisions[i] {
					t.Fatalf("decision %d: remote %+v, in-process %+v", i, sa.Decisions[i], rec.got[i])
				}
			}
			if len(rec.got) != len(sa.Decisions) {
				t.Fatalf("remote made %d decisions, in-process %d", len(sa.Decisions), len(rec.got))
			}
			if !reflect.DeepEqual(local, remote) {
				t.Fatalf("runs differ:\nremote     %+v\nin-process %+v", remote, local)
			}
			t.Logf("%s: %d decisions, %d failures, checkpoints %d", tc.strategy, len(rec.got), local.JobFailures, local.Checkpoints)
		})
	}
}

// Oblivious has no token to arbitrate: a remote arbiter is refused.
func TestClosedLoopRefusesOblivious(t *testing.T) {
	c := scaledCielo()
	st, _ := iosim.Lookup("oblivious-daly", 3600)
	_, err := iosim.SimulateContext(context.Background(), &c, st, iosim.Options{Span: 3 * 86400, Seed: 1, Remote: &SimArbiter{Client: &Client{Base: "http://127.0.0.1:1"}}})
	if err == nil {
		t.Fatal("oblivious with a remote arbiter accepted")
	}
}
