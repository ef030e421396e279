package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
)

// The replica processes of TestKillAndStop: the test binary re-executed
// with CKPT_REPLICA_CHILD set runs one replica and a control server for
// the parent (a checkpoint as one job's register, grant and release; the
// replica's status and state) until it is killed.
func TestReplicaProcess(t *testing.T) {
	if os.Getenv("CKPT_REPLICA_CHILD") == "" {
		t.Skip("a replica process of TestKillAndStop")
	}
	var o Options
	if err := json.Unmarshal([]byte(os.Getenv("CKPT_REPLICA_CHILD")), &o); err != nil {
		t.Fatal(err)
	}
	o.Log = os.Stderr
	r, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ow *owner
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) { json.NewEncoder(w).Encode(r.Status()) })
	mux.HandleFunc("/state", func(w http.ResponseWriter, _ *http.Request) {
		if r.IsLeader() { // a new leader applies the earlier terms' entries after its first commit
			if err := r.raft.Barrier(5 * time.Second).Error(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		m, j := state(r)
		json.NewEncoder(w).Encode(procState{m.Token, len(j), jobIDs(j)})
	})
	mux.HandleFunc("/checkpoint", func(w http.ResponseWriter, q *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var now float64
		fmt.Sscan(q.FormValue("now"), &now)
		tok, err := func() (tok uint64, err error) {
			defer func() {
				if p := recover(); p != nil { // the owner's t.Fatal: a refused load
					err = fmt.Errorf("%v", p)
				}
			}()
			if ow == nil {
				ow = own(panicT{t}, r)
			}
			return ow.checkpoint(now, q.FormValue("job"))
		}()
		if err != nil {
			ow = nil // reload before the next write, as coord/server does
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, tok)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, q *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if ow == nil {
			http.Error(w, "no state loaded", http.StatusConflict)
			return
		}
		if _, err := ow.core.Register(ow.core.Stats().Meta.Now, jobSpecFor(q.FormValue("job"))); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := ow.commit(); err != nil {
			ow = nil
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, 0)
	})
	ln, err := net.Listen("tcp", os.Getenv("CKPT_REPLICA_CONTROL"))
	if err != nil {
		t.Fatal(err)
	}
	http.Serve(ln, mux)
}

// jobSpecFor is the spec of a test job.
func jobSpecFor(id string) coord.JobSpec {
	return coord.JobSpec{ID: id, Nodes: 1, Bytes: 1e9, MTBF: 1e5}
}

// panicT turns an owner's Fatal into a panic the handler recovers.
type panicT struct{ testing.TB }

func (panicT) Helper()                           {}
func (panicT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (panicT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

type procState struct {
	Token uint64
	Jobs  int
	IDs   []string
}

func jobIDs(jobs []coord.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.Spec.ID
	}
	return ids
}

type proc struct {
	opt     Options
	control string
	cmd     *exec.Cmd
}

type procs struct {
	t  *testing.T
	ps []*proc
}

func (g *procs) start(i int) {
	p := g.ps[i]
	b, _ := json.Marshal(p.opt)
	cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$")
	cmd.Env = append(os.Environ(), "CKPT_REPLICA_CHILD="+string(b), "CKPT_REPLICA_CONTROL="+p.control)
	logf, err := os.OpenFile(filepath.Join(p.opt.Dir+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		g.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	logf.Close()
	p.cmd = cmd
}

func (g *procs) kill(i int) {
	if p := g.ps[i]; p.cmd != nil {
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.cmd.Process.Kill()
		p.cmd.Wait()
		p.cmd = nil
	}
}

var httpc = &http.Client{Timeout: 5 * time.Second}

func get(url string, v any) error {
	resp, err := httpc.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: ", resp.Status)
		buf := make([]byte, 300)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return errors.New(strings.TrimSpace(b.String()))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// leader waits up to d for a process (not skip) that reports itself
// leader.
func (g *procs) leader(d time.Duration, skip int) int {
	g.t.Helper()
	quick := &http.Client{Timeout: 200 * time.Millisecond}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for i, p := range g.ps {
			if i == skip || p.cmd == nil {
				continue
			}
			resp, err := quick.Get("http://" + p.control + "/status")
			if err != nil {
				continue
			}
			var s Status
			err = json.NewDecoder(resp.Body).Decode(&s)
			resp.Body.Close()
			if err == nil && s.State == "Leader" {
				return i
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.t.Fatalf("no leader within %v", d)
	return -1
}

// must checkpoints job through the leader (not skip), retrying as a
// client does (same job, same request id) while leadership moves, for up
// to 10 s; it returns the leader that acknowledged and the token.
func (g *procs) must(job string, now float64, skip int) (int, uint64) {
	g.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		li := g.leader(leaderWait, skip)
		tok, err := g.checkpoint(li, job, now)
		if err == nil {
			return li, tok
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("checkpoint %s: %v", job, err)
		}
		g.t.Logf("checkpoint %s through n%d: %v (retrying)", job, li+1, err)
		time.Sleep(50 * time.Millisecond)
	}
}

func (g *procs) checkpoint(i int, job string, now float64) (uint64, error) {
	var tok uint64
	err := get(fmt.Sprintf("http://%s/checkpoint?job=%s&now=%g", g.ps[i].control, job, now), &tok)
	return tok, err
}

// Three replica processes: the leader is killed with SIGKILL at random
// moments while a client checkpoints through it, four times; a new leader
// is elected within 5 s each time, nothing acknowledged is lost and the
// fencing tokens acknowledged never repeat nor go backwards; a follower
// killed does not stop the commits, two killed at once do. Then the
// leader is stopped with SIGSTOP: once a new leader exists and the old
// one resumes, a write sent to the old one is refused, and it ends with
// the new leader's state.
func TestKillAndStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts replica processes")
	}
	addrs := freeAddrs(t, 6)
	dir := t.TempDir()
	var peers []Peer
	for i := range 3 {
		peers = append(peers, Peer{ID: fmt.Sprintf("n%d", i+1), Addr: addrs[i]})
	}
	g := &procs{t: t}
	for i, p := range peers {
		o := Options{ID: p.ID, Bind: p.Addr, Dir: filepath.Join(dir, p.ID), Bootstrap: true, Peers: peers,
			HeartbeatTimeout: testHeartbeat, ElectionTimeout: testHeartbeat,
			LeaderLeaseTimeout: testHeartbeat / 2, CommitTimeout: 3 * time.Second}
		g.ps = append(g.ps, &proc{opt: o, control: addrs[3+i]})
		g.start(i)
	}
	t.Cleanup(func() {
		for i := range g.ps {
			g.kill(i)
		}
	})
	rng := rand.New(rand.NewPCG(26, 1))
	acked := map[string]uint64{}
	var last uint64
	now, n := 0.0, 0
	for round := range 4 {
		li := g.leader(leaderWait, -1)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // a client checkpointing through the leader until it dies
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n++
				now += 2
				id := fmt.Sprintf("j%d", n)
				tok, err := g.checkpoint(li, id, now)
				if err != nil {
					continue // not acknowledged: the client would retry elsewhere
				}
				if tok <= last {
					t.Errorf("token %d acknowledged after %d", tok, last)
				}
				last, acked[id] = tok, tok
			}
		}()
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		start := time.Now()
		g.kill(li)
		close(stop)
		<-done
		ni := g.leader(leaderWait, li)
		t.Logf("round %d: n%d killed, n%d leads after %v; %d checkpoints acknowledged so far", round, li+1, ni+1,
			time.Since(start).Round(time.Millisecond), len(acked))
		g.start(li)
		// A checkpoint the kill interrupted holds its lease until it
		// expires (TTL 10 s on the test's clock).
		now += 20
	}
	if len(acked) == 0 {
		t.Fatal("nothing acknowledged")
	}
	// A follower killed: the leader still commits with the other.
	li := g.leader(leaderWait, -1)
	fi := (li + 1) % 3
	g.kill(fi)
	now += 2
	li, tok := g.must("one-down", now, fi)
	if tok <= last {
		t.Fatalf("with a follower down: token %d after %d", tok, last)
	}
	last, acked["one-down"] = tok, tok
	// Both followers killed at once: nothing is acknowledged; once they
	// are back a leader is elected within 5 s. (The replica that answered
	// may not be the one that led before the kill — a new election while
	// fi was down — so the other follower is the one neither li nor fi.)
	other := 3 - li - fi // must skips fi: li ≠ fi
	g.kill(other)
	now += 20
	if _, err := g.checkpoint(li, "no-quorum", now); err == nil {
		t.Fatal("a checkpoint acknowledged with two replicas of three down")
	}
	start := time.Now()
	g.start(fi)
	g.start(other)
	li = g.leader(leaderWait, -1)
	t.Logf("two followers killed and restarted: n%d leads after %v", li+1, time.Since(start).Round(time.Millisecond))
	// Every acknowledged checkpoint is in the leader's state, read once it
	// applied every committed entry.
	var st procState
	for try := 0; ; try++ {
		err := get("http://"+g.ps[g.leader(leaderWait, -1)].control+"/state", &st)
		if err == nil {
			break
		}
		if try == 20 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	have := map[string]bool{}
	for _, id := range st.IDs {
		have[id] = true
	}
	for id := range acked {
		if !have[id] {
			t.Fatalf("acknowledged job %s lost", id)
		}
	}
	if st.Token < last {
		t.Fatalf("token counter %d below the last acknowledged %d", st.Token, last)
	}

	// The leader's owner loads its state (a checkpoint through it), then
	// the leader is stopped with SIGSTOP; a new leader takes over and
	// grants.
	now += 20
	li, _ = g.must("warm", now, -1)
	old := g.ps[li].cmd.Process
	if err := old.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	g.leader(leaderWait, li)
	now += 2
	ni, tok := g.must("new", now, li)
	if tok <= last {
		t.Fatalf("new leader's token %d after %d", tok, last)
	}
	// The old leader resumes believing it leads, with its state loaded:
	// its write (a registration) is refused.
	if err := old.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var zero int
	if err := get("http://"+g.ps[li].control+"/register?job=stale", &zero); err == nil {
		t.Fatal("the resumed old leader acknowledged a write")
	} else {
		t.Logf("resumed old leader: %v", err)
	}
	ctx := ctxTimeout(t, 10*time.Second)
	for {
		var a, b procState
		ea := get("http://"+g.ps[li].control+"/state", &a)
		eb := get("http://"+g.ps[ni].control+"/state", &b)
		if ea == nil && eb == nil && a.Token == b.Token && a.Jobs == b.Jobs {
			for _, id := range a.IDs {
				if id == "stale" {
					t.Fatal("the refused write is in the state")
				}
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("old leader never caught up: %+v %v vs %+v %v", a, ea, b, eb)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
