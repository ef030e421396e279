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
