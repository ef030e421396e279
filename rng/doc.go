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
// No paper defines it: the papers' simulations only ask for independent
// streams per run (the IPDPS 2020 and TPDS 2021 evaluations, the APDCM 2018
// simulator's per-node failures, the SC'13 what-if study); this package is
// how ckpt makes them reproducible.
//
// Complexity: Derive and Stream take O(len(ids)) time and O(1) memory, with
// no allocation besides the generator Stream returns.
package rng
