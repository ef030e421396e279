package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/coord/loadgen"
)

// campaignScale is how many times TestServeReplicaFaultCampaign kills
// the leader, how long it keeps a follower down and how many jobs loadgen
// runs: with CKPT_FAULT_CAMPAIGN=full (.ci/run runs it so, alone) the
// issue's 10 kills and 1 000 jobs, and 4 s; in plain `go test` 3 kills,
// 500 jobs and 2 s (the test suite's 3-minute budget: one lease at a time
// through three replicas that fsync is two commits per grant, about 50
// grants/s on the shared 2-core machine).
func campaignScale() (kills int, down time.Duration, jobs int) {
	if os.Getenv("CKPT_FAULT_CAMPAIGN") == "full" {
		return 10, 4 * time.Second, 1000
	}
	return 3, 2 * time.Second, 500
}

// The load of the campaign: `ckpt coord loadgen` from campaignClients
// clients, each job campaignCheckpoints checkpoints and done.
const campaignClients, campaignCheckpoints = 16, 1

// The fault campaign on three `ckpt serve` replica processes (a
// snapshot every 20 entries; the default least-waste policy: one lease at
// a time) under `ckpt coord loadgen --server URL1,URL2,URL3 --jobs 1000
// --checkpoints 1 --record FILE` (500 jobs in plain go test), run as a
// process: every job registers, checkpoints (next, acquire, polls,
// release) and ends (done), through every fault. The faults come at seeded
// random points of the load's progress (the grants the group has applied),
// so that each falls under load however fast the machine is: a follower is
// killed, kept down until the leader compacted its log past it, and
// restarted; the leader is killed with SIGKILL 10 times (3 in plain go
// test) and restarted; then two replicas at once. Checked: a new leader
// within 5 s of each leader kill; the restarted replicas catch up, the
// follower by installing the leader's snapshot; with two down the survivor
// refuses a write, and the record holds no acknowledgement from a second
// after the kill until the restart, and some after it; loadgen ends with
// every job done and no request failed; from its record: each job was
// granted, released (the granted token) and ended in that order, the
// grants' fencing tokens are 1, 2, 3, … in the order they were
// acknowledged (one lease at a time: a grant is acknowledged before its
// release, which comes before the next grant; so none repeated, went
// backwards or was skipped), and the record's counts equal loadgen's
// Result and every replica's counters (grants, releases, the last token;
// no expiry, no job left): nothing acknowledged was lost and no retry was
// counted twice.
func TestServeReplicaFaultCampaign(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("three replica processes, a minute")
	}
	kills, down, jobs := campaignScale()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(50+8*kills)*time.Second)
	defer cancel()
	began := time.Now()
	g := startGroup(t, ctx, "--snapshot-entries", "20")
	rng := rand.New(rand.NewPCG(26, uint64(kills)))
	g.leader(-1)
	lg := startCampaignLoad(t, ctx, g, jobs)
	want := uint64(jobs * campaignCheckpoints)
	// at waits until the group has applied a seeded random share, in
	// [lo, hi), of the grants left after from, before the fault named what.
	at := func(from uint64, lo, hi float64, what string) {
		point := from + uint64(float64(want-from)*(lo+(hi-lo)*rng.Float64()))
		for ctx.Err() == nil {
			if campaignGrants(g) >= point {
				return
			}
			select {
			case <-lg.exited:
				t.Fatalf("loadgen ended before %d grants, the point of %s: %v\n%s", point, what, lg.err, lg.stderr())
			case <-time.After(50 * time.Millisecond):
			}
		}
		t.Fatalf("%d grants applied, %s waits for %d", campaignGrants(g), what, point)
	}
	kill := func(i int) { g.procs[i].Process.Kill(); g.procs[i].Wait() }
	// catchUp waits until replica i has applied what leader l had committed.
	catchUp := func(i, l int) {
		st, err := g.status(l)
		for try := 0; err != nil && try < 50; try++ {
			time.Sleep(100 * time.Millisecond)
			st, err = g.status(l)
		}
		target, t0 := st.Replication.CommitIndex, time.Now()
		for ctx.Err() == nil {
			if s, err := g.status(i); err == nil && s.Replication.Applied >= target {
				t.Logf("n%d caught up to index %d in %v", i+1, target, time.Since(t0).Round(time.Millisecond))
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("n%d did not catch up to index %d", i+1, target)
	}
	// the follower first: the load goes on while it is down (a sixth to a
	// third of the grants on the shared machine), so the other faults
	// share what is left
	at(0, 0.04, 0.08, "the follower's kill")
	l := g.leader(-1)
	f := (l + 1 + rng.IntN(2)) % 3
	atKill, err := g.status(l)
	for try := 0; err != nil && try < 50; try++ {
		time.Sleep(100 * time.Millisecond)
		atKill, err = g.status(l)
	}
	if err != nil {
		t.Fatalf("leader n%d's status before the follower's kill: %v", l+1, err)
	}
	kill(f)
	fDown := time.Now()
	time.Sleep(down) // the leader snapshots and compacts its log meanwhile
	// ... on its own clock (a snapshot interval of 1–2 s, later on a
	// loaded machine): wait until it has compacted past every entry the
	// follower could hold (what was committed at the kill, plus raft's 64
	// entries in flight), so it can only catch up from a snapshot.
	compacted(t, ctx, filepath.Join(g.dir, fmt.Sprintf("n%d.log", l+1)), atKill.Replication.CommitIndex+64)
	if s, err := g.status(l); err != nil || s.Replication.State != "Leader" {
		t.Errorf("follower n%d killed: leader n%d says %q (%v)", f+1, l+1, s.Replication.State, err)
	}
	fUp := time.Now()
	flog := filepath.Join(g.dir, fmt.Sprintf("n%d.log", f+1))
	installed := func() int { b, _ := os.ReadFile(flog); return strings.Count(string(b), "Installed remote snapshot") }
	had := installed()
	g.start(f)
	catchUp(f, l)
	if installed() == had {
		t.Errorf("follower n%d, down %v, caught up without installing the leader's snapshot", f+1, down)
	}

	base := campaignGrants(g)
	t.Logf("follower n%d down %v, caught up from a snapshot; %d grants applied", f+1, fUp.Sub(fDown).Round(time.Millisecond), base)
	for k := range kills {
		at(base, 0.05+0.55*float64(k)/float64(kills), 0.05+0.55*float64(k+1)/float64(kills), fmt.Sprintf("leader kill %d", k+1))
		l := g.leader(-1)
		kill(l)
		t0 := time.Now()
		n := g.leader(l)
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("kill %d: new leader n%d after %v, want within 5 s", k+1, n+1, d)
		}
		t.Logf("kill %d: leader n%d killed, n%d leads after %v; %d grants applied", k+1, l+1, n+1, time.Since(t0).Round(time.Millisecond), campaignGrants(g))
		g.start(l)
		catchUp(l, n)
	}

	// the last leader kill's election, restart and catch-up are wall-clock
	// time the load goes on through: two at once comes well before its end,
	// and a load that ran past the point is said as such, not as a lost
	// write. Like the points, the bound is a share of the grants left after
	// the follower's fault: a fast load applied 737 of 1 000 during it, and
	// its points (from 0.65 of the rest: 908) were past an absolute 900.
	at(base, 0.65, 0.7, "two at once")
	if got := campaignGrants(g); got > base+(want-base)*9/10 {
		t.Fatalf("the load ran ahead of the faults: %d of %d grants applied before two at once, %d after the follower's fault (the campaign needs the last tenth of the rest for it)", got, want, base)
	}
	l = g.leader(-1)
	o, s := (l+1)%3, (l+2)%3
	kill(l)
	kill(o)
	quiet := time.Now().Add(time.Second) // answers already on their way before
	time.Sleep(time.Second)
	probe, _ := http.NewRequestWithContext(ctx, "POST", g.urls[s]+"/v1/jobs",
		strings.NewReader(`{"id":"no-quorum","nodes":1,"size_bytes":1e9,"mtbf_s":1e5,"job_token":"no-quorum-0123456789abcdef"}`))
	probe.Header.Set("Authorization", "Bearer "+groupToken)
	noFollow := &http.Client{Timeout: 2 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Do(probe); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("n%d acknowledged a registration with two of three replicas down", s+1)
		}
		t.Logf("two down: n%d answered %d", s+1, resp.StatusCode)
	}
	time.Sleep(time.Second)
	restarted := time.Now()
	g.start(l)
	g.start(o)
	t0 := time.Now()
	n := g.leader(-1)
	t.Logf("two down (n%d, n%d) restarted: n%d leads after %v", l+1, o+1, n+1, time.Since(t0).Round(time.Millisecond))
	for _, i := range []int{l, o, s} {
		if i != n {
			catchUp(i, n)
		}
	}

	res, acks := lg.wait(t, ctx)
	r := checkCampaignRecord(t, res, acks, g.urls, jobs)
	t.Logf("loadgen: %s", res.Text())
	if d := r.between(fDown, fUp); d == 0 {
		t.Errorf("follower n%d down: nothing acknowledged in the %v", f+1, fUp.Sub(fDown).Round(time.Millisecond))
	}
	if d := r.between(quiet, restarted); d != 0 {
		t.Errorf("%d writes acknowledged with two of three replicas down", d)
	}
	if r.between(restarted, time.Now()) == 0 {
		t.Error("no write acknowledged after the quorum came back")
	}

	n = g.leader(-1)
	cl, err := client.New(strings.Join(g.urls, ","), groupToken)
	if err != nil {
		t.Fatal(err)
	}
	probed := 0
	if _, err := cl.Job(ctx, "no-quorum"); err == nil { // asked of the leader
		probed = 1 // the probe, refused then, committed after the quorum came back: allowed
	}
	for _, i := range []int{n, (n + 1) % 3, (n + 2) % 3} { // every replica holds the final state
		if i != n {
			catchUp(i, n)
		}
		st, err := g.status(i)
		if err != nil {
			t.Fatal(err)
		}
		c := st.Counters
		t.Logf("n%d: %d jobs, %+v; acknowledged: %d grants, %d releases, %d jobs done", i+1, st.Jobs, c, r.grants, r.releases, r.dones)
		if st.Jobs != probed {
			t.Errorf("n%d holds %d jobs; want every job done", i+1, st.Jobs-probed)
		}
		if c.Grants != uint64(r.grants) || c.Releases != uint64(r.releases) || c.Expiries != 0 || c.Token != uint64(r.grants) {
			t.Errorf("n%d counts %d grants, %d releases, %d expiries, last token %d; loadgen was acknowledged %d grants, %d releases",
				i+1, c.Grants, c.Releases, c.Expiries, c.Token, r.grants, r.releases)
		}
	}
	t.Logf("%d leader kills, a follower, two at once: %v", kills, time.Since(began).Round(time.Second))
}

