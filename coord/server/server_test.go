package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

const bearer = "test-bearer-token-0123456789"

func newTestServer(t testing.TB, policy string, clientClock bool, mod func(*Options)) (*Server, *store.Bolt) {
	t.Helper()
	p, err := arbiter.Policies.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "c.db"), store.Options{Init: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Config: coord.Config{Policy: p, Bandwidth: 1e9, TTL: 10, NodeMTBF: 1e6}, Store: st,
		Tokens: []string{bearer}, ClientClock: clientClock, Rate: -1}
	if mod != nil {
		mod(&opt)
	}
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.writer.Close(); st.Close() })
	return s, st
}

type call struct {
	method, path, body, jobToken string
	noAuth                       bool
}

func do(t testing.TB, h http.Handler, c call) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	if !c.noAuth {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if c.jobToken != "" {
		req.Header.Set("X-Job-Token", c.jobToken)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out map[string]any
	b, _ := io.ReadAll(rec.Body)
	if err := json.Unmarshal(b, &out); err != nil && c.path != "/metrics" {
		t.Fatalf("%s %s: answer is not JSON: %q", c.method, c.path, b)
	}
	return rec.Code, out
}

const tokA, tokB = "job-a-secret-0123456789", "job-b-secret-0123456789"

func TestFlow(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, nil)
	h := s
	for _, c := range []struct {
		call
		code int
		want map[string]any
	}{
		{call{"GET", "/healthz", "", "", true}, 200, map[string]any{"status": "ok"}},
		{call{"POST", "/v1/jobs", `{"id":"a","nodes":10,"size_bytes":1e11,"mtbf_s":1e5,"job_token":"` + tokA + `","now_s":0}`, "", false}, 200, nil},
		{call{"POST", "/v1/jobs", `{"id":"b","nodes":10,"size_bytes":1e11,"mtbf_s":1e5,"job_token":"` + tokB + `","now_s":0}`, "", false}, 200, nil},
		// a retry of the registration: same answer, no conflict
		{call{"POST", "/v1/jobs", `{"id":"b","nodes":10,"size_bytes":1e11,"mtbf_s":1e5,"job_token":"` + tokB + `","now_s":1}`, "", false}, 200, nil},
		{call{"POST", "/v1/jobs", `{"id":"b","nodes":10,"size_bytes":1e11,"mtbf_s":1e5,"job_token":"another-token-0123456789","now_s":1}`, "", false}, 409, map[string]any{"field": "id"}},
		{call{"POST", "/v1/jobs/a/next", `{"now_s":0}`, "", false}, 200, map[string]any{"method": "daly"}},
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r1","kind":"checkpoint","now_s":1}`, tokA, false}, 200, map[string]any{"status": "granted", "token": 1.0}},
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r1","kind":"checkpoint","now_s":2}`, tokA, false}, 200, map[string]any{"status": "granted", "token": 1.0}},
		{call{"POST", "/v1/jobs/b/acquire", `{"request_id":"r1","kind":"checkpoint","now_s":2}`, tokB, false}, 200, map[string]any{"status": "waiting"}},
		{call{"POST", "/v1/jobs/a/release", `{"token":1,"now_s":3}`, tokB, false}, 403, map[string]any{"field": "X-Job-Token"}},
		{call{"POST", "/v1/jobs/a/renew", `{"token":1,"now_s":5}`, tokA, false}, 200, map[string]any{"status": "granted"}},
		{call{"POST", "/v1/jobs/a/release", `{"token":1,"duration_s":90,"now_s":6}`, tokA, false}, 200, map[string]any{"status": "released"}},
		{call{"POST", "/v1/jobs/a/release", `{"token":1,"now_s":7}`, tokA, false}, 200, map[string]any{"status": "released"}},
		{call{"POST", "/v1/jobs/b/acquire", `{"request_id":"r1","kind":"checkpoint","now_s":7}`, tokB, false}, 200, map[string]any{"status": "granted", "token": 2.0}},
		// b dies: its lease expires after the TTL; a late release is refused
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r2","kind":"checkpoint","now_s":8}`, tokA, false}, 200, map[string]any{"status": "waiting"}},
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r2","kind":"checkpoint","now_s":17}`, tokA, false}, 200, map[string]any{"status": "granted", "token": 3.0}},
		{call{"POST", "/v1/jobs/b/release", `{"token":2,"now_s":18}`, tokB, false}, 409, map[string]any{"field": "token"}},
		{call{"GET", "/v1/jobs/a", "", "", false}, 200, map[string]any{"c_s": 90.0, "checkpoints": 1.0}},
		{call{"POST", "/v1/jobs/b/done", `{"failed":true,"now_s":20}`, tokB, false}, 200, map[string]any{"status": "done"}},
		{call{"GET", "/v1/jobs/b", "", "", false}, 404, map[string]any{"field": "id"}},
	} {
		code, out := do(t, h, c.call)
		if code != c.code {
			t.Fatalf("%s %s %s: %d %v, want %d", c.method, c.path, c.body, code, out, c.code)
		}
		for k, v := range c.want {
			if out[k] != v {
				t.Fatalf("%s %s %s: %s = %v, want %v (%v)", c.method, c.path, c.body, k, out[k], v, out)
			}
		}
	}
	req := httptest.NewRequest("GET", "/metrics", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	for _, m := range []string{"ckpt_coord_grants_total 3", "ckpt_coord_expiries_total 1", "ckpt_coord_queue_length 0",
		"ckpt_coord_decision_seconds_bucket", "ckpt_coord_bandwidth_granted_bytes_per_second 1e+09", "ckpt_coord_fenced_total 1"} {
		if !strings.Contains(body, m) {
			t.Errorf("metrics lack %q", m)
		}
	}
	// sequential requests: each changing one is a transaction of its own
	commits, requests := metricValue(body, "ckpt_coord_commits_total"), metricValue(body, "ckpt_coord_committed_requests_total")
	if commits < 5 || commits != requests {
		t.Errorf("%v commits for %v committed requests, want as many (> 5) one by one", commits, requests)
	}
}

// metricValue is the value of the unlabelled metric name in a Prometheus
// text exposition (-1 if absent).
func metricValue(body, name string) float64 {
	for line := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// Every refusal is a 4xx JSON error naming the field.
func TestErrorsNameTheField(t *testing.T) {
	s, _ := newTestServer(t, "least-waste", true, func(o *Options) { o.MaxBody = 512 })
	h := s
	do(t, h, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":10,"job_token":"` + tokA + `","now_s":0}`, "", false})
	for _, c := range []struct {
		call
		code  int
		field string
	}{
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1,"now_s":0}`, "", true}, 401, "Authorization"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":"many","c_s":1,"now_s":0}`, "", false}, 400, "nodes"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1,"colour":2,"now_s":0}`, "", false}, 400, "colour"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":0,"c_s":1,"now_s":0}`, "", false}, 400, "nodes"},
		{call{"POST", "/v1/jobs", `{"id":"x y","nodes":1,"c_s":1,"now_s":0}`, "", false}, 400, "id"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"now_s":0}`, "", false}, 400, "size_bytes"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1}`, "", false}, 400, "now_s"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1,"now_s":0} {}`, "", false}, 400, "body"},
		{call{"POST", "/v1/jobs", `{"id":`, "", false}, 400, "body"},
		{call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1,"job_token":"short","now_s":0}`, "", false}, 400, "job_token"},
		{call{"POST", "/v1/jobs", `{"id":"` + strings.Repeat("x", 600) + `"}`, "", false}, 413, "body"},
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r","kind":"coffee","now_s":1}`, tokA, false}, 400, "kind"},
		{call{"POST", "/v1/jobs/a/acquire", `{"kind":"checkpoint","now_s":1}`, tokA, false}, 400, "request_id"},
		{call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r","ttl_s":-1,"now_s":1}`, tokA, false}, 400, "ttl_s"},
		{call{"POST", "/v1/jobs/a/release", `{"token":-1,"now_s":1}`, tokA, false}, 400, "token"},
		{call{"POST", "/v1/jobs/a/release", `{"token":5,"now_s":1}`, tokA, false}, 409, "token"},
		{call{"POST", "/v1/jobs/a/release", `{"token":5,"now_s":1}`, "", false}, 403, "X-Job-Token"},
		{call{"POST", "/v1/jobs/zz/next", `{"now_s":1}`, "", false}, 404, "id"},
		{call{"DELETE", "/v1/jobs/a", ``, "", false}, 404, "path"},
		{call{"GET", "/v2/x", ``, "", false}, 404, "path"},
	} {
		code, out := do(t, h, c.call)
		if code != c.code || (c.field != "" && out["field"] != c.field) || (code != 405 && out["error"] == "") {
			t.Errorf("%s %s %.60s: %d %v, want %d field %q", c.method, c.path, c.body, code, out, c.code, c.field)
		}
	}
}

