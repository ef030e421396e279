package server

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
)

// No request stops the coordinator: a checkpoint estimate whose product
// with the bandwidth overflows (C = 1e300 s at 1 GB/s is +Inf bytes) is
// refused with 400, and the coordinator keeps serving.
func TestOverflowingInputsRefused(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, nil)
	for _, c := range []struct {
		call
		field string
	}{
		{call{"POST", "/v1/jobs", `{"id":"big","nodes":1,"c_s":1e300,"job_token":"` + tokA + `","now_s":0}`, "", false}, "c_s"},
		{call{"POST", "/v1/jobs", `{"id":"big","nodes":1,"size_bytes":1e300,"job_token":"` + tokA + `","now_s":0}`, "", false}, "size_bytes"},
		{call{"POST", "/v1/jobs", `{"id":"big","nodes":1,"c_s":1,"mtbf_s":1e300,"job_token":"` + tokA + `","now_s":0}`, "", false}, "mtbf_s"},
	} {
		if code, out := do(t, s, c.call); code != 400 || out["field"] != c.field {
			t.Errorf("%s: %d %v, want 400 naming %s", c.body, code, out, c.field)
		}
	}
	do(t, s, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":10,"job_token":"` + tokA + `","now_s":0}`, "", false})
	do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r1","kind":"checkpoint","now_s":1}`, tokA, false})
	if code, out := do(t, s, call{"POST", "/v1/jobs/a/release", `{"token":1,"duration_s":1e308,"now_s":2}`, tokA, false}); code != 400 || out["field"] != "duration_s" {
		t.Errorf("release with a duration of 1e308 s: %d %v", code, out)
	}
	do(t, s, call{"POST", "/v1/jobs/a/release", `{"token":1,"duration_s":1e10,"now_s":2}`, tokA, false})
	if code, out := do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r2","kind":"checkpoint","now_s":3}`, tokA, false}); code != 200 {
		t.Errorf("acquire after the longest checkpoint: %d %v", code, out)
	}
	if code, out := do(t, s, call{"POST", "/v1/jobs", `{"id":"b","nodes":1,"c_s":1,"job_token":"` + tokB + `","now_s":4}`, "", false}); code != 200 {
		t.Errorf("the coordinator stopped serving: %d %v", code, out)
	}
}

// flaky is a store whose commits fail while fail is set (a full disk).
type flaky struct {
	store.Store
	fail atomic.Bool
}

func (f *flaky) Commit(chs ...coord.Changes) error {
	if f.fail.Load() {
		return errors.New("no space left on device")
	}
	return f.Store.Commit(chs...)
}

// A commit that fails fails its request (503), never the process: the
// state goes back to what was committed, reads are served, and writes
// succeed again once commits do.
func TestFailedCommitFailsTheRequestOnly(t *testing.T) {
	var fs *flaky
	s, _ := newTestServer(t, "ordered", true, func(o *Options) { fs = &flaky{Store: o.Store}; o.Store = fs })
	do(t, s, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":10,"job_token":"` + tokA + `","now_s":0}`, "", false})
	fs.fail.Store(true)
	if code, out := do(t, s, call{"POST", "/v1/jobs", `{"id":"b","nodes":1,"c_s":1,"job_token":"` + tokB + `","now_s":1}`, "", false}); code != 503 || out["code"] != "unavailable" {
		t.Errorf("register on a full disk: %d %v", code, out)
	}
	if code, out := do(t, s, call{"GET", "/v1/jobs/a", "", "", false}); code != 200 {
		t.Errorf("read on a full disk: %d %v", code, out)
	}
	if code, _ := do(t, s, call{"GET", "/v1/jobs/b", "", "", false}); code != 404 {
		t.Errorf("a registration that was not committed is visible: %d", code)
	}
	if code, out := do(t, s, call{"GET", "/v1/status", "", "", false}); code != 200 || out["jobs"] != 1.0 {
		t.Errorf("status on a full disk: %d %v", code, out)
	}
	fs.fail.Store(false)
	if code, out := do(t, s, call{"POST", "/v1/jobs", `{"id":"b","nodes":1,"c_s":1,"job_token":"` + tokB + `","now_s":2}`, "", false}); code != 200 {
		t.Errorf("register once the disk has room: %d %v", code, out)
	}
	if code, out := do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r","kind":"checkpoint","now_s":3}`, tokA, false}); code != 200 || out["token"] != 1.0 {
		t.Errorf("acquire after recovery: %d %v", code, out)
	}
	select {
	case err := <-s.failed:
		t.Errorf("the server stops: %v", err)
	default:
	}
}