// campaignGrants is the most grants any replica of g has applied.
func campaignGrants(g *group) uint64 {
	var n uint64
	for i := range g.urls {
		if s, err := g.status(i); err == nil {
			n = max(n, s.Counters.Grants)
		}
	}
	return n
}

// campaignLoad is a `ckpt coord loadgen` process.
type campaignLoad struct {
	cmd         *exec.Cmd
	out, errOut bytes.Buffer
	record      string
	exited      chan struct{} // closed when it exits, err then set
	err         error
}

func (lg *campaignLoad) stderr() string { return tail(lg.errOut.String(), 2000) }

// startCampaignLoad starts loadgen on g's three URLs, bounded by ctx.
func startCampaignLoad(t *testing.T, ctx context.Context, g *group, jobs int) *campaignLoad {
	lg := &campaignLoad{record: filepath.Join(t.TempDir(), "acks.jsonl"), exited: make(chan struct{})}
	dl, _ := ctx.Deadline()
	lg.cmd = exec.CommandContext(ctx, ckptBin(t), "coord", "loadgen", "--server", strings.Join(g.urls, ","),
		"--jobs", strconv.Itoa(jobs), "--clients", strconv.Itoa(campaignClients), "--checkpoints", strconv.Itoa(campaignCheckpoints),
		"--duration", time.Until(dl).Round(time.Second).String(), "--record", lg.record, "--json")
	lg.cmd.Env = append(os.Environ(), "CKPT_COORD_TOKEN="+groupToken)
	lg.cmd.Stdout, lg.cmd.Stderr = &lg.out, &lg.errOut
	if err := lg.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { lg.err = lg.cmd.Wait(); close(lg.exited) }()
	t.Cleanup(func() { lg.cmd.Process.Kill(); <-lg.exited })
	return lg
}

