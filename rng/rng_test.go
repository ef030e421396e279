package rng

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// Reference outputs of SplitMix64 seeded with 1234567 (outputs 1..3), from
// the reference C implementation (Vigna, splitmix64.c): the state is
// advanced by γ before mixing, so output i is Mix64(seed + i·γ).
func TestSplitMixReference(t *testing.T) {
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}
	for i, w := range want {
		if got := SplitMix(1234567, uint64(i+1)); got != w {
			t.Errorf("output %d = %d, want %d", i+1, got, w)
		}
	}
}

func TestDeriveChain(t *testing.T) {
	// Derive(base, a, b) is the chain written out by hand.
	base, a, b := uint64(42), uint64(7), uint64(3)
	s0 := Mix64(base + Golden)
	s1 := Mix64(s0 + (a+1)*Golden)
	s2 := Mix64(s1 + (b+1)*Golden)
	if got := Derive(base, a, b); got != s2 {
		t.Fatalf("Derive = %d, want %d", got, s2)
	}
}

func TestDeriveDistinctLastID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.Uint64().Draw(t, "base")
		p := rapid.Uint64().Draw(t, "prefix")
		a := rapid.Uint64().Draw(t, "a")
		b := rapid.Uint64().Draw(t, "b")
		if a != b && Derive(base, p, a) == Derive(base, p, b) {
			t.Fatalf("collision for distinct ids %d, %d", a, b)
		}
	})
}

func TestStreamsDiffer(t *testing.T) {
	x, y := Stream(1, 0), Stream(1, 1)
	same := 0
	for range 64 {
		if x.Uint64() == y.Uint64() {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("streams 0 and 1 agree on %d of 64 draws", same)
	}
}

// Reseed starts the generator New starts: the same numbers.
func TestReseedIsNew(t *testing.T) {
	var p rand.PCG
	for _, seed := range []uint64{0, 1, 2013, Derive(7, 0, 19999), math.MaxUint64} {
		Reseed(&p, seed)
		g := New(seed)
		for i := range 100 {
			if a, b := p.Uint64(), g.Uint64(); a != b {
				t.Fatalf("seed %d, draw %d: reseed gives %#x, New %#x", seed, i, a, b)
			}
		}
	}
}
