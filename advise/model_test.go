package advise

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/rng"
)

// synthLog is a seeded log of users whose jobs end before the next
// submission (so that learning it in pieces equals learning it at once).
func synthLog(seed uint64, n int) Log {
	r := rng.New(seed)
	l := Log{Name: "synth", Read: n}
	t := 0.0
	for i := 0; i < n; i++ {
		u := r.IntN(4)
		req := []float64{3600, 7200, 14400}[r.IntN(3)]
		run := req * (0.1 + 0.5*r.Float64()) * float64(1+u) / 4
		if r.IntN(10) == 0 {
			run = req // killed at its limit
		}
		wait := 0.5*req + 600*r.Float64()
		l.Jobs = append(l.Jobs, Job{Submit: t, Wait: wait, Run: run, Requested: req, Nodes: int64(1 + r.IntN(8)),
			Who: Who{User: string(rune('a' + u)), Group: "g", App: string(rune('p' + r.IntN(2)))}})
		t += wait + run + 1
	}
	return l
}

func TestModelAnswersAsTheEngine(t *testing.T) {
	l := synthLog(7, 600)
	p := DefaultParams()
	e := NewEngine(p)
	e.Feed(l.Jobs, true, nil)
	path := filepath.Join(t.TempDir(), "m.model")
	if err := e.WriteModel(path); err != nil {
		t.Fatal(err)
	}
	advised := 0
	for _, u := range []string{"a", "b", "c", "d", "zz"} {
		for _, req := range []float64{0, 3600, 7200, 14400, 999} {
			for _, nodes := range []int64{1, 3, 8} {
				q := Query{Who: Who{User: u, Group: "g", App: "p"}, Nodes: nodes, Requested: req}
				got, err := Ask(path, q)
				if err != nil {
					t.Fatal(err)
				}
				want := e.Advise(q)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v: model says %+v, engine %+v", q, got, want)
				}
				if !got.Keep {
					advised++
				}
			}
		}
	}
	if advised == 0 {
		t.Fatal("no query was advised: the comparison tests nothing")
	}
}

func TestLearnIncremental(t *testing.T) {
	dir := t.TempDir()
	l := synthLog(11, 400)
	whole, half := filepath.Join(dir, "whole"), filepath.Join(dir, "half")
	e := NewEngine(DefaultParams())
	e.Feed(l.Jobs, true, nil)
	if err := e.WriteModel(whole); err != nil {
		t.Fatal(err)
	}
	e1 := NewEngine(DefaultParams())
	e1.Feed(l.Jobs[:150], true, nil)
	if err := e1.WriteModel(half); err != nil {
		t.Fatal(err)
	}
	e2, err := ReadModel(half)
	if err != nil {
		t.Fatal(err)
	}
	e2.Feed(l.Jobs[150:], true, nil)
	if err := e2.WriteModel(half); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(half)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("learning in two pieces differs from learning at once (%d and %d bytes)", len(a), len(b))
	}
}

func TestTruncatedModelRefused(t *testing.T) {
	e := NewEngine(DefaultParams())
	e.Feed(synthLog(5, 300).Jobs, true, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	if err := e.WriteModel(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	q := Query{Who: Who{User: "a", Group: "g", App: "p"}, Nodes: 2, Requested: 7200}
	if _, err := Ask(path, q); err != nil {
		t.Fatalf("whole model: %v", err)
	}
	// Cut at a line boundary and in the middle of a line.
	cuts := []int{bytes.LastIndexByte(b[:len(b)-1], '\n') + 1, len(b) / 2, len(b) - 1}
	for _, n := range cuts {
		if err := os.WriteFile(path, b[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Ask(path, q); err == nil || !strings.Contains(err.Error(), "incomplete") {
			if n != len(b)-1 { // only the final newline missing is still whole
				t.Errorf("cut at %d of %d bytes: Ask says %v, want incomplete", n, len(b), err)
			}
		}
		if _, err := ReadModel(path); (err == nil) != (n == len(b)-1) {
			t.Errorf("cut at %d of %d bytes: ReadModel says %v", n, len(b), err)
		}
	}
	if _, err := Ask(dir, q); err == nil {
		t.Error("a folder as the model accepted")
	}
}