// wait waits for loadgen's end and returns its Result and its record.
func (lg *campaignLoad) wait(t *testing.T, ctx context.Context) (loadgen.Result, []loadgen.Ack) {
	t.Helper()
	select {
	case <-lg.exited:
	case <-ctx.Done():
		<-lg.exited // killed: its output is complete
		t.Fatalf("loadgen still running at the test's deadline:\n%s", lg.stderr())
	}
	var r loadgen.Result
	if err := json.Unmarshal(lg.out.Bytes(), &r); err != nil || lg.err != nil {
		t.Fatalf("loadgen: %v, %v; stdout %q\n%s", lg.err, err, lg.out.String(), lg.stderr())
	}
	f, err := os.Open(lg.record)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var acks []loadgen.Ack
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a loadgen.Ack
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("record line %d: %v: %q", len(acks)+1, err, sc.Text())
		}
		acks = append(acks, a)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r, acks
}

// campaignRecord is what a loadgen record holds.
type campaignRecord struct {
	acks                    []loadgen.Ack
	grants, releases, dones int
}

// between counts the acknowledgements read in [from, to).
func (r campaignRecord) between(from, to time.Time) int {
	n := 0
	for _, a := range r.acks {
		if !a.At.Before(from) && a.At.Before(to) {
			n++
		}
	}
	return n
}

