package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/usage"
	"pgregory.net/rapid"
)

// startLocal starts a least-waste coordinator (one lease at a time)
// without fsync and returns its URL.
func startLocal(t *testing.T) string {
	t.Helper()
	p, _ := arbiter.Policies.Lookup("least-waste")
	url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url
}

// tb is what the checks need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
	Errorf(string, ...any)
}

// readRecord parses a record, failing on a line that is not an Ack.
func readRecord(t tb, path string) []Ack {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var acks []Ack
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a Ack
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.At.IsZero() {
			t.Fatalf("record line %d %q: %v", len(acks)+1, sc.Text(), err)
		}
		acks = append(acks, a)
	}
	return acks
}

// checkFinished checks a finished run's record against its Result and the
// rules: each job k times granted then released (the granted token), then
// done; one lease at a time, so the grants' tokens are 1, 2, … in the
// record's order; every answer from server.
func checkFinished(t tb, r Result, acks []Ack, k int, server string) {
	t.Helper()
	checkRecord(t, r, acks, k, server, true)
}

// checkRecord is checkFinished; without exclusive (a policy that grants
// every request at once), the grants' tokens are 1 … N in some order, each
// job's increasing.
func checkRecord(t tb, r Result, acks []Ack, k int, server string, exclusive bool) {
	t.Helper()
	seen := map[uint64]bool{}
	type state struct {
		lease, last uint64
		cycles      int
		done        bool
	}
	jobs := map[string]*state{}
	var grants, releases, dones int
	var token uint64
	for i, a := range acks {
		j := jobs[a.Job]
		if j == nil {
			j = &state{}
			jobs[a.Job] = j
		}
		ok := a.Server == server && !j.done
		switch a.Op {
		case OpGrant:
			grants++
			ok = ok && j.lease == 0 && a.Token > j.last && !seen[a.Token] && (a.Token == token+1 || !exclusive)
			token, j.lease, j.last, seen[a.Token] = a.Token, a.Token, a.Token, true
		case OpRelease:
			releases++
			ok = ok && a.Token == j.lease && a.Token != 0
			j.lease = 0
			j.cycles++
		case OpDone:
			dones++
			ok = ok && j.lease == 0 && j.cycles == k && a.Token == 0
			j.done = true
		default:
			ok = false
		}
		if !ok {
			t.Fatalf("record line %d: %+v (job state %+v, last grant %d)", i+1, a, *j, token)
		}
	}
	for tok := range uint64(grants) {
		if !seen[tok+1] {
			t.Fatalf("no grant of token %d of %d", tok+1, grants)
		}
	}
	if len(jobs) != r.Jobs || dones != r.Jobs || r.Dones != dones || r.Grants != grants || r.Releases != releases || grants != k*r.Jobs || releases != grants {
		t.Errorf("%+v; the record: %d jobs, %d grants, %d releases, %d dones", r, len(jobs), grants, releases, dones)
	}
}

// The finishing mode against a local server: every job makes its
// checkpoints and ends, the record matches the Result and the rules, and
// the server's own counters (the oracle) equal what was acknowledged: no
// job left, as many grants and releases, the last token the grants'
// count, no expiry.
func TestRunFinishes(t *testing.T) {
	url := startLocal(t)
	rec := filepath.Join(t.TempDir(), "acks.jsonl")
	const jobs, k = 60, 3
	r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: jobs, Clients: 7, Duration: time.Minute, Checkpoints: k, Record: rec})
	if err != nil || r.Errors != 0 || r.Checkpoints != k {
		t.Fatalf("%+v, %v", r, err)
	}
	checkFinished(t, r, readRecord(t, rec), k, url)
	st, err := (&client.Client{Base: url, Token: LocalToken}).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counters; st.Jobs != 0 || c.Grants != jobs*k || c.Releases != jobs*k || c.Token != jobs*k || c.Expiries != 0 {
		t.Errorf("the server: %d jobs, %+v; want 0 jobs, %d grants and releases", st.Jobs, c, jobs*k)
	}
	if !strings.Contains(r.Text(), "60 of 60 jobs done") {
		t.Errorf("text: %s", r.Text())
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(rec), ".*tmp*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// Property: for any small run (jobs, clients, checkpoints, a policy that
// grants one lease at a time or every request at once, the wire or the Go
// client), every job finishes and the record and the server's counters
// (the oracle) agree with the rules (checkRecord).
func TestRunFinishesProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pol := rapid.SampledFrom([]string{"least-waste", "ordered", "oblivious"}).Draw(rt, "policy")
		jobs, clients := rapid.IntRange(1, 12).Draw(rt, "jobs"), rapid.IntRange(1, 4).Draw(rt, "clients")
		k := rapid.IntRange(1, 3).Draw(rt, "checkpoints")
		p, _ := arbiter.Policies.Lookup(pol)
		dir, err := os.MkdirTemp("", "loadgen-prop")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		url, stop, err := StartLocal(context.Background(), coord.Config{Policy: p, Bandwidth: 1e10, NodeMTBF: 1e7}, dir, true)
		if err != nil {
			rt.Fatal(err)
		}
		defer stop()
		base := url
		if rapid.Bool().Draw(rt, "go client") {
			base = url + "," + url
		}
		rec := filepath.Join(dir, "acks.jsonl")
		r, err := Run(context.Background(), Options{URL: base, Token: LocalToken, Jobs: jobs, Clients: clients, Duration: time.Minute, Checkpoints: k, Record: rec})
		if err != nil || r.Errors != 0 {
			rt.Fatalf("%+v, %v", r, err)
		}
		checkRecord(rt, r, readRecord(rt, rec), k, url, p.Token)
		st, err := (&client.Client{Base: url, Token: LocalToken}).Status(context.Background())
		if c := st.Counters; err != nil || st.Jobs != 0 || c.Grants != uint64(jobs*k) || c.Releases != uint64(jobs*k) || c.Token != uint64(jobs*k) {
			rt.Fatalf("the server: %d jobs, %+v, %v; want 0 jobs, %d grants and releases", st.Jobs, c, err, jobs*k)
		}
	})
}

