package runner

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects the part of a sweep one process runs: item k belongs to
// shard k mod Count. The zero Shard (Count 0) means the whole sweep, as
// does Shard{0, 1}.
//
// Shards are numbered from 0. Under a Slurm job array, submit with
// --array=0-(N-1) so that SLURM_ARRAY_TASK_ID is 0-based, and pass
// --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"; an array
// numbered from 1 would make the last task's shard N/N, which is rejected,
// and leave shard 0 unrun, which Merge reports as missing items.
type Shard struct {
	// Index is the shard this process runs, in [0, Count).
	Index int
	// Count is the number of shards the sweep is split into; 0 means
	// unsplit.
	Count int
}

// ParseShard reads a shard spec "i/n" with 0 ≤ i < n, both plain decimal
// integers (for example "3/8", the fourth of eight). The empty string
// returns the zero Shard, the whole sweep.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 3/8", s)
	}
	i, err := parseCount(is)
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: index %q is not a non-negative integer", s, is)
	}
	n, err := parseCount(ns)
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: count %q is not a non-negative integer", s, ns)
	}
	sh := Shard{Index: i, Count: n}
	if n == 0 {
		return Shard{}, fmt.Errorf("shard %q: shard count 0 must be positive", s)
	}
	if err := sh.validate(); err != nil {
		return Shard{}, fmt.Errorf("shard %q: %v", s, err)
	}
	return sh, nil
}

// parseCount accepts only ASCII digits (no sign, no spaces).
func parseCount(s string) (int, error) {
	if s == "" {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.Atoi(s)
}

func (s Shard) validate() error {
	switch {
	case s.Count == 0 && s.Index == 0:
		return nil
	case s.Count <= 0:
		return fmt.Errorf("shard count %d must be positive", s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard index %d is outside [0, %d) (shards are 0-based)", s.Index, s.Count)
	}
	return nil
}

// String formats s as ParseShard reads it; the zero Shard gives "0/1".
func (s Shard) String() string {
	if s.Count == 0 {
		return "0/1"
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// norm returns (index, count) with the zero Shard mapped to 0/1.
func (s Shard) norm() (int, int) {
	if s.Count == 0 {
		return 0, 1
	}
	return s.Index, s.Count
}

// Len is the number of items of a sweep of total items that fall in s.
func (s Shard) Len(total int) int {
	i, n := s.norm()
	if total <= i {
		return 0
	}
	return (total-i-1)/n + 1
}
