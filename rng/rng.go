// Package rng derives the seeds of ckpt's random streams. It is the one
// place where a base seed and a path of ids (a sweep point and replicate, a
// node, a job, a simulated run) become the seed of an independent
// generator, so that an item draws the same numbers whatever the worker
// count, the sharding or the size of the platform around it.
//
// The derivation chains SplitMix64 generators (Steele, Lea & Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014, with the
// "variant 13" output constants of Stafford):
//
//	s₀ = output 1 of SplitMix64 seeded with base
//	sₖ = output idₖ+1 of SplitMix64 seeded with sₖ₋₁
//
// where output i of SplitMix64 seeded with s is Mix64(s + i·γ) and
// γ = 0x9e3779b97f4a7c15. Mix64 is a bijection, so for a fixed prefix
// distinct last ids give distinct seeds; unrelated paths collide with
// probability about 2⁻⁶⁴ per pair.
//
// Complexity: O(len(ids)) time, no allocation.
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

// Stream is New(Derive(base, ids...)).
func Stream(base uint64, ids ...uint64) *rand.Rand { return New(Derive(base, ids...)) }