// Through the Go client (several URLs: a follower that redirects every
// request to the server), the record names the server that answered, not
// the one asked first.
func TestRunFinishesThroughRedirects(t *testing.T) {
	url := startLocal(t)
	follower := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, url+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer follower.Close()
	rec := filepath.Join(t.TempDir(), "acks.jsonl")
	r, err := Run(context.Background(), Options{URL: follower.URL + "," + url, Token: LocalToken, Jobs: 12, Clients: 3, Duration: time.Minute, Checkpoints: 2, Record: rec})
	if err != nil || r.Errors != 0 {
		t.Fatalf("%+v, %v", r, err)
	}
	checkFinished(t, r, readRecord(t, rec), 2, url)
}

// A run that cannot finish within Duration is an error naming the jobs
// left, and its record (of what was acknowledged) is still written and
// matches the Result.
func TestRunFinishBound(t *testing.T) {
	url := startLocal(t)
	rec := filepath.Join(t.TempDir(), "acks.jsonl")
	r, err := Run(context.Background(), Options{URL: url, Token: LocalToken, Jobs: 20, Clients: 4, Duration: time.Second, Checkpoints: MaxCheckpoints, Record: rec, Prefix: "bound-"})
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "20 of 20 jobs not done within --duration 1s: bound-0, bound-1, bound-2, bound-3, bound-4 and 15 more; ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a run bound to end early: %v", err)
	}
	acks := readRecord(t, rec)
	var grants, releases int
	for _, a := range acks {
		switch a.Op {
		case OpGrant:
			grants++
		case OpRelease:
			releases++
		}
	}
	if r.Grants == 0 || r.Grants != grants || r.Releases != releases || r.Dones != 0 {
		t.Errorf("%+v; the record: %d grants, %d releases", r, grants, releases)
	}
}

// A job whose request is refused (4xx) is left, not retried forever: a
// front that refuses every done of job 3 with 409 ends the run with the
// other jobs done and an error naming the one left.
func TestRunFinishRefusedJobLeft(t *testing.T) {
	url := startLocal(t)
	target, _ := neturl.Parse(url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/jobs/refuse-3/done" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":"no","code":"conflict"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	r, err := Run(context.Background(), Options{URL: front.URL, Token: LocalToken, Jobs: 8, Clients: 2, Duration: time.Minute, Checkpoints: 1, Prefix: "refuse-"})
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "1 of 8 jobs not done (refused): refuse-3; 1 request failed") || r.Dones != 7 || r.Errors != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
}

// Bad options of the finishing mode are usage errors naming the field and
// the value.
func TestFinishOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		o           Options
		field, text string
	}{
		{Options{Checkpoints: -1}, "checkpoints", "-1"},
		{Options{Checkpoints: MaxCheckpoints + 1}, "checkpoints", "1000001"},
		{Options{Checkpoints: 1, Record: dir}, "record", dir},
		{Options{Record: filepath.Join(dir, "no", "acks.jsonl")}, "record", filepath.Join(dir, "no")},
	} {
		tc.o.URL, tc.o.Jobs, tc.o.Clients, tc.o.Duration = "http://127.0.0.1:1", 1, 1, time.Second
		err := tc.o.Validate()
		var ue *usage.Error
		if !errors.As(err, &ue) || ue.Field != tc.field || !strings.Contains(err.Error(), tc.text) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line naming %s and %s", tc.o, err, tc.field, tc.text)
		}
	}
}