// The rate limit comes after authentication: a flood without a token
// gets 401 and leaves the authenticated jobs of the same address served.
func TestRateLimitAfterAuthentication(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, func(o *Options) { o.Rate, o.Burst = 1, 3 })
	for range 20 {
		if code, _ := do(t, s, call{"GET", "/v1/status", "", "", true}); code != 401 {
			t.Fatalf("no token: %d", code)
		}
	}
	for i := range 3 {
		if code, _ := do(t, s, call{"GET", "/v1/status", "", "", false}); code != 200 {
			t.Errorf("authenticated request %d after the flood: %d", i, code)
		}
	}
}

// The Authorization scheme is case-insensitive (RFC 9110, 11.1).
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, nil)
	for h, want := range map[string]int{"bearer " + bearer: 200, "BEARER " + bearer: 200, "Bearer " + bearer: 200,
		"Basic " + bearer: 401, "Bearer": 401, "Bearer  " + bearer: 401, bearer: 401} {
		req := httptest.NewRequest("GET", "/v1/status", strings.NewReader(""))
		req.Header.Set("Authorization", h)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Authorization %q: %d, want %d", h, rec.Code, want)
		}
	}
}

// Idempotency lasts as long as a lease can: a request id replayed after
// nine later requests answers as the first did (released, its token), not
// with a new grant; a replayed id with another size is refused; a
// replayed done answers as the first did.
func TestIdempotentReplays(t *testing.T) {
	s, _ := newTestServer(t, "ordered", true, nil)
	do(t, s, call{"POST", "/v1/jobs", `{"id":"a","nodes":1,"c_s":10,"job_token":"` + tokA + `","now_s":0}`, "", false})
	for i := range 10 {
		now := 10 * float64(i+1)
		_, g := do(t, s, call{"POST", "/v1/jobs/a/acquire", fmt.Sprintf(`{"request_id":"r%d","kind":"checkpoint","size_bytes":1e9,"now_s":%g}`, i, now), tokA, false})
		if g["status"] != "granted" || g["token"] != float64(i+1) {
			t.Fatalf("r%d: %v", i, g)
		}
		do(t, s, call{"POST", "/v1/jobs/a/release", fmt.Sprintf(`{"token":%d,"now_s":%g}`, i+1, now+1), tokA, false})
	}
	code, g := do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r0","kind":"checkpoint","size_bytes":1e9,"now_s":200}`, tokA, false})
	if code != 200 || g["status"] != "released" || g["token"] != 1.0 {
		t.Errorf("r0 replayed after nine later requests: %d %v", code, g)
	}
	code, g = do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"r0","kind":"checkpoint","size_bytes":2e9,"now_s":201}`, tokA, false})
	if code != 409 || g["field"] != "size_bytes" {
		t.Errorf("r0 replayed with another size: %d %v", code, g)
	}
	do(t, s, call{"POST", "/v1/jobs", `{"id":"b","nodes":1,"c_s":10,"job_token":"` + tokB + `","now_s":202}`, "", false})
	do(t, s, call{"POST", "/v1/jobs/b/acquire", `{"request_id":"q","kind":"checkpoint","now_s":203}`, tokB, false})
	do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"w","kind":"checkpoint","size_bytes":1e9,"now_s":204}`, tokA, false})
	code, g = do(t, s, call{"POST", "/v1/jobs/a/acquire", `{"request_id":"w","kind":"checkpoint","size_bytes":3e9,"now_s":205}`, tokA, false})
	if code != 409 || g["field"] != "size_bytes" {
		t.Errorf("a waiting request replayed with another size: %d %v", code, g)
	}
	code, first := do(t, s, call{"POST", "/v1/jobs/a/done", `{"failed":true,"now_s":300}`, tokA, false})
	if code != 200 {
		t.Fatalf("done: %d %v", code, first)
	}
	code, again := do(t, s, call{"POST", "/v1/jobs/a/done", `{"failed":true,"now_s":301}`, tokA, false})
	if code != 200 || again["status"] != "done" || again["job"] != "a" {
		t.Errorf("done replayed: %d %v (first %v)", code, again, first)
	}
	if code, _ := do(t, s, call{"POST", "/v1/jobs/a/done", `{"failed":true,"now_s":302}`, tokB, false}); code != 403 {
		t.Errorf("done replayed with another job's token: %d", code)
	}
	if code, _ := do(t, s, call{"GET", "/v1/jobs/a", "", "", false}); code != 404 {
		t.Errorf("an ended job is still shown: %d", code)
	}
	if _, st := do(t, s, call{"GET", "/v1/status", "", "", false}); st["jobs"] != 1.0 || st["counters"].(map[string]any)["failures"] != 1.0 {
		t.Errorf("status after a replayed done: %v", st)
	}
}

