package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

func startServer(t *testing.T, policy string, ttl float64) (*server.Server, string) {
	t.Helper()
	p, _ := arbiter.Policies.Lookup(policy)
	st, err := store.Open(filepath.Join(t.TempDir(), "c.db"), store.Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Config: coord.Config{Policy: p, Bandwidth: 1e9, TTL: ttl, NodeMTBF: 1e6},
		Store: st, Tokens: []string{"tok"}, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); st.Close() })
	return s, ts.URL
}

// dropFirst performs the first request of each path but loses its answer
// (a timeout after the server acted).
type dropFirst struct {
	seen atomic.Int32
}

func (d *dropFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && d.seen.Add(1) == 1 {
		resp.Body.Close()
		return nil, errors.New("simulated timeout after the server answered")
	}
	return resp, err
}

// A client that retries after a lost answer gets the same grant, and the
// server counts one grant.
func TestRetryNoDoubleGrant(t *testing.T) {
	_, url := startServer(t, "ordered", 30)
	ctx := context.Background()
	c := &Client{Base: url, Token: "tok"}
	jt := NewJobToken()
	if _, err := c.Register(ctx, api.RegisterRequest{ID: "a", Nodes: 4, Bytes: 1e10, MTBF: 1e5, JobToken: jt}); err != nil {
		t.Fatal(err)
	}
	lossy := &Client{Base: url, Token: "tok", HTTP: &http.Client{Transport: &dropFirst{}}}
	g, err := lossy.Acquire(ctx, "a", jt, api.AcquireRequest{RequestID: "req-1", Kind: arbiter.Checkpoint})
	if err != nil || g.Status != coord.StatusGranted || g.Token != 1 {
		t.Fatalf("retried acquire: %+v %v", g, err)
	}
	st, _ := c.Status(ctx)
	if st.Counters.Grants != 1 {
		t.Fatalf("%d grants for one request", st.Counters.Grants)
	}
	lossy2 := &Client{Base: url, Token: "tok", HTTP: &http.Client{Transport: &dropFirst{}}}
	if g, err := lossy2.Release(ctx, "a", jt, 1, 2, nil); err != nil || g.Status != coord.OutReleased {
		t.Fatalf("retried release: %+v %v", g, err)
	}
	if j, _ := c.Job(ctx, "a"); j.Checkpoints != 1 {
		t.Fatalf("one checkpoint counted as %d", j.Checkpoints)
	}
}

// A holder that dies (never renews) is replaced after the TTL; the waiting
// job is served then, and not much later.
func TestHolderDiesServedAfterTTL(t *testing.T) {
	_, url := startServer(t, "least-waste", 0.5)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Client{Base: url, Token: "tok", PollInterval: 20 * time.Millisecond}
	ja, jb := NewJobToken(), NewJobToken()
	c.Register(ctx, api.RegisterRequest{ID: "a", Nodes: 4, Bytes: 1e10, MTBF: 1e5, JobToken: ja})
	c.Register(ctx, api.RegisterRequest{ID: "b", Nodes: 4, Bytes: 1e10, MTBF: 1e5, JobToken: jb})
	ga, err := c.Acquire(ctx, "a", ja, api.AcquireRequest{RequestID: "1", Kind: arbiter.Checkpoint})
	if err != nil || ga.Status != coord.StatusGranted {
		t.Fatal(ga, err)
	}
	start := time.Now()
	gb, err := c.WaitGrant(ctx, "b", jb, api.AcquireRequest{RequestID: "1", Kind: arbiter.Checkpoint})
	waited := time.Since(start)
	if err != nil || gb.Token != 2 {
		t.Fatalf("%+v %v", gb, err)
	}
	if waited < 400*time.Millisecond || waited > 3*time.Second {
		t.Errorf("served after %v, TTL 0.5 s", waited)
	}
	if _, err := c.Release(ctx, "a", ja, ga.Token, 0, nil); StatusOf(err) != 409 || !isCode(err, api.CodeFenced) {
		t.Errorf("late release of the expired lease: %v", err)
	}
}

// StatusOf returns the HTTP status of an *Error (0 otherwise).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func isCode(err error, c api.Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}
