package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Client talks to one coordinator.
type Client struct {
	// Base is the server's URL, e.g. http://127.0.0.1:7070.
	Base string
	// Token is the bearer token.
	Token string
	// HTTP is the transport (a client with a 10 s timeout if nil).
	HTTP *http.Client
	// Retries of a request after a transport error, 429 or 503 (3 if
	// zero; < 0: none).
	Retries int
	// PollInterval of WaitGrant (1 s if zero).
	PollInterval time.Duration
}

// New returns a client of the coordinator at base, an http(s) URL, with
// the bearer token; a malformed URL is a usage error.
func New(base, token string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usage.Fieldf("server", "%q is not an http(s) URL", base)
	}
	return &Client{Base: base, Token: token}, nil
}

// Error is an error answer of the server.
type Error struct {
	Status int
	Code   api.Code // the server's classification (empty from a server that gives none)
	Field  string
	Msg    string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("coordinator: %d: %s: %s", e.Status, e.Field, e.Msg)
	}
	return fmt.Sprintf("coordinator: %d: %s", e.Status, e.Msg)
}

// NewRequestID returns a random request id.
func NewRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewJobToken returns a random job token.
func NewJobToken() string { return NewRequestID() + NewRequestID() }

func (c *Client) do(ctx context.Context, method, path, jobToken string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	retries := c.Retries
	if retries == 0 {
		retries = 3
	}
	var last error
	for attempt := 0; attempt <= max(retries, 0); attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.Base, "/")+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if c.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		if jobToken != "" {
			req.Header.Set("X-Job-Token", jobToken)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			last = err
			continue
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			last = err
			continue
		}
		if resp.StatusCode >= 400 {
			var eb api.ErrorBody
			json.Unmarshal(b, &eb)
			if eb.Error == "" {
				eb.Error = strings.TrimSpace(string(b))
			}
			last = &Error{Status: resp.StatusCode, Code: eb.Code, Field: eb.Field, Msg: eb.Error}
			if resp.StatusCode == 429 || resp.StatusCode == 503 {
				continue
			}
			return last
		}
		if out != nil {
			if err := json.Unmarshal(b, out); err != nil {
				return fmt.Errorf("coordinator: answer to %s %s: %w", method, path, err)
			}
		}
		return nil
	}
	return last
}

// Register registers a job. Give req.JobToken (NewJobToken) so that a
// retry is recognised; the server otherwise issues one in the answer.
func (c *Client) Register(ctx context.Context, req api.RegisterRequest) (api.RegisterResponse, error) {
	var out api.RegisterResponse
	err := c.do(ctx, "POST", "/v1/jobs", "", req, &out)
	return out, err
}

// Job returns a job's record.
func (c *Client) Job(ctx context.Context, id string) (api.JobView, error) {
	var out api.JobView
	err := c.do(ctx, "GET", "/v1/jobs/"+id, "", nil, &out)
	return out, err
}

// Status returns the coordinator's state.
func (c *Client) Status(ctx context.Context) (api.StatusView, error) {
	var out api.StatusView
	err := c.do(ctx, "GET", "/v1/status", "", nil, &out)
	return out, err
}

// Next asks when job id should checkpoint next (now: nil on the server's
// clock).
func (c *Client) Next(ctx context.Context, id string, now *float64) (api.AdviceView, error) {
	var out api.AdviceView
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/next", "", api.NowRequest{Now: now}, &out)
	return out, err
}

// Acquire asks for the file system (one attempt: granted or waiting).
func (c *Client) Acquire(ctx context.Context, id, jobToken string, req api.AcquireRequest) (coord.Grant, error) {
	var out coord.Grant
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/acquire", jobToken, req, &out)
	return out, err
}

// AcquireWith asks for the file system with req under its request id (a
// new one when req has none, so that the request can be polled): with
// wait until the grant (WaitGrant), else once, granted or waiting
// (ckpt coord acquire [--no-wait]).
func (c *Client) AcquireWith(ctx context.Context, id, jobToken string, req api.AcquireRequest, wait bool) (coord.Grant, error) {
	if wait {
		return c.WaitGrant(ctx, id, jobToken, req)
	}
	if req.RequestID == "" {
		req.RequestID = NewRequestID()
	}
	return c.Acquire(ctx, id, jobToken, req)
}

// WaitGrant acquires and polls with the same request id until the grant
// (or ctx ends, or the request ends otherwise: an error).
func (c *Client) WaitGrant(ctx context.Context, id, jobToken string, req api.AcquireRequest) (coord.Grant, error) {
	if req.RequestID == "" {
		req.RequestID = NewRequestID()
	}
	poll := c.PollInterval
	if poll == 0 {
		poll = time.Second
	}
	for {
		g, err := c.Acquire(ctx, id, jobToken, req)
		if err != nil {
			return g, err
		}
		switch g.Status {
		case coord.StatusGranted:
			return g, nil
		case coord.StatusWaiting:
		default:
			return g, fmt.Errorf("coordinator: request %s of job %s ended: %s", req.RequestID, id, g.Status)
		}
		select {
		case <-ctx.Done():
			return g, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// Renew is a heartbeat of a granted lease.
func (c *Client) Renew(ctx context.Context, id, jobToken string, token uint64, now *float64) (coord.Grant, error) {
	var out coord.Grant
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/renew", jobToken, api.RenewRequest{Token: token, Now: now}, &out)
	return out, err
}

// Release ends a granted lease; duration is the measured checkpoint
// duration in seconds (0: the time since the grant).
func (c *Client) Release(ctx context.Context, id, jobToken string, token uint64, duration float64, now *float64) (coord.Grant, error) {
	var out coord.Grant
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/release", jobToken, api.ReleaseRequest{Token: token, Duration: duration, Now: now}, &out)
	return out, err
}

// Cancel withdraws the job's outstanding request (waiting or granted)
// without counting a checkpoint.
func (c *Client) Cancel(ctx context.Context, id, jobToken, requestID string, now *float64) (coord.Grant, error) {
	var out coord.Grant
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/cancel", jobToken, api.CancelRequest{RequestID: requestID, Now: now}, &out)
	return out, err
}

// Done ends a job (failed: by a node failure).
func (c *Client) Done(ctx context.Context, id, jobToken string, failed bool, now *float64) (api.DoneResponse, error) {
	var out api.DoneResponse
	err := c.do(ctx, "POST", "/v1/jobs/"+id+"/done", jobToken, api.DoneRequest{Failed: failed, Now: now}, &out)
	return out, err
}
