package memplan

import (
	"context"
	"errors"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/reservation"
)

// exhaustiveAllCkpt is the least expected reservation time over every
// all-checkpoint strategy on the law's values (each reservation but the
// last checkpoints, paying C_j at its milestone v_j, and every one after
// the first restarts), with every reservation at most maxLength, computed
// walltime by walltime; ok is false when none fits.
func exhaustiveAllCkpt(m MemLaw, maxLength float64) (float64, bool) {
	n := len(m.Values)
	best, found := math.Inf(1), false
	for mask := 0; mask < 1<<(n-1); mask++ {
		var idx []int
		for i := 0; i < n-1; i++ {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		idx = append(idx, n-1)
		var ws, ms []float64
		prev, fits := 0.0, true
		for k, i := range idx {
			w := m.Values[i] - prev
			if k > 0 {
				w += m.Restart
			}
			if i < n-1 {
				w += m.Ckpt[i]
			}
			fits = fits && w <= maxLength
			ws, ms = append(ws, w), append(ms, m.Values[i])
			prev = m.Values[i]
		}
		if !fits {
			continue
		}
		total := 0.0
		for i, x := range m.Values {
			for k, w := range ws {
				total += m.Probs[i] * w
				if x <= ms[k] {
					break
				}
			}
		}
		if total < best {
			best, found = total, true
		}
	}
	return best, found
}

// MEM-ALL-CKPT under a longest reservation is the exhaustive optimum of
// the all-checkpoint strategies within it, on small laws.
func TestMemAllCkptMaxLengthMatchesExhaustive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(t, "n")
		m := MemLaw{Restart: float64(rapid.IntRange(0, 30).Draw(t, "R"))}
		v, total := 0.0, 0.0
		for range n {
			v += float64(rapid.IntRange(1, 100).Draw(t, "gap"))
			p := float64(rapid.IntRange(0, 5).Draw(t, "w"))
			m.Values, m.Probs = append(m.Values, v), append(m.Probs, p)
			m.Ckpt, m.Mem = append(m.Ckpt, float64(rapid.IntRange(0, 40).Draw(t, "C"))), append(m.Mem, 1)
			total += p
		}
		m.Probs[n-1]++
		total++
		for i := range m.Probs {
			m.Probs[i] /= total
		}
		m.MaxLength = float64(rapid.IntRange(20, 400).Draw(t, "max"))
		want, ok := exhaustiveAllCkpt(m, m.MaxLength)
		p, err := MemAllCkpt(context.Background(), m)
		if !ok {
			if !errors.Is(err, reservation.ErrNoPlanWithin) {
				t.Fatalf("no plan fits, yet %v (%v)", p, err)
			}
			return
		}
		if err != nil || math.Abs(p.ExpectedTime-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("%+v: MEM-ALL-CKPT %v (%v), exhaustive %v", m, p, err, want)
		}
		for _, r := range p.Reservations {
			if r.Length > m.MaxLength {
				t.Fatalf("reservation of %v > %v", r.Length, m.MaxLength)
			}
		}
	})
}

// ckpt reserve --profile with a longest reservation: every reservation
// keeps within it and the report says so.
func TestRunMaxRequest(t *testing.T) {
	r := DefaultRequest()
	r.Profile, r.Others = "slant", true
	free, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	r.MaxRequest = 3600
	rep, err := Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !(free.Reservations[0].Length > 3600) || !(rep.ExpectedReservationTime > free.ExpectedReservationTime) || rep.MaxRequest != 3600 {
		t.Fatalf("free %v s first, bounded E %v vs %v", free.Reservations[0].Length, rep.ExpectedReservationTime, free.ExpectedReservationTime)
	}
	for _, rv := range rep.Reservations {
		if rv.Length > 3600 {
			t.Errorf("reservation of %v s", rv.Length)
		}
	}
	r.MaxRequest = 60
	if _, err := Run(context.Background(), r); !errors.Is(err, reservation.ErrNoPlanWithin) {
		t.Errorf("a one-minute bound: %v", err)
	}
	for _, bad := range []float64{-1, math.NaN(), 1e308} {
		r.MaxRequest = bad
		if err := r.Validate(); err == nil {
			t.Errorf("MaxRequest %v accepted", bad)
		}
	}
}
