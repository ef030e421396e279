package runner

import (
	"fmt"
	"os"
	"sort"
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
// integers (for example "3/8", the fourth of eight), or "auto" or
// "auto/n", which take the index, and for "auto" the count, from the job
// array the process runs in (see ParseShardEnv; ParseShard reads the
// process environment). The empty string returns the zero Shard, the whole
// sweep.
func ParseShard(s string) (Shard, error) {
	return ParseShardEnv(s, os.Getenv)
}

// The environment variables ParseShardEnv reads.
const (
	envSlurmID    = "SLURM_ARRAY_TASK_ID"
	envSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	envSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmMax   = "SLURM_ARRAY_TASK_MAX"
	envK8sIndex   = "JOB_COMPLETION_INDEX"
)

// ParseShardEnv is ParseShard with the environment read through getenv
// (os.Getenv in ParseShard; a map in tests). Besides "i/n" it reads:
//
//   - "auto": under a Slurm job array, SLURM_ARRAY_TASK_ID of
//     SLURM_ARRAY_TASK_COUNT, which requires the array to be the whole
//     0-based range 0..N−1 (SLURM_ARRAY_TASK_MIN 0, SLURM_ARRAY_TASK_MAX
//     N−1): a resubmission of some tasks (--array=2,5) has a smaller count
//     and must use "auto/N". Outside any array (neither SLURM_ARRAY_TASK_ID
//     nor JOB_COMPLETION_INDEX set) "auto" is the whole sweep, so that one
//     script runs both ways. Kubernetes' JOB_COMPLETION_INDEX comes without
//     its count: "auto" refuses it and asks for "auto/N".
//   - "auto/N": index SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX (an
//     Indexed Job with N completions), of N shards; one of them must be
//     set.
func ParseShardEnv(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	if s == "auto" || strings.HasPrefix(s, "auto/") {
		return autoShard(s, getenv)
	}
	return parseFixed(s)
}

// parseFixed reads "i/n".
func parseFixed(s string) (Shard, error) {
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

// autoShard resolves "auto" and "auto/N" (see ParseShardEnv).
func autoShard(s string, getenv func(string) string) (Shard, error) {
	id, from := getenv(envSlurmID), envSlurmID
	if id == "" {
		id, from = getenv(envK8sIndex), envK8sIndex
	}
	var count, countFrom string
	if _, ns, ok := strings.Cut(s, "/"); ok {
		count, countFrom = ns, "auto/N"
		if id == "" {
			return Shard{}, fmt.Errorf("shard %q: neither %s nor %s is set (not in a job array?)", s, envSlurmID, envK8sIndex)
		}
	} else {
		switch {
		case id == "":
			return Shard{}, nil // not in an array: the whole sweep
		case from == envK8sIndex:
			return Shard{}, fmt.Errorf("shard auto: %s=%s comes without a count; use --shard auto/N with N the Job's completions", envK8sIndex, id)
		}
		count, countFrom = getenv(envSlurmCount), envSlurmCount
		if count == "" {
			return Shard{}, fmt.Errorf("shard auto: %s=%s but %s is not set", envSlurmID, id, envSlurmCount)
		}
		n, err := parseCount(count)
		if err == nil {
			lo, hi := getenv(envSlurmMin), getenv(envSlurmMax)
			if (lo != "" && lo != "0") || (hi != "" && hi != strconv.Itoa(n-1)) {
				return Shard{}, fmt.Errorf("shard auto: the array runs tasks %s-%s, not 0-%d (a resubmission of some tasks?); use --shard auto/N with N the full shard count", lo, hi, n-1)
			}
		}
	}
	sh, err := parseFixed(id + "/" + count)
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: %s=%q with count %q (from %s): %v", s, from, id, count, countFrom, err)
	}
	return sh, nil
}

// ArrayList formats shard indices as a Slurm --array list: sorted, with
// runs of three or more consecutive indices as ranges ("0,2,5-9"). The
// indices must be non-negative; duplicates are dropped.
func ArrayList(ids []int) string {
	s := append([]int(nil), ids...)
	sort.Ints(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] <= s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch {
		case s[j] == s[i]:
			b.WriteString(strconv.Itoa(s[i]))
		case s[j] == s[i]+1:
			b.WriteString(strconv.Itoa(s[i]) + "," + strconv.Itoa(s[j]))
		default:
			b.WriteString(strconv.Itoa(s[i]) + "-" + strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}
