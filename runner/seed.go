package runner

import (
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/rng"
)

// Seed derives the seed of replicate rep of point number point of a sweep
// whose base seed is base: rng.Derive(base, point, rep). It depends on
// nothing else, so an item draws the same random numbers whatever the
// worker count or the sharding. Negative indices are reduced modulo 2⁶⁴
// like any int→uint64 conversion; Run never produces them.
func Seed(base uint64, point, rep int) uint64 {
	return rng.Derive(base, uint64(point), uint64(rep))
}

// NewRand returns the generator an item with the given seed receives
// (rng.New).
func NewRand(seed uint64) *rand.Rand { return rng.New(seed) }
