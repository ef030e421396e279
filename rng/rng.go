package rng

import "math/rand/v2"

// Golden is the SplitMix64 increment ⌊2⁶⁴/φ⌋, an odd Weyl constant.
const Golden = 0x9e3779b97f4a7c15

// Mix64 is the SplitMix64 output function: a bijection on uint64 with full
// avalanche (flipping one input bit flips each output bit with probability
// close to 1/2).
func Mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// SplitMix returns output number i (i ≥ 1) of a SplitMix64 generator whose
// state starts at s: Mix64(s + i·γ).
func SplitMix(s, i uint64) uint64 { return Mix64(s + i*Golden) }

// Derive returns the seed of the stream named by ids under base (see the
// package comment for the formula). Derive(base) alone is output 1 of
// SplitMix64 seeded with base.
func Derive(base uint64, ids ...uint64) uint64 {
	s := SplitMix(base, 1)
	for _, id := range ids {
		s = SplitMix(s, id+1)
	}
	return s
}

// New returns the generator of a stream with the given seed: a
// math/rand/v2 PCG whose two state words are seed and SplitMix(seed, 1).
func New(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, SplitMix(seed, 1)))
}

// Reseed sets p, in place and without allocating, to the state New(seed)
// starts its generator from: hot loops that start many streams reuse one
// PCG and draw exactly New's numbers.
func Reseed(p *rand.PCG, seed uint64) { p.Seed(seed, SplitMix(seed, 1)) }

// Stream is New(Derive(base, ids...)).
func Stream(base uint64, ids ...uint64) *rand.Rand { return New(Derive(base, ids...)) }
