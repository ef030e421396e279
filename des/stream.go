package des

import (
	"math/rand/v2"

	"github.com/ckpt-hpc/ckpt/rng"
)

// Stream returns the random generator of one entity: rng.Stream(seed,
// ids...). Two different id paths give independent streams, and an
// entity's stream depends on its own ids only — node 7's failure times are
// the same on a platform of 10 or 10 000 nodes. Use a first id to name the
// kind of entity (e.g. 1 for failures, 2 for the workload) so that node 7
// and job 7 differ.
func Stream(seed uint64, ids ...uint64) *rand.Rand { return rng.Stream(seed, ids...) }

// Peeker draws the first values of many entities' streams with one
// generator, re-seeded in place: Peek(seed, ids...) returns a generator in
// the state Stream(seed, ids...) starts in, without allocation (valid until
// the next Peek). A simulator that needs, of 10 000 nodes, the streams of
// only the few whose first failure falls in its span peeks at each and
// makes a Stream for those only.
type Peeker struct {
	pcg *rand.PCG
	r   *rand.Rand
}

// Peek re-seeds p's generator as rng.Stream(seed, ids...) seeds its own
// (see rng.New) and returns it.
func (p *Peeker) Peek(seed uint64, ids ...uint64) *rand.Rand {
	if p.pcg == nil {
		p.pcg = rand.NewPCG(0, 0)
		p.r = rand.New(p.pcg)
	}
	d := rng.Derive(seed, ids...)
	p.pcg.Seed(d, rng.SplitMix(d, 1))
	return p.r
}