func TestRateLimitAndWallClock(t *testing.T) {
	s, _ := newTestServer(t, "ordered", false, func(o *Options) { o.Rate, o.Burst = 1, 3 })
	h := s
	codes := []int{}
	for range 5 {
		c, _ := do(t, h, call{"GET", "/v1/status", "", "", false})
		codes = append(codes, c)
	}
	if codes[0] != 200 || codes[2] != 200 || codes[4] != 429 {
		t.Errorf("rate limit: %v", codes)
	}
	s2, _ := newTestServer(t, "ordered", false, nil)
	if c, out := do(t, s2, call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1,"now_s":5}`, "", false}); c != 400 || out["field"] != "now_s" {
		t.Errorf("now on the wall clock: %d %v", c, out)
	}
	if c, out := do(t, s2, call{"POST", "/v1/jobs", `{"id":"x","nodes":1,"c_s":1}`, "", false}); c != 200 || out["job_token"] == nil {
		t.Errorf("issued token: %d %v", c, out)
	}
}

// No input makes a handler panic or answer 5xx; every answer is JSON and
// every 4xx names an error.
func FuzzHandlers(f *testing.F) {
	f.Add(0, "/v1/jobs", `{"id":"a","nodes":1,"c_s":1,"now_s":0}`, true, true)
	f.Add(1, "/v1/jobs/a/acquire", `{"request_id":"r","kind":"checkpoint","now_s":1}`, true, true)
	f.Add(1, "/v1/jobs/a/release", `{"token":1,"duration_s":1e308,"now_s":1e15}`, true, true)
	f.Add(1, "/v1/jobs/a/next", `{"now_s":NaN}`, true, false)
	f.Add(2, "/v1/jobs/a%00", "\x00\xff", false, false)
	s, _ := newTestServer(f, "least-waste", true, nil)
	h := s
	do(f, h, call{"POST", "/v1/jobs", `{"id":"a","nodes":3,"c_s":5,"job_token":"` + tokA + `","now_s":0}`, "", false})
	methods := []string{"POST", "POST", "GET", "DELETE"}
	f.Fuzz(func(t *testing.T, m int, path, body string, auth, job bool) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t") {
			return
		}
		req, err := http.NewRequest(methods[((m%4)+4)%4], "http://x"+path, bytes.NewReader([]byte(body)))
		if err != nil {
			return
		}
		req.RemoteAddr = "127.0.0.1:1"
		if auth {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		if job {
			req.Header.Set("X-Job-Token", tokA)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q %q: %d %s", req.Method, path, body, rec.Code, rec.Body)
		}
		if path == "/metrics" || rec.Code == 405 || rec.Code == 301 || rec.Code == 307 || rec.Code == 308 {
			return
		}
		var out api.ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%q: answer not JSON: %q", path, rec.Body)
		}
		if rec.Code >= 400 && out.Error == "" {
			t.Fatalf("%q %q: %d without an error message", path, body, rec.Code)
		}
	})
}

// Simulation mode: the answers carry the grants each call made, so a
// simulator learns its decisions without polling; cancel frees the file
// system without counting a checkpoint.
func TestSimulationNotices(t *testing.T) {
	s, _ := newTestServer(t, "ordered-nb", true, nil)
	h := s
	do(t, h, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":10,"job_token":"` + tokA + `","now_s":0}`, "", false})
	do(t, h, call{"POST", "/v1/jobs", `{"id":"b","nodes":1,"c_s":10,"job_token":"` + tokB + `","now_s":0}`, "", false})
	_, g := do(t, h, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"1","kind":"recovery","now_s":5}`, tokA, false})
	do(t, h, call{"POST", "/v1/jobs/b/acquire", `{"request_id":"1","now_s":6}`, tokB, false})
	if n := g["granted"].([]any); len(n) != 1 || n[0].(map[string]any)["job"] != "a" {
		t.Fatalf("acquire notices %v", g)
	}
	code, c := do(t, h, call{"POST", "/v1/jobs/a/cancel", `{"request_id":"1","now_s":7}`, tokA, false})
	n, _ := c["granted"].([]any)
	if code != 200 || c["status"] != "dropped" || len(n) != 1 || n[0].(map[string]any)["job"] != "b" {
		t.Fatalf("cancel: %d %v", code, c)
	}
	if _, j := do(t, h, call{"GET", "/v1/jobs/a", "", "", false}); j["checkpoints"] != 0.0 {
		t.Errorf("a cancelled transfer counted: %v", j)
	}
}

// With the client's clock, /v1/status shows the platform at the client's
// time (the latest a request carried, or ?now=), never the wall clock:
// one failure over a job of 1 node that ran 100 s and a live job of 10
// nodes registered at 0 give μ̂ = (100 + 10·100)/1 at time 100.
func TestStatusOnTheClientClock(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, func(o *Options) { o.Config.NodeMTBF = 0 })
	do(t, s, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":1,"job_token":"` + tokA + `","now_s":0}`, "", false})
	do(t, s, call{"POST", "/v1/jobs", `{"id":"b","nodes":10,"c_s":1,"job_token":"` + tokB + `","now_s":0}`, "", false})
	if code, out := do(t, s, call{"POST", "/v1/jobs/a/done", `{"failed":true,"now_s":100}`, tokA, false}); code != 200 {
		t.Fatalf("done: %d %v", code, out)
	}
	for q, want := range map[string][2]float64{"": {100, 1100}, "?now=200": {200, 2100}} {
		code, st := do(t, s, call{"GET", "/v1/status" + q, "", "", false})
		if code != 200 || st["now_s"] != want[0] || st["node_mtbf_s"] != want[1] {
			t.Errorf("status%s: %d now %v node_mtbf %v, want %v", q, code, st["now_s"], st["node_mtbf_s"], want)
		}
	}
}
