package client

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Client talks to one coordinator, or to a replicated one (coord/replica)
// through any of its replicas.
type Client struct {
	// Base is the server's URL, e.g. http://127.0.0.1:7070, or the URLs
	// of a group's replicas, comma-separated: a request goes to the one
	// that answered last, follows a 307 to the leader (only to one of
	// these URLs or to a replica the group lists in /v1/status, asked of
	// the server that redirected: the bearer token is never sent to any
	// other host, and a 307 there is an error), and on a
	// connection error or a 503 goes to the next one, always with the same
	// body (so the same request id or job token: the server recognises a
	// retry, across a failover too, since the requests it remembers are in
	// the replicated state).
	Base string
	// Token is the bearer token.
	Token string
	// HTTP is the transport (a client with a 10 s timeout if nil).
	HTTP *http.Client
	// Retries of a request after a transport error, 429, 503 or a 307
	// (3 if zero with one URL, 20 with several: about 9 s of backoff,
	// enough for an election; < 0: none).
	Retries int
	// PollInterval of WaitGrant (1 s if zero).
	PollInterval time.Duration
	// Timeout bounds one request, its retries included (0: no bound but
	// theirs: with HTTP's 10 s per attempt, 4 attempts take up to 40 s
	// with one URL, 21 up to 210 s with several). A request without an
	// answer by then is an error naming the bound, not ctx's.
	Timeout time.Duration

	cur   atomic.Int32 // the URL of Base that answered last
	peers sync.Map     // origin -> true: replicas a configured server's /v1/status listed
}

// New returns a client of the coordinator at base, an http(s) URL or
// several comma-separated (a replicated coordinator's replicas), with the
// bearer token; a malformed URL is a usage error.
func New(base, token string) (*Client, error) {
	for b := range strings.SplitSeq(base, ",") {
		if _, err := origin(b); err != nil {
			return nil, usage.Fieldf("server", "%q is not an http(s) URL", b)
		}
	}
	return &Client{Base: base, Token: token}, nil
}

// origin is scheme://host of an http(s) URL.
func origin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// bases are the URLs of Base, without trailing slashes.
func (c *Client) bases() []string {
	bs := strings.Split(c.Base, ",")
	for i, b := range bs {
		bs[i] = strings.TrimRight(strings.TrimSpace(b), "/")
	}
	return bs
}

// noRedirect makes the transport return a 307 to do, which follows it
// itself (keeping the bearer token, which Go's client drops on a redirect
// to another host).
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// isPeer tells whether origin o is the HTTP address of a replica of the
// group that base (a configured server) belongs to, as base's
// /v1/status lists them (asked once per origin not yet known).
func (c *Client) isPeer(ctx context.Context, hc *http.Client, base, o string) bool {
	if _, ok := c.peers.Load(o); ok {
		return true
	}
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/status?stale=1", nil)
	if err != nil {
		return false
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var st struct {
		Replication struct {
			Peers []struct {
				HTTP string `json:"http"`
			} `json:"peers"`
		} `json:"replication"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&st) != nil {
		return false
	}
	scheme, _, _ := strings.Cut(base, "://")
	c.peers.Clear() // a member removed since the last answer is trusted no more
	for _, p := range st.Replication.Peers {
		if p.HTTP != "" {
			c.peers.Store(scheme+"://"+p.HTTP, true)
		}
	}
	_, ok := c.peers.Load(o)
	return ok
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
	parent := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	attempts := 0
	var last error
	// ended: the caller's ctx ended, or the Timeout did
	ended := func() error {
		if parent.Err() != nil {
			return parent.Err()
		}
		return fmt.Errorf("coordinator: %s %s: no answer within %v (attempts: %d; the last: %v)", method, path, c.Timeout, attempts, last)
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	if c.HTTP != nil {
		*hc = *c.HTTP
	}
	hc.CheckRedirect = noRedirect
	bases := c.bases()
	retries := c.Retries
	if retries == 0 {
		retries = 3
		if len(bases) > 1 {
			retries = 20
		}
	}
	i := int(c.cur.Load()) % len(bases)
	next := func() { i = (i + 1) % len(bases); c.cur.Store(int32(i)) }
	leader := "" // where the last 307 pointed, if not one of bases
	wait := time.Duration(0)
	for attempt := 0; attempt <= max(retries, 0); attempt++ {
		if wait > 0 {
			select {
			case <-ctx.Done():
				return ended()
			case <-time.After(wait):
			}
		}
		attempts++
		wait = min(time.Duration(attempt+1)*100*time.Millisecond, 500*time.Millisecond)
		base := cmp.Or(leader, bases[i])
		leader = ""
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
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
			last = err
			if ctx.Err() != nil {
				return ended()
			}
			next()
			continue
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			last = err
			continue
		}
		if resp.StatusCode == http.StatusTemporaryRedirect || resp.StatusCode == http.StatusPermanentRedirect {
			o, err := origin(resp.Header.Get("Location"))
			if err != nil {
				return fmt.Errorf("coordinator: %s %s: redirected to %w", method, path, err)
			}
			last = fmt.Errorf("coordinator: %s %s: redirected to %s", method, path, o)
			if j := slices.Index(bases, o); j >= 0 {
				i = j
				c.cur.Store(int32(j))
			} else if c.isPeer(ctx, hc, bases[i], o) { // the given server vouches, never a followed one
				leader = o
			} else {
				return fmt.Errorf("coordinator: %s %s: redirected by %s to %s, neither a server given nor a replica its group lists: not followed", method, path, base, o)
			}
			wait = 0
			continue
		}
		if resp.StatusCode >= 400 {
			var eb api.ErrorBody
			json.Unmarshal(b, &eb)
			if eb.Error == "" {
				eb.Error = strings.TrimSpace(string(b))
			}
			last = &Error{Status: resp.StatusCode, Code: eb.Code, Field: eb.Field, Msg: eb.Error}
			if resp.StatusCode == 503 && len(bases) > 1 {
				next()
			}
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

// AddMember adds replica m to a replicated coordinator's group (through
// its leader) and returns the group.
func (c *Client) AddMember(ctx context.Context, m api.Member) (api.GroupView, error) {
	var out api.GroupView
	err := c.do(ctx, "POST", "/v1/members", "", m, &out)
	return out, err
}

// RemoveMember removes replica id from the group and returns the group.
func (c *Client) RemoveMember(ctx context.Context, id string) (api.GroupView, error) {
	var out api.GroupView
	err := c.do(ctx, "DELETE", "/v1/members/"+url.PathEscape(id), "", nil, &out)
	return out, err
}
