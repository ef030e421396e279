package iosim

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// qinfo stays the queue's mirror, entry for entry, through any sequence of
// the queue's operations (the list's jobs appended, starts from the head
// and from inside, restarts pushed at the head, plans computed), checked
// against a plain slice of the same jobs after each operation.
func TestQueueMirror(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := &simulator{}
		var model []*job
		mk := func() *job {
			return &job{q: rapid.IntRange(1, 5000).Draw(t, "q"), runIdx: -1}
		}
		for range rapid.IntRange(0, 20).Draw(t, "list") {
			j := mk()
			s.pushBack(j)
			model = append(model, j)
		}
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 4).Draw(t, "op"); {
			case op == 0 && len(model) > 0:
				if s.popFront() != model[0] {
					t.Fatal("popFront: not the head")
				}
				model = model[1:]
			case op == 1:
				j := mk()
				s.pushFront(j)
				model = slices.Insert(model, 0, j)
			case op == 2 && len(model) > 0:
				i := rapid.IntRange(0, len(model)-1).Draw(t, "i")
				if s.deleteAt(i) != model[i] {
					t.Fatalf("deleteAt(%d): not the job there", i)
				}
				model = slices.Delete(model, i, i+1)
			case op == 3 && len(model) > 0:
				i := rapid.IntRange(0, len(model)-1).Draw(t, "i")
				j := model[i]
				j.plan, j.planSet = rapid.Float64Range(0, 1e9).Draw(t, "plan"), true
				s.qinfo[i].plan, s.qinfo[i].planSet = j.plan, true
			case op == 4: // a list job appended late: the mirror is rebased
				j := mk()
				s.pushBack(j)
				model = append(model, j)
			}
			if len(s.queue) != len(model) || len(s.qinfo) != len(model) {
				t.Fatalf("lengths %d, %d; want %d", len(s.queue), len(s.qinfo), len(model))
			}
			for i, j := range model {
				if s.queue[i] != j || s.qinfo[i] != infoOf(j) {
					t.Fatalf("entry %d: %+v, want %+v", i, s.qinfo[i], infoOf(j))
				}
			}
		}
	})
}

// Whole runs with the mirror checked at every scheduler pass against the
// jobs themselves (what the EASY and greedy passes read before it): random
// platforms scaled ×1 to ×3, strategies, schedulers, seeds and spans.
func TestQueueMirrorInRuns(t *testing.T) {
	checkQueueMirror = true
	defer func() { checkQueueMirror = false }()
	all := DefaultStrategies()
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 3).Draw(t, "k")
		c := scaledCielo(k)
		names := rapid.SliceOfNDistinct(rapid.SampledFrom(all), 1, 3, func(s string) string { return s }).Draw(t, "strategies")
		sts, err := LookupList(strings.Join(names, ","), 3600)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Seed: rapid.Uint64().Draw(t, "seed"), Span: float64(rapid.IntRange(3, 20).Draw(t, "days")) * 86400, Skip: 86400}
		if rapid.Bool().Draw(t, "greedy") {
			opt.Scheduler = Greedy
		}
		if _, err := Trial(&c, sts, opt); err != nil {
			t.Fatal(err)
		}
	})
}
