package interval

import (
	"io"
	"math"
	"sort"

	"github.com/ckpt-hpc/ckpt/trace"
)

// CostTable is a measured cost (checkpoint or restart) as a function of the
// task's memory size, as in the BLCR tables of GloudSim
// (checkpoint-costs/blcr/*.cost): lines "index memoryMB seconds".
type CostTable struct {
	Name string
	// MemoryMB and Seconds are the measured points, sorted by memory.
	MemoryMB, Seconds []float64
}

// BLCRFormat is the layout of a BLCR cost table (GloudSim's
// checkpoint-costs/blcr/*.cost): lines "index memoryMB seconds".
var BLCRFormat = trace.CostFormat{Columns: []string{"index", "memoryMB", "seconds"}}

// ReadCostTable reads a cost table in BLCRFormat through
// trace.ReadCostTable: one measurement per line, three whitespace-separated
// numbers "index memoryMB seconds" (the index is not used); blank lines and
// "#" comments are skipped. Every value must be finite and >= 0, the memory
// > 0; at least one line is needed. Errors are *trace.ParseError values
// naming the line: "nfs-cp.cost:3: field 2 (memoryMB) \"x\" is not a number
// >= 0". Points are sorted by memory; duplicated memories are averaged.
// O(n log n).
func ReadCostTable(r io.Reader, name string) (CostTable, error) {
	tt, err := trace.ReadCostTable(r, name, BLCRFormat)
	if err != nil {
		return CostTable{}, err
	}
	type pt struct{ m, s float64 }
	pts := make([]pt, len(tt.Rows))
	for i, row := range tt.Rows {
		if !(row[1] > 0) {
			return CostTable{}, tt.Errorf(i, "memory %v MB: want > 0", row[1])
		}
		pts[i] = pt{row[1], row[2]}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].m < pts[j].m })
	t := CostTable{Name: name}
	for i := 0; i < len(pts); {
		j, sum := i, 0.0
		for ; j < len(pts) && pts[j].m == pts[i].m; j++ {
			sum += pts[j].s
		}
		t.MemoryMB = append(t.MemoryMB, pts[i].m)
		t.Seconds = append(t.Seconds, sum/float64(j-i))
		i = j
	}
	return t, nil
}

// At is the cost for a task of memory mb (MB > 0), by linear interpolation
// between the measured points. Outside the measured range it follows the
// least-squares line through all the points (the paper, Fig. 7, finds the
// cost linear in the memory size), floored at 0; with a single point it is
// that point's cost. NaN for mb ≤ 0. O(log n).
func (t CostTable) At(mb float64) float64 {
	n := len(t.MemoryMB)
	if !(mb > 0) || n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return t.Seconds[0]
	}
	if mb < t.MemoryMB[0] || mb > t.MemoryMB[n-1] {
		a, b := t.line()
		return math.Max(0, a+b*mb)
	}
	i := sort.SearchFloat64s(t.MemoryMB, mb)
	if t.MemoryMB[i] == mb {
		return t.Seconds[i]
	}
	x0, x1 := t.MemoryMB[i-1], t.MemoryMB[i]
	y0, y1 := t.Seconds[i-1], t.Seconds[i]
	return y0 + (y1-y0)*(mb-x0)/(x1-x0)
}

// line is the least-squares fit seconds = a + b·MB.
func (t CostTable) line() (a, b float64) {
	n := float64(len(t.MemoryMB))
	var sx, sy float64
	for i := range t.MemoryMB {
		sx += t.MemoryMB[i]
		sy += t.Seconds[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range t.MemoryMB {
		dx := t.MemoryMB[i] - mx
		sxx += dx * dx
		sxy += dx * (t.Seconds[i] - my)
	}
	if sxx == 0 {
		return my, 0
	}
	b = sxy / sxx
	return my - b*mx, b
}
