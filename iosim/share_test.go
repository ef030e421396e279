package iosim

import (
	"context"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/units"
)

// simulateShare is Simulate with the incremental reshare or, naive, the
// straightforward one (every completion cancelled and rescheduled).
func simulateShare(c *Config, st Strategy, opt Options, naive bool) (Run, error) {
	s, err := newSimulator(c, st, opt)
	if err != nil {
		return Run{}, err
	}
	s.naiveShare = naive
	if err := s.run(context.Background()); err != nil {
		return Run{}, err
	}
	return s.result(), nil
}

// Oracle: on random platforms, workloads, failures and strategies sharing
// the bandwidth proportionally, the incremental reshare gives exactly (==,
// every float) the run of the straightforward recomputation — the same
// events in the same order, the same accounting. Identical classes start
// together, so completions tie at the same time and their order (the
// sequence numbers) is exercised too.
func TestIncrementalShareMatchesNaive(t *testing.T) {
	exercised := 0
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(4, 96).Draw(t, "nodes")
		c := Config{Platform: Platform{Name: "r", Nodes: nodes,
			MemoryPerNode: rapid.Float64Range(1e8, 4e9).Draw(t, "mem"),
			Bandwidth:     units.Bandwidth(rapid.Float64Range(1e7, 1e10).Draw(t, "beta")),
			NodeMTBF:      Seconds(rapid.Float64Range(2*Day, 5*Year).Draw(t, "mtbf"))}}
		for k := range rapid.IntRange(1, 4).Draw(t, "classes") {
			c.Classes = append(c.Classes, Class{Name: string(rune('A' + k)),
				Nodes:      rapid.IntRange(1, nodes).Draw(t, "q"),
				Walltime:   Seconds(rapid.Float64Range(600, 30*3600).Draw(t, "walltime")),
				Input:      rapid.Float64Range(0, 1).Draw(t, "input"),
				Output:     rapid.Float64Range(0, 1).Draw(t, "output"),
				Checkpoint: rapid.Float64Range(0.01, 2).Draw(t, "ckpt"),
				RegularIO:  rapid.SampledFrom([]float64{0, 0, 0.5, 3}).Draw(t, "regular"),
				Share:      rapid.Float64Range(0.1, 1).Draw(t, "share")})
		}
		sum := 0.0
		for _, k := range c.Classes {
			sum += k.Share
		}
		for k := range c.Classes {
			c.Classes[k].Share /= sum
		}
		name := rapid.SampledFrom([]string{"oblivious-fixed", "oblivious-daly"}).Draw(t, "strategy")
		st, err := Lookup(name, rapid.Float64Range(600, 7200).Draw(t, "fixed"))
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Span: rapid.Float64Range(0.5, 6).Draw(t, "days") * Day, Seed: rapid.Uint64().Draw(t, "seed"),
			IOChunk:    rapid.SampledFrom([]float64{600, 3600}).Draw(t, "chunk"),
			Accounting: rapid.SampledFrom([]Accounting{OurAccounting, AuthorsAccounting}).Draw(t, "accounting"),
			NoFailures: rapid.Bool().Draw(t, "nofail"), MaxEvents: 2_000_000}
		if err := c.Validate(); err != nil {
			t.Skip(err)
		}
		if !opt.NoFailures && c.CheckProgress() != nil {
			opt.NoFailures = true
		}
		inc, err1 := simulateShare(&c, st, opt, false)
		naive, err2 := simulateShare(&c, st, opt, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: incremental %v, naive %v", err1, err2)
		}
		if !reflect.DeepEqual(inc, naive) {
			t.Fatalf("runs differ:\nincremental %+v\nnaive       %+v", inc, naive)
		}
		if inc.Events > 10 {
			exercised++
		}
	})
	if exercised < 50 {
		t.Fatalf("only %d of the random runs fired more than 10 events", exercised)
	}
}

// The same on the test platform and on Cielo's first day, every
// proportional strategy: the regression the repro outputs also pin.
func TestIncrementalShareMatchesNaiveCielo(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, c := range []Config{small(), Cielo()} {
		for _, n := range []string{"oblivious-fixed", "oblivious-daly"} {
			st, _ := Lookup(n, 3600)
			opt := Options{Span: 3 * Day, Skip: Day / 2, Seed: 5}
			inc, err := simulateShare(&c, st, opt, false)
			if err != nil {
				t.Fatal(err)
			}
			naive, err := simulateShare(&c, st, opt, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(inc, naive) || inc.Events < 100 {
				t.Fatalf("%s %s: runs differ or too short:\n%+v\n%+v", c.Platform.Name, n, inc, naive)
			}
		}
	}
}

// Oracle for the node → job map with stale entries (markNodes, jobOn):
// after every event of random runs, jobOn(k) is the running job whose
// node list holds k (found by scanning them all), or nil; and restarts in
// place — the case that skips the writes — happen.
func TestJobOnMatchesScan(t *testing.T) {
	skipped := 0
	rapid.Check(t, func(t *rapid.T) {
		c := small()
		c.Platform.Nodes = rapid.IntRange(32, 80).Draw(t, "nodes")
		c.Platform.NodeMTBF = Seconds(rapid.Float64Range(2*Day, 60*Day).Draw(t, "mtbf"))
		name := rapid.SampledFrom([]string{"oblivious-daly", "ordered-daly", "least-waste"}).Draw(t, "strategy")
		st, _ := Lookup(name, 3600)
		s, err := newSimulator(&c, st, Options{Span: 4 * Day, Skip: Day / 4, Seed: rapid.Uint64().Draw(t, "seed")})
		if err != nil {
			t.Fatal(err)
		}
		s.schedule()
		for s.err == nil && s.sim.Peek() <= s.w1 {
			ops := s.freeOps
			started := s.res.JobsStarted
			s.sim.Step()
			if s.res.JobsStarted > started && s.freeOps == ops+2 && s.lastFree.ops == ops+1 {
				skipped++ // a release then a start in place, in one event
			}
			owner := map[int32]*job{}
			for _, j := range s.running {
				for _, n := range j.nodes {
					owner[n] = j
				}
			}
			for k := range int32(c.Platform.Nodes) {
				if got := s.jobOn(k); got != owner[k] {
					t.Fatalf("t = %g: jobOn(%d) = %v, scan finds %v", s.sim.Now(), k, got, owner[k])
				}
			}
		}
	})
	if skipped == 0 {
		t.Fatal("no restart in place: the skipped writes are not exercised")
	}
}
