package coord

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"pgregory.net/rapid"
)

// simRef is the simulator's token logic (iosim's simulator.request and
// grant, Sharing Token), with the shared arbiters: the oracle of the
// closed loop. The core driven by the same events must grant the same
// request at the same time, decision for decision.
type simRef struct {
	arb     iosim.Arbiter
	env     iosim.Env
	waiting []iosim.Request
	holder  int // job, -1 if free
	seq     uint64
	grants  []string
}

func (s *simRef) request(now float64, r iosim.Request) {
	r.Seq = s.seq
	s.seq++
	s.waiting = append(s.waiting, r)
	s.grant(now)
}

func (s *simRef) grant(now float64) {
	if s.holder >= 0 || len(s.waiting) == 0 {
		return
	}
	i := s.arb.Pick(now, s.waiting, s.env)
	s.holder = s.waiting[i].Job
	s.grants = append(s.grants, fmt.Sprintf("%g:j%d", now, s.holder))
	s.waiting = slices.Delete(s.waiting, i, i+1)
}

func TestSameDecisionsAsSimulator(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"ordered", "ordered-nb", "least-waste", "least-waste-printed"}).Draw(t, "policy")
		pol, _ := arbiter.Policies.Lookup(name)
		mu, beta := rapid.Float64Range(1e4, 1e8).Draw(t, "mu"), 1e9
		c, err := New(Config{Policy: pol, Bandwidth: beta, TTL: 1e12, MaxTTL: 1e12, NodeMTBF: mu, FixedMTBF: true})
		if err != nil {
			t.Fatal(err)
		}
		// The arbiter is one implementation (iosim's are iosim/arbiter's):
		// what this checks is the core's token logic against the simulator's.
		ref := &simRef{arb: pol.Arbiter, env: iosim.Env{NodeMTBF: mu, Bandwidth: beta}, holder: -1}
		const n = 6
		type jobState struct {
			q                  int
			ckptTime, lastCkpt float64
			rid                string
			token              uint64
		}
		js := make([]jobState, n)
		for i := range js {
			js[i] = jobState{q: rapid.IntRange(1, 5000).Draw(t, "q"), ckptTime: rapid.Float64Range(1, 3000).Draw(t, "C")}
			if _, err := c.Register(0, JobSpec{ID: fmt.Sprint("j", i), Nodes: js[i].q, Bytes: js[i].ckptTime * beta, R: js[i].ckptTime, MTBF: 1}); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		note := func(now float64, g Grant) {
			for _, nt := range g.Granted {
				var j int
				fmt.Sscanf(nt.Job, "j%d", &j)
				js[j].token = nt.Token
				got = append(got, fmt.Sprintf("%g:%s", now, nt.Job))
			}
		}
		now := 0.0
		for step := range rapid.IntRange(1, 80).Draw(t, "steps") {
			now += float64(rapid.IntRange(0, 500).Draw(t, "dt")) // integer steps: ties happen
			i := rapid.IntRange(0, n-1).Draw(t, "job")
			j := &js[i]
			id := fmt.Sprint("j", i)
			switch {
			case j.rid == "": // request a transfer
				kind := arbiter.Kind(rapid.IntRange(0, 4).Draw(t, "kind"))
				bytes := j.ckptTime * beta
				if kind != arbiter.Checkpoint {
					bytes = rapid.Float64Range(1e9, 1e12).Draw(t, "bytes")
				}
				j.rid = fmt.Sprint("r", step)
				g, err := c.Acquire(now, AcquireRequest{Job: id, RequestID: j.rid, Kind: kind, Bytes: bytes, LastCheckpoint: j.lastCkpt})
				if err != nil {
					t.Fatal(err)
				}
				ref.request(now, iosim.Request{Job: i, Kind: iosim.Kind(kind), Nodes: j.q, Bytes: bytes, Duration: bytes / beta,
					Since: now, LastCheckpoint: j.lastCkpt, Recovery: j.ckptTime})
				note(now, g)
			case ref.holder == i && rapid.Bool().Draw(t, "fail"): // fails during its transfer
				g, err := c.Cancel(now, id, j.rid)
				if err != nil {
					t.Fatal(err)
				}
				j.rid, ref.holder = "", -1
				ref.grant(now)
				note(now, g)
			case ref.holder == i: // transfer ends
				g, err := c.Release(now, id, j.token, 0)
				if err != nil {
					t.Fatal(err)
				}
				j.rid, j.lastCkpt, ref.holder = "", now, -1
				ref.grant(now)
				note(now, g)
			case rapid.Bool().Draw(t, "cancel"): // fails while waiting
				if _, err := c.Cancel(now, id, j.rid); err != nil {
					t.Fatal(err)
				}
				ref.waiting = slices.DeleteFunc(ref.waiting, func(r iosim.Request) bool { return r.Job == i })
				j.rid = ""
			}
			if !slices.Equal(got, ref.grants) {
				t.Fatalf("%s: coordinator granted %v, simulator %v", name, got, ref.grants)
			}
		}
	})
}
