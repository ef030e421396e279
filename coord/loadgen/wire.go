package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// driver sends the three requests of the load loop for one client.
type driver interface {
	next(ctx context.Context, j *job) error
	acquire(ctx context.Context, j *job) (coord.Grant, error)
	release(ctx context.Context, j *job) error
	done(ctx context.Context, j *job) error // ends the job (finishing mode)
	close()
}

// viaClient drives through the Go client (coord/client): a replicated
// coordinator's failover, https.
type viaClient struct{ cl *client.Client }

func (d viaClient) next(ctx context.Context, j *job) error {
	_, err := d.cl.Next(ctx, j.id, nil)
	return err
}

func (d viaClient) acquire(ctx context.Context, j *job) (coord.Grant, error) {
	return d.cl.Acquire(ctx, j.id, j.token, api.AcquireRequest{RequestID: j.rid, Kind: arbiter.Checkpoint})
}

func (d viaClient) release(ctx context.Context, j *job) error {
	_, err := d.cl.Release(ctx, j.id, j.token, j.lease, 0, nil)
	return err
}

func (d viaClient) done(ctx context.Context, j *job) error {
	_, err := d.cl.Done(ctx, j.id, j.token, false, nil)
	return err
}

func (viaClient) close() {}

// wire is one load client's keep-alive HTTP/1.1 connection to a single
// plain-http coordinator: each request is written from bytes built in
// place (the bodies the Go client sends, byte for byte: acquireBody,
// releaseBody), each answer read with net/http's own parser
// (http.ReadResponse: status line, headers, Content-Length or chunked
// body) and judged as the Go client judges it: a 200's body decoded into
// the same type, a 4xx/5xx a *client.Error from its error body, a
// redirect an error (one server: a request is sent once). A request that
// finds its kept-alive connection closed by the server before any answer
// (end of file or a reset) is sent again on a new one, once: net/http's
// transport does so for a request it could not write, and every request
// of the load loop is idempotent, so the wire also does it after a reset
// (never seen in a run: the server keeps idle connections 120 s). It costs the
// load generator no goroutine per connection and no copy of the client
// per request.
type wire struct {
	addr, host, prefix, auth string
	dial                     func(ctx context.Context, network, addr string) (net.Conn, error)
	conn                     net.Conn
	br                       *bufio.Reader
	stop                     func() bool // unregisters the context watch
	used                     bool        // the connection answered before
	req, body                []byte
}

// newWire returns the wire to base (http://host:port[/prefix]) with
// bearer token tok, dialling with dial; ok false if base is not plain
// http (the Go client serves it).
func newWire(base, tok string, dial func(context.Context, string, string) (net.Conn, error)) (*wire, bool) {
	u, err := neturl.Parse(strings.TrimSpace(base))
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, false
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	w := &wire{addr: addr, host: u.Host, prefix: strings.TrimRight(u.EscapedPath(), "/"), dial: dial}
	if tok != "" {
		w.auth = "Bearer " + tok
	}
	return w, true
}

func (w *wire) next(ctx context.Context, j *job) error {
	var a api.AdviceView
	return w.post(ctx, j.id, "/next", "", []byte("{}"), &a)
}

func (w *wire) acquire(ctx context.Context, j *job) (coord.Grant, error) {
	var g coord.Grant
	err := w.post(ctx, j.id, "/acquire", j.token, acquireBody(w.body[:0], j.rid), &g)
	return g, err
}

func (w *wire) release(ctx context.Context, j *job) error {
	var g coord.Grant
	return w.post(ctx, j.id, "/release", j.token, releaseBody(w.body[:0], j.lease), &g)
}

func (w *wire) done(ctx context.Context, j *job) error {
	var d api.DoneResponse
	return w.post(ctx, j.id, "/done", j.token, []byte("{}"), &d) // json.Marshal(api.DoneRequest{})
}

// acquireBody appends json.Marshal(api.AcquireRequest{RequestID: rid,
// Kind: arbiter.Checkpoint}) for a request id of [A-Za-z0-9] (nothing to
// escape).
func acquireBody(b []byte, rid string) []byte {
	b = append(b, `{"request_id":"`...)
	b = append(b, rid...)
	return append(b, `","kind":"checkpoint"}`...)
}

// releaseBody appends json.Marshal(api.ReleaseRequest{Token: token}).
func releaseBody(b []byte, token uint64) []byte {
	b = append(b, `{"token":`...)
	b = strconv.AppendUint(b, token, 10)
	return append(b, '}')
}

