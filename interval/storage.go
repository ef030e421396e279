package interval

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// Storage is one place to keep checkpoints, with its costs for the task.
type Storage struct {
	Name string  `json:"name"`
	C    float64 `json:"c_s"` // checkpoint cost in seconds, > 0
	R    float64 `json:"r_s"` // restart cost in seconds (including any migration of the image), ≥ 0
}

// ParseExpectedFailures reads an expected number of failures E(Y) (the
// MNOF of FailureSource.ExpectedFailures), a plain number; its range is
// FailureSource's Validate's. O(len(s)).
func ParseExpectedFailures(s string) (float64, error) {
	ey, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("want a number of failures >= 0, got %q", s)
	}
	return ey, nil
}

// ParseStorage reads a storage's costs written "C,R": the checkpoint cost
// C > 0 and the restart cost R >= 0, each in the duration grammar of
// units.ParseSeconds (seconds, 90s, 1.5m, 00:01:30, …), spaces around
// either allowed. Errors are one line and quote the bad part. O(len(v)).
func ParseStorage(name, v string) (Storage, error) {
	cs, rs, ok := strings.Cut(v, ",")
	if !ok || strings.Contains(rs, ",") {
		return Storage{}, fmt.Errorf("want C,R (checkpoint and restart costs), got %q", v)
	}
	c, err := units.ParseSeconds(strings.TrimSpace(cs))
	if err != nil || !(c > 0) {
		return Storage{}, fmt.Errorf("checkpoint cost must be a duration > 0, got %q", cs)
	}
	r, err := units.ParseSeconds(strings.TrimSpace(rs))
	if err != nil || !(r >= 0) {
		return Storage{}, fmt.Errorf("restart cost must be a duration >= 0, got %q", rs)
	}
	return Storage{Name: name, C: c, R: r + 0}, nil // + 0 turns −0 into 0
}

// StorageCost is the plan and expected cost on one storage.
type StorageCost struct {
	Storage
	// X is the number of intervals: the integer of Intervals, or x* of
	// Eq. (3) when the paper's continuous form is asked for.
	X float64
	// Cost is C·(X−1) + R·E(Y) + Te·E(Y)/(2X), Eq. (4) without Te.
	Cost float64
}

// ChooseStorage is Section 4.2.2: for each storage it computes the number
// of intervals of Theorem 1 with that storage's C, and the expected total
// cost C(X−1) + R·E(Y) + Te·E(Y)/(2X). It returns the costs in the input
// order and the index of the cheapest (the first on ties).
// With continuous set, X is the real x* of Eq. (3) (clamped to ≥ 1), as in
// the paper's example (28.29 for local ramdisk versus 37.78 for NFS);
// otherwise the integer of Intervals (28.30 versus 37.78). O(len(s)).
func ChooseStorage(te, ey float64, s []Storage, continuous bool) (costs []StorageCost, best int, err error) {
	if !(te > 0) || math.IsInf(te, 0) {
		return nil, 0, fmt.Errorf("work Te must be finite and > 0, got %v", te)
	}
	if !(ey >= 0) || math.IsInf(ey, 0) {
		return nil, 0, fmt.Errorf("expected number of failures must be finite and >= 0, got %v", ey)
	}
	if len(s) == 0 {
		return nil, 0, fmt.Errorf("no storage to choose from")
	}
	best = -1
	for _, st := range s {
		if !(st.C > 0) || math.IsInf(st.C, 0) || !(st.R >= 0) || math.IsInf(st.R, 0) {
			return nil, 0, fmt.Errorf("storage %q: need C > 0 and R >= 0, got C=%v R=%v", st.Name, st.C, st.R)
		}
		x := float64(Intervals(te, st.C, ey))
		if continuous {
			x = math.Max(1, OptimalIntervals(te, st.C, ey))
		}
		sc := StorageCost{Storage: st, X: x, Cost: Overhead(te, st.C, st.R, ey, x)}
		costs = append(costs, sc)
		if best < 0 || sc.Cost < costs[best].Cost {
			best = len(costs) - 1
		}
	}
	return costs, best, nil
}

// BLCR holds the measured BLCR costs of GloudSim by memory size: checkpoint
// to a local ramdisk (ramfs-cp) or to NFS (nfs-cp); restart after a local
// checkpoint, which must first move the image to shared storage (migration
// type A, remotedisk-mv-restart), or from NFS (type B, nfs-restart). At
// 162 MB these give 3.20 s and 1.44 s, the paper's Table 5 (3.22 and 1.45 at
// 160 MB).
type BLCR struct {
	LocalCkpt, SharedCkpt, LocalRestart, SharedRestart CostTable
}

// BLCR table files in the data folder.
const (
	BLCRLocalCkpt     = "ramfs-cp.cost"
	BLCRSharedCkpt    = "nfs-cp.cost"
	BLCRLocalRestart  = "remotedisk-mv-restart.cost"
	BLCRSharedRestart = "nfs-restart.cost"
)

// BLCRDir is the folder of the BLCR tables inside the data folder, as
// path elements for datadir.Path.
var BLCRDir = []string{"checkpoint-costs", "blcr"}

// LoadBLCR reads the four tables from dir.
func LoadBLCR(dir string) (BLCR, error) {
	var b BLCR
	for _, f := range []struct {
		name string
		dst  *CostTable
	}{{BLCRLocalCkpt, &b.LocalCkpt}, {BLCRSharedCkpt, &b.SharedCkpt}, {BLCRLocalRestart, &b.LocalRestart}, {BLCRSharedRestart, &b.SharedRestart}} {
		p := filepath.Join(dir, f.name)
		fh, err := os.Open(p)
		if err != nil {
			return BLCR{}, err
		}
		t, err := ReadCostTable(fh, p)
		fh.Close()
		if err != nil {
			return BLCR{}, err
		}
		*f.dst = t
	}
	return b, nil
}

// Range is the memory range, in MB, that all four tables measured: from
// the largest of their smallest memories to the smallest of their largest
// (10.3–248.3 MB for GloudSim's tables). Inside it the costs are
// interpolated between measurements; outside, CostTable.At extrapolates
// along a least-squares line, which nothing measured supports.
func (b BLCR) Range() (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	for _, t := range []CostTable{b.LocalCkpt, b.SharedCkpt, b.LocalRestart, b.SharedRestart} {
		if n := len(t.MemoryMB); n > 0 {
			lo, hi = math.Max(lo, t.MemoryMB[0]), math.Min(hi, t.MemoryMB[n-1])
		}
	}
	return lo, hi
}

// Extrapolated reports whether a task of memory mb megabytes lies outside
// Range, so that Storages(mb) extrapolates the tables.
func (b BLCR) Extrapolated(mb float64) bool {
	lo, hi := b.Range()
	return !(mb >= lo && mb <= hi)
}

// Storages returns the local and shared storage costs for a task of memory
// mb megabytes (extrapolated outside Range: see Extrapolated).
func (b BLCR) Storages(mb float64) []Storage {
	return []Storage{
		{Name: "local", C: b.LocalCkpt.At(mb), R: b.LocalRestart.At(mb)},
		{Name: "shared", C: b.SharedCkpt.At(mb), R: b.SharedRestart.At(mb)},
	}
}
