package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"pgregory.net/rapid"
)

// The bodies the wire builds in place are json.Marshal's (the oracle),
// the bodies the Go client sends.
func TestWireBodiesAreMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rid := rapid.StringMatching(`[A-Za-z0-9]{1,24}`).Draw(t, "rid")
		tok := rapid.Uint64().Draw(t, "token")
		want, _ := json.Marshal(api.AcquireRequest{RequestID: rid, Kind: arbiter.Checkpoint})
		if got := acquireBody([]byte("x"), rid)[1:]; !bytes.Equal(got, want) {
			t.Fatalf("acquire body %s, want %s", got, want)
		}
		want, _ = json.Marshal(api.ReleaseRequest{Token: tok})
		if got := releaseBody(nil, tok); !bytes.Equal(got, want) {
			t.Fatalf("release body %s, want %s", got, want)
		}
	})
}

// answers is a test server whose answer the test sets, and the wire and
// the Go client that ask it.
type answers struct {
	mu     sync.Mutex // the test sets the answer, the server's goroutines read it
	status int
	body   string
	// chunked sends the body chunked; shut adds Connection: close
	chunked, shut bool
	seen          []string // the requests, as the server saw them
	srv           *httptest.Server
	wr            *wire
	cl            viaClient
}

func newAnswers(t testing.TB) *answers {
	a := &answers{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.seen = append(a.seen, fmt.Sprintf("%s %s %s %s %s %s", r.Method, r.URL.Path, r.Header.Get("Authorization"),
			r.Header.Get("X-Job-Token"), r.Header.Get("Content-Type"), b.String()))
		if a.shut {
			w.Header().Set("Connection", "close")
		}
		if a.status == http.StatusTemporaryRedirect {
			w.Header().Set("Location", "http://127.0.0.1:1/v1/jobs/j/acquire")
		}
		w.WriteHeader(a.status)
		if a.chunked {
			w.(http.Flusher).Flush() // the body goes chunked
		}
		w.Write([]byte(a.body))
	}))
	t.Cleanup(a.srv.Close)
	var d net.Dialer
	wr, ok := newWire(a.srv.URL+"/", "bearer-0123456789", d.DialContext)
	if !ok {
		t.Fatal("no wire to", a.srv.URL)
	}
	t.Cleanup(wr.close)
	a.wr, a.cl = wr, viaClient{&client.Client{Base: a.srv.URL, Token: "bearer-0123456789", Retries: -1}}
	return a
}

// check has the wire and the client acquire with request id rid against
// the answer set, and fails unless they judge it alike.
func (a *answers) check(t interface{ Fatalf(string, ...any) }, status int, body string, chunked, shut bool, rid string) {
	a.mu.Lock()
	a.status, a.body, a.chunked, a.shut, a.seen = status, body, chunked, shut, nil
	a.mu.Unlock()
	j := &job{id: "j", token: "job-token-0123456789", rid: rid}
	g1, e1 := a.wr.acquire(context.Background(), j)
	g2, e2 := a.cl.acquire(context.Background(), j)
	var c1, c2 *client.Error
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case (e1 == nil) != (e2 == nil):
		t.Fatalf("wire %+v %v, client %+v %v", g1, e1, g2, e2)
	case errors.As(e1, &c1) != errors.As(e2, &c2) || (c1 != nil && *c1 != *c2):
		t.Fatalf("wire %v, client %v", e1, e2)
	case e1 == nil && !reflect.DeepEqual(g1, g2):
		t.Fatalf("wire %+v, client %+v", g1, g2)
	case len(a.seen) < 2 || a.seen[0] != a.seen[1]: // (on a 307 the client asks the server for its group too)
		t.Fatalf("the server saw %q", a.seen)
	}
}

// The wire judges every answer as the Go client does (the oracle): for
// any status, body, framing (Content-Length, chunked, close-delimited)
// and Connection: close, the same grant, or the same *client.Error, or
// an error from both (on a redirect the client follows nothing either:
// one server). The request the server sees carries the same method,
// path, tokens and body as the client's.
func TestWireJudgesAnswersAsTheClient(t *testing.T) {
	a := newAnswers(t)
	bodies := []string{`{"job":"j","status":"granted","token":7,"waiting":2,"expires_s":1.5}`, `{"job":"j","status":"waiting","waiting":3}`,
		`{"error":"rate limit exceeded","code":"rate_limited"}`, `{"error":"bad","code":"invalid","field":"kind"}`, `not json`, ``,
		`{"status":7}`, strings.Repeat(" ", 5000) + `{"status":"granted","token":9}`}
	rapid.Check(t, func(t *rapid.T) {
		a.check(t, rapid.SampledFrom([]int{200, 200, 201, 307, 400, 403, 404, 409, 429, 500, 503}).Draw(t, "status"),
			rapid.SampledFrom(bodies).Draw(t, "body"), rapid.Bool().Draw(t, "chunked"), rapid.Bool().Draw(t, "close"),
			"r"+fmt.Sprint(rapid.IntRange(1, 1e6).Draw(t, "n")))
	})
}

// The same for any body and status the fuzzer finds: the wire and the Go
// client agree on every answer.
func FuzzWireAnswer(f *testing.F) {
	for _, b := range []string{`{"job":"j","status":"granted","token":7}`, `{"error":"x","code":"conflict","field":"request_id"}`,
		`{"status":"waiting","waiting":1e400}`, "\xff", `[]`, `{"token":-1}`, `null`} {
		f.Add(200, b, false)
		f.Add(409, b, true)
	}
	a := newAnswers(f)
	f.Fuzz(func(t *testing.T, status int, body string, chunked bool) {
		if status < 200 || status > 599 || status == http.StatusNoContent || status == http.StatusNotModified || status == 205 {
			t.Skip() // a handler cannot send a body with these
		}
		a.check(t, status, body, chunked, false, "r1")
	})
}

// A kept-alive connection the server closed while idle: the request is
// sent again on a new connection, once, whether it meets the server's FIN
// or its reset; a fresh connection closed before any answer is an error.
func TestWireResendsOnAClosedIdleConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	answers := make(chan int, 10) // answers per connection, then close
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := <-answers
			br := bufio.NewReader(c)
			for range n {
				req, err := http.ReadRequest(br)
				if err != nil {
					break
				}
				req.Body.Close()
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
			}
			c.Close()
		}
	}()
	var d net.Dialer
	wr, _ := newWire("http://"+ln.Addr().String(), "", d.DialContext)
	defer wr.close()
	j := &job{id: "j"}
	answers <- 1
	answers <- 1
	for i := range 2 { // the second finds the first connection closed
		if err := wr.next(context.Background(), j); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	answers <- 0 // the third finds it closed too, and the new one answers nothing
	if err := wr.next(context.Background(), j); err == nil {
		t.Fatal("a connection closed before any answer, twice: no error")
	}
}
