package runner

import "math/rand/v2"

// golden is the SplitMix64 increment ⌊2⁶⁴/φ⌋, an odd Weyl constant.
const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 output function (Steele, Lea & Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014, with the
// "variant 13" constants of Stafford). It is a bijection on uint64 with
// full avalanche: flipping one input bit flips each output bit with
// probability close to 1/2.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// splitmix returns the i-th output (i ≥ 1) of a SplitMix64 generator
// whose state starts at s: mix64(s + i·γ).
func splitmix(s uint64, i uint64) uint64 { return mix64(s + i*golden) }

// Seed derives the seed of replicate rep of point number point of a sweep
// whose base seed is base. It depends on nothing else, so an item draws the
// same random numbers whatever the worker count or the sharding.
//
// The derivation chains three SplitMix64 generators:
//
//	s₀   = first output of SplitMix64 seeded with base
//	s₁   = output number point+1 of SplitMix64 seeded with s₀
//	seed = output number rep+1 of SplitMix64 seeded with s₁
//
// where output number i of SplitMix64 seeded with s is mix64(s + i·γ),
// γ = 0x9e3779b97f4a7c15. For a fixed base and point, distinct replicates
// get distinct seeds (mix64 is a bijection); across points, collisions
// have probability about 2⁻⁶⁴ per pair. Negative indices are reduced
// modulo 2⁶⁴ like any int→uint64 conversion; Run never produces them.
func Seed(base uint64, point, rep int) uint64 {
	s0 := splitmix(base, 1)
	s1 := splitmix(s0, uint64(point)+1)
	return splitmix(s1, uint64(rep)+1)
}

// NewRand returns the generator an item with the given seed receives: a
// math/rand/v2 PCG whose two state words are seed and the first output of
// SplitMix64 seeded with seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(seed, 1)))
}
