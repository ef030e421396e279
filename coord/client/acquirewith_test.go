package client

import (
	"context"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// AcquireWith without wait asks once under a new request id, which the
// answer carries so that the request can be polled; a second job asking
// while the first holds the file system is told to wait, not granted.
func TestAcquireWithOnceDrawsARequestID(t *testing.T) {
	_, url := startServer(t, "ordered", 30)
	ctx := context.Background()
	c := &Client{Base: url, Token: "tok"}
	ja, jb := NewJobToken(), NewJobToken()
	c.Register(ctx, api.RegisterRequest{ID: "a", Nodes: 4, Bytes: 1e10, MTBF: 1e5, JobToken: ja})
	c.Register(ctx, api.RegisterRequest{ID: "b", Nodes: 4, Bytes: 1e10, MTBF: 1e5, JobToken: jb})
	ga, err := c.AcquireWith(ctx, "a", ja, api.AcquireRequest{Kind: arbiter.Checkpoint}, false)
	if err != nil || ga.Status != coord.StatusGranted || ga.RequestID == "" {
		t.Fatalf("first acquire: %+v %v", ga, err)
	}
	gb, err := c.AcquireWith(ctx, "b", jb, api.AcquireRequest{Kind: arbiter.Checkpoint}, false)
	if err != nil || gb.Status == coord.StatusGranted || gb.RequestID == "" || gb.RequestID == ga.RequestID {
		t.Fatalf("second acquire while a holds: %+v %v (a's request %q)", gb, err, ga.RequestID)
	}
}
