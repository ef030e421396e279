package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