// Under concurrent requests with commits failing now and then, every
// acknowledged registration is in the store, the server's state is the
// store's, and the server keeps serving.
func TestFailingCommitsUnderLoad(t *testing.T) {
	var fs *flaky
	s, _ := newTestServer(t, "least-waste", true, func(o *Options) { fs = &flaky{Store: o.Store}; o.Store = fs })
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				fs.fail.Store(false)
				return
			case <-time.After(time.Millisecond):
				fs.fail.Store(i%3 == 0)
			}
		}
	}()
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				id := fmt.Sprintf("g%d-%d", g, i)
				body := fmt.Sprintf(`{"id":%q,"nodes":1,"c_s":1,"job_token":"%s","now_s":%d}`, id, tokA, i)
				code, out := do(t, s, call{"POST", "/v1/jobs", body, "", false})
				switch code {
				case 200:
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				case 503:
				default:
					t.Errorf("register %s: %d %v", id, code, out)
				}
				do(t, s, call{"POST", "/v1/jobs/" + id + "/acquire", fmt.Sprintf(`{"request_id":"r","kind":"checkpoint","now_s":%d}`, i), tokA, false})
			}
		}()
	}
	wg.Wait()
	close(stop)
	time.Sleep(5 * time.Millisecond)
	if code, out := do(t, s, call{"POST", "/v1/jobs", `{"id":"last","nodes":1,"c_s":1,"job_token":"` + tokB + `","now_s":100}`, "", false}); code != 200 {
		t.Fatalf("after the failures: %d %v", code, out)
	}
	_, jobs, err := fs.Load()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, j := range jobs {
		stored[j.Spec.ID] = true
		if live, ok := s.core.Job(j.Spec.ID); !ok || !reflect.DeepEqual(live, j) {
			t.Errorf("job %s: stored %+v, served %+v", j.Spec.ID, j, live)
		}
	}
	if s.core.Stats().Jobs != len(jobs) {
		t.Errorf("%d jobs served, %d stored", s.core.Stats().Jobs, len(jobs))
	}
	for id := range acked {
		if !stored[id] {
			t.Errorf("acknowledged registration %s lost", id)
		}
	}
	t.Logf("%d registrations acknowledged, %d stored", len(acked), len(jobs))
}