// checkCampaignRecord checks loadgen's Result and its record against each
// other and the campaign's rules (TestServeReplicaFaultCampaign), and
// returns the record's counts.
func checkCampaignRecord(t *testing.T, res loadgen.Result, acks []loadgen.Ack, urls []string, want int) campaignRecord {
	t.Helper()
	r := campaignRecord{acks: acks}
	type jobState struct {
		lease, last uint64 // the lease held, the last token granted
		cycles      int
		done        bool
	}
	jobs := map[string]*jobState{}
	servers := map[string]int{}
	var token uint64 // the last grant's
	for i, a := range acks {
		j := jobs[a.Job]
		if j == nil {
			j = &jobState{}
			jobs[a.Job] = j
		}
		servers[a.Server]++
		bad := func(why string) { t.Errorf("record line %d %+v: %s", i+1, a, why) }
		switch {
		case !slices.Contains(urls, a.Server):
			bad("answered by no replica of the group")
		case j.done:
			bad("after the job's done")
		case a.Op == loadgen.OpGrant:
			r.grants++
			if j.lease != 0 || a.Token <= j.last {
				bad(fmt.Sprintf("the job holds lease %d, was last granted %d", j.lease, j.last))
			}
			if a.Token != token+1 {
				bad(fmt.Sprintf("the grant before was token %d: one lease at a time, the tokens must follow", token))
			}
			token, j.lease, j.last = a.Token, a.Token, a.Token
		case a.Op == loadgen.OpRelease:
			r.releases++
			if a.Token == 0 || a.Token != j.lease {
				bad(fmt.Sprintf("the job holds lease %d", j.lease))
			}
			j.lease = 0
			j.cycles++
		case a.Op == loadgen.OpDone:
			r.dones++
			if j.lease != 0 || j.cycles != campaignCheckpoints {
				bad(fmt.Sprintf("the job holds lease %d after %d of %d checkpoints", j.lease, j.cycles, campaignCheckpoints))
			}
			j.done = true
		default:
			bad("unknown op")
		}
	}
	if len(jobs) != want || r.dones != want || r.grants != want*campaignCheckpoints || r.releases != r.grants {
		t.Errorf("the record holds %d jobs, %d grants, %d releases, %d dones; want %d jobs each with %d checkpoints and done",
			len(jobs), r.grants, r.releases, r.dones, want, campaignCheckpoints)
	}
	if res.Grants != r.grants || res.Releases != r.releases || res.Dones != r.dones || res.Errors != 0 || res.Jobs != want {
		t.Errorf("loadgen's result %+v; its record: %d grants, %d releases, %d dones", res, r.grants, r.releases, r.dones)
	}
	if len(servers) < 2 {
		t.Errorf("every acknowledgement came from %v: the leader never changed", servers)
	}
	t.Logf("acknowledged by %v", servers)
	return r
}