func (w *wire) close() {
	if w.conn != nil {
		w.stop()
		w.conn.Close()
		w.conn = nil
	}
}

// requestTimeout bounds a request as the Go client's default does.
const requestTimeout = 10 * time.Second

// post sends POST /v1/jobs/{id}{op} with body (the X-Job-Token header if
// jobToken is not empty) and decodes a 200's answer into out (nil: the
// body is read and checked to be JSON).
func (w *wire) post(ctx context.Context, id, op, jobToken string, body []byte, out any) error {
	path := "/v1/jobs/" + id + op
	w.req = w.req[:0]
	w.req = append(w.req, "POST "...)
	w.req = append(w.req, w.prefix...)
	w.req = append(w.req, path...)
	w.req = append(w.req, " HTTP/1.1\r\nHost: "...)
	w.req = append(w.req, w.host...)
	if w.auth != "" {
		w.req = append(w.req, "\r\nAuthorization: "...)
		w.req = append(w.req, w.auth...)
	}
	if jobToken != "" {
		w.req = append(w.req, "\r\nX-Job-Token: "...)
		w.req = append(w.req, jobToken...)
	}
	w.req = append(w.req, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	w.req = strconv.AppendInt(w.req, int64(len(body)), 10)
	w.req = append(w.req, "\r\n\r\n"...)
	w.req = append(w.req, body...)
	for try := 0; ; try++ {
		reused := w.conn != nil && w.used
		resp, err := w.roundTrip(ctx)
		if err != nil {
			w.close()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if reused && try == 0 && errors.Is(err, errNoAnswer) {
				continue // the server closed the idle connection: send again on a new one
			}
			return fmt.Errorf("coordinator: POST %s: %w", path, err)
		}
		return w.answer(resp, path, out)
	}
}

// errNoAnswer: the connection ended before any byte of an answer. On a
// kept-alive connection the request is sent again, once: the server
// closed it while idle (every request of the load loop is idempotent:
// the same request id, the same lease token).
var errNoAnswer = errors.New("connection closed before an answer")

// roundTrip writes w.req and reads the answer's head.
func (w *wire) roundTrip(ctx context.Context) (*http.Response, error) {
	if w.conn == nil {
		c, err := w.dial(ctx, "tcp", w.addr)
		if err != nil {
			return nil, err
		}
		w.conn, w.used = c, false
		if w.br == nil {
			w.br = bufio.NewReaderSize(c, 4096)
		} else {
			w.br.Reset(c)
		}
		w.stop = context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) }) // ends a request in flight at once
	}
	w.conn.SetDeadline(time.Now().Add(requestTimeout))
	if err := ctx.Err(); err != nil { // after the deadline: a watch that fired before is not undone
		return nil, err
	}
	if _, err := w.conn.Write(w.req); err != nil {
		return nil, errNoAnswer
	}
	if _, err := w.br.Peek(1); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
			err = errNoAnswer // a closed connection: a FIN or, if the request crossed it, a reset
		}
		return nil, err
	}
	return http.ReadResponse(w.br, nil)
}

// answer reads resp's body (at most 1 MiB, as the Go client) and judges
// it as the Go client does.
func (w *wire) answer(resp *http.Response, path string, out any) error {
	w.body = w.body[:0]
	buf := bytes.NewBuffer(w.body)
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	w.body = buf.Bytes()
	if err != nil {
		w.close()
		return fmt.Errorf("coordinator: POST %s: %w", path, err)
	}
	w.used = true
	if resp.Close {
		w.close()
	}
	b := w.body
	switch {
	case resp.StatusCode == http.StatusTemporaryRedirect || resp.StatusCode == http.StatusPermanentRedirect:
		return fmt.Errorf("coordinator: POST %s: redirected to %s: one server, not followed", path, resp.Header.Get("Location"))
	case resp.StatusCode >= 400:
		var eb api.ErrorBody
		json.Unmarshal(b, &eb)
		if eb.Error == "" {
			eb.Error = strings.TrimSpace(string(b))
		}
		return &client.Error{Status: resp.StatusCode, Code: eb.Code, Field: eb.Field, Msg: eb.Error}
	case out != nil:
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("coordinator: answer to POST %s: %w", path, err)
		}
	}
	return nil
}
