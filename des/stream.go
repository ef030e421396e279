package des

import "math/rand/v2"

// Stream returns the random generator of one entity: a PCG generator
// seeded from (seed, ids...) by chained SplitMix64 mixing. Two different id
// paths give independent-looking streams, and an entity's stream depends on
// its own ids only — node 7's failure times are the same on a platform of
// 10 or 10 000 nodes. Use a first id to name the kind of entity (e.g. 1 for
// failures, 2 for the workload) so that node 7 and job 7 differ.
func Stream(seed uint64, ids ...uint64) *rand.Rand {
	h := splitmix(seed ^ 0x6a09e667f3bcc909)
	for _, id := range ids {
		h = splitmix(h ^ splitmix(id+0x9e3779b97f4a7c15))
	}
	return rand.New(rand.NewPCG(h, splitmix(h^0xbb67ae8584caa73b)))
}

// splitmix is the SplitMix64 finaliser.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
