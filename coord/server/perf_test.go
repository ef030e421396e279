package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/api"
)

// The profiler is served only with Pprof, and only to a request that
// carries one of the API's bearer tokens.
func TestPprofBehindBearerTokens(t *testing.T) {
	get := func(s *Server, auth string) (int, string) {
		req := httptest.NewRequest("GET", "/debug/pprof/cmdline", nil)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	off, _ := newTestServer(t, "least-waste", true, nil)
	if code, _ := get(off, bearer); code != http.StatusNotFound {
		t.Errorf("without Pprof: %d, want 404", code)
	}
	on, _ := newTestServer(t, "least-waste", true, func(o *Options) { o.Pprof = true })
	if code, body := get(on, ""); code != http.StatusUnauthorized || !strings.Contains(body, "bearer token") {
		t.Errorf("no token: %d %q, want 401", code, body)
	}
	if code, _ := get(on, "not-the-token-0123456789"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	if code, body := get(on, bearer); code != http.StatusOK || !strings.Contains(body, ".test") {
		t.Errorf("with the token: %d %q, want 200 and the command line", code, body)
	}
}

// BenchmarkRequest is one decision request through the whole handler
// (authentication, body, core, group commit on a store without fsync,
// answer), without the network: its allocs/op and B/op are the
// server's own, independent of the machine's load.
func BenchmarkRequest(b *testing.B) {
	s, _ := newTestServer(b, "least-waste", false, nil)
	const jobs = 1000
	for i := range jobs {
		body := fmt.Sprintf(`{"id":"j%d","nodes":%d,"size_bytes":%d,"mtbf_s":86400,"job_token":"job-token-%d-0123456789"}`, i, 1+i%64, (1+i%16)*1e9, i)
		if code, out := do(b, s, call{"POST", "/v1/jobs", body, "", false}); code != 200 {
			b.Fatal(code, out)
		}
	}
	req := func(i int) *http.Request {
		j := i % jobs
		var r *http.Request
		switch (i / jobs) % 3 {
		case 0:
			r = httptest.NewRequest("POST", fmt.Sprintf("/v1/jobs/j%d/next", j), strings.NewReader(`{}`))
		case 1:
			r = httptest.NewRequest("POST", fmt.Sprintf("/v1/jobs/j%d/acquire", j), strings.NewReader(fmt.Sprintf(`{"request_id":"r%d","kind":"checkpoint"}`, i)))
		default:
			r = httptest.NewRequest("POST", fmt.Sprintf("/v1/jobs/j%d/cancel", j), strings.NewReader(fmt.Sprintf(`{"request_id":"r%d"}`, i-jobs)))
		}
		r.Header.Set("Authorization", "Bearer "+bearer)
		r.Header.Set("X-Job-Token", fmt.Sprintf("job-token-%d-0123456789", j))
		return r
	}
	const n = 3 * jobs
	reqs := make([]*http.Request, n)
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			b.StopTimer()
			for k := range reqs {
				reqs[k] = req(k)
			}
			b.StartTimer()
		}
		if i < n { // the first round: every answer a 200
			fresh := httptest.NewRecorder()
			s.ServeHTTP(fresh, reqs[i])
			if fresh.Code != http.StatusOK {
				b.Fatalf("request %d: %d %s", i, fresh.Code, fresh.Body)
			}
			continue
		}
		rec.Body.Reset()
		s.ServeHTTP(rec, reqs[i%n])
	}
}

// decode's one-pass path gives what the key-by-key path gives — the same
// value, or the same refusal naming the same field — for any body: the
// key-by-key path is the oracle.
func FuzzDecodeOnePass(f *testing.F) {
	for _, s := range []string{``, `{}`, "\f{}", "\v{}\v", "\u00a0{}", "{}\u0085", "\u2028{}", " \t{}\r\n", ` {"request_id":"r1","kind":"checkpoint"} `, `{"Request_ID":"r"}`,
		`{"request_id":"r","request_id":7}`, `{"request_id":7,"request_id":"r"}`, `{"now_s":null}`, `{"now_s":1e3,"ttl_s":"x"}`,
		`{"id":"a\"b","nodes":3}`, `{"n\u006fdes":3}`, `{"id":{"x":[1,{"y":"}"}]}}`, `{"kind":"restart"} x`, `[1]`, `{"id":"a",}`,
		`{"nodes":1.5}`, `{"size_bytes":1e400}`, `{"job_token":"0123456789abcdef0123"}`, `{"id" : "a" , "nodes" : 2 }`, `{"kind":"bogus"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		check := func(fast, slow any) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(body))
			ef := decode(req, fast)
			b := []byte(body)
			if len(strings.TrimSpace(body)) == 0 {
				b = []byte("{}")
			}
			es := decodeKeys(b, slow)
			if (ef == nil) != (es == nil) || (ef != nil && ef.Error() != es.Error()) {
				t.Fatalf("%q: one pass %v, key by key %v", body, ef, es)
			}
			if ef == nil && !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: one pass %+v, key by key %+v", body, fast, slow)
			}
			if ef != nil {
				ae, ok := ef.(*apiError)
				be, _ := es.(*apiError)
				if !ok || be == nil || ae.field != be.field {
					t.Fatalf("%q: fields %v / %v", body, ef, es)
				}
			}
		}
		check(&api.AcquireRequest{}, &api.AcquireRequest{})
		check(&api.RegisterRequest{}, &api.RegisterRequest{})
		check(&api.NowRequest{}, &api.NowRequest{})
	})
}

// Stopping the server ends a long request at once: a 30 s CPU profile in
// flight when the context ends does not hold Serve (Ctrl-C within a
// second; it held it for the 5 s shutdown timeout, then failed).
func TestServeStopsDuringALongProfile(t *testing.T) {
	s, _ := newTestServer(t, "least-waste", true, func(o *Options) { o.Pprof = true })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	started := make(chan struct{})
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/debug/pprof/profile?seconds=30", nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		close(started)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	time.Sleep(300 * time.Millisecond) // the profile is under way
	cancel()
	t0 := time.Now()
	select {
	case err := <-done:
		if d := time.Since(t0); d > time.Second {
			t.Errorf("Serve returned %v after the context ended, want within a second", d)
		}
		if err != nil {
			t.Errorf("a stop with a request in flight: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still running 10 s after the context ended")
	}
}
