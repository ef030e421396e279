package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/client"
)

// The pauses of the finishing mode: between two polls of a waiting
// request, and before a request that failed (a connection error, a 5xx, a
// 429) is sent again.
const (
	pollPause  = 5 * time.Millisecond
	retryPause = 100 * time.Millisecond
)

// finish is a client of the finishing mode: it takes its jobs in turn and
// stays with one for a whole checkpoint cycle (cycle: next, acquire, polls
// until the grant, release; done after the k-th), until all are done or
// refused, or ctx ends. A request that failed is sent again, the same
// (the same request id, lease token: the server answers a retry as the
// first); a job refused (a 4xx answer) is left.
func finish(ctx context.Context, d driver, mine []*job, k int, c *tally, ack func(op, job string, token uint64)) {
	left := slices.Clone(mine) // jobs neither done nor refused
	for i := 0; len(left) > 0 && ctx.Err() == nil; {
		j := left[i]
		t0 := time.Now()
		op, token, err := cycle(ctx, d, j, k)
		if err != nil {
			if ctx.Err() != nil {
				return // ended by ctx, not failed
			}
			c.fail(err)
			if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 && ce.Status != http.StatusTooManyRequests {
				left = slices.Delete(left, i, i+1) // refused: the job is left
				i = next(i-1, len(left))
				continue
			}
			pause(ctx, retryPause)
			continue
		}
		c.lat = append(c.lat, float32(time.Since(t0).Seconds()))
		if op != "" {
			ack(op, j.id, token)
		}
		switch {
		case op == OpDone:
			c.dones++
			j.done = true
			left = slices.Delete(left, i, i+1)
			i = next(i-1, len(left))
		case op == OpGrant:
			c.grants++ // released as the client's next request
		case op == OpRelease:
			c.releases++
			if j.cycles < k {
				i = next(i, len(left))
			}
		case j.rid != "":
			pause(ctx, pollPause) // waiting: polled again
		}
	}
}

// next is the index after i among n jobs (0 after the last).
func next(i, n int) int {
	if i+1 >= n {
		return 0
	}
	return i + 1
}

// pause sleeps d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// errEnded: a waiting request ended otherwise than granted (its poll
// deadline passed); the job asks again in a new cycle.
var errEnded = errors.New("request ended")

// cycle advances job j by one request of its checkpoint cycles (k of
// them): release the lease held, poll the request waiting, done after the
// k-th release, next, acquire. A request that failed leaves j as it was,
// so that it is sent again. It returns the write acknowledged (OpGrant,
// OpRelease, OpDone or "") and its lease token.
func cycle(ctx context.Context, d driver, j *job, k int) (op string, token uint64, err error) {
	switch {
	case j.lease != 0:
		if err = d.release(ctx, j); err == nil {
			op, token, j.lease = OpRelease, j.lease, 0
			j.cycles++
		}
		return op, token, err
	case j.rid != "": // polled below
	case j.cycles >= k:
		if err = d.done(ctx, j); err == nil {
			op = OpDone
		}
		return op, 0, err
	case j.n%2 == 0:
		if err = d.next(ctx, j); err == nil {
			j.n++
		}
		return "", 0, err
	default:
		j.n++
		j.rid = "r" + strconv.Itoa(j.n)
	}
	g, err := d.acquire(ctx, j)
	switch {
	case err != nil:
	case g.Status == coord.StatusGranted:
		j.rid, j.lease, op, token = "", g.Token, OpGrant, g.Token
	case g.Status != coord.StatusWaiting:
		j.rid = "" // next, then a new request
		err = fmt.Errorf("job %s: %w: %s", j.id, errEnded, g.Status)
	}
	return op, token, err
}