// compacted waits, until ctx is done, for the replica's log (its stderr)
// to say it compacted its raft log up to at least index.
func compacted(t *testing.T, ctx context.Context, log string, index uint64) {
	t.Helper()
	re := regexp.MustCompile(`compacting logs: from=\d+ to=(\d+)`)
	var seen uint64
	start := time.Now()
	for ; ctx.Err() == nil; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		for _, m := range re.FindAllSubmatch(b, -1) {
			if v, err := strconv.ParseUint(string(m[1]), 10, 64); err == nil && v > seen {
				seen = v
			}
		}
		if seen >= index {
			return
		}
	}
	t.Fatalf("%s: compacted to index %d in %v (the test's time is up), want at least %d", filepath.Base(log), seen, time.Since(start).Round(time.Second), index)
}

// Bad finishing-mode flags of `coord loadgen`: exit 2, one line naming the
// flag and the value, before any request.
func TestCoordLoadgenFinishFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--checkpoints", "-1"},
		{"--checkpoints", "99999999"},
		{"--checkpoints", "x"},
		{"--record", dir, "--checkpoints", "2"},
		{"--record", filepath.Join(dir, "nowhere", "acks.jsonl")}, // names the file, then the folder
	} {
		_, stderr, code := run(t, "", append([]string{"coord", "loadgen", "--server", "http://127.0.0.1:1", "--jobs", "2"}, args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, args[0]) || !strings.Contains(stderr, args[1]) {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming %s and its value", args, code, stderr, args[0])
		}
	}
}

// The finishing mode through the command (its own coordinator): exit 0,
// every job done, and the record holds each job's two grants, two releases
// and done (checked in detail by coord/loadgen's tests and the campaign).
func TestCoordLoadgenFinishes(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "acks.jsonl")
	out, stderr, code := run(t, "", "coord", "loadgen", "--jobs", "40", "--clients", "4", "--checkpoints", "2", "--duration", "1m",
		"--record", rec, "--unsafe-no-sync", "--json")
	var r loadgen.Result
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || r.Dones != 40 || r.Grants != 80 || r.Releases != 80 || r.Checkpoints != 2 {
		t.Fatalf("exit %d, %+v (%v), stderr %q", code, r, err, stderr)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a loadgen.Ack
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ops[a.Op]++
	}
	if ops[loadgen.OpGrant] != 80 || ops[loadgen.OpRelease] != 80 || ops[loadgen.OpDone] != 40 || len(ops) != 3 {
		t.Errorf("the record holds %v", ops)
	}
}
