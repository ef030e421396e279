package interval

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// CostTable is a measured cost (checkpoint or restart) as a function of the
// task's memory size, as in the BLCR tables of GloudSim
// (checkpoint-costs/blcr/*.cost): lines "index memoryMB seconds".
type CostTable struct {
	Name string
	// MemoryMB and Seconds are the measured points, sorted by memory.
	MemoryMB, Seconds []float64
}

// ReadCostTable reads a cost table: one measurement per line, three
// whitespace-separated fields "index memoryMB seconds" (the index is
// ignored); blank lines and "#" comments are skipped. Memory must be > 0,
// seconds ≥ 0, both finite; at least one line is needed. Errors name the
// line: "nfs-cp.cost:3: invalid memory \"x\"". Points are sorted by memory;
// duplicated memories are averaged. O(n log n).
func ReadCostTable(r io.Reader, name string) (CostTable, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	type pt struct{ m, s float64 }
	var pts []pt
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Fields(s)
		if len(f) != 3 {
			return CostTable{}, fmt.Errorf("%s:%d: want 3 fields \"index memoryMB seconds\", got %d", name, line, len(f))
		}
		m, err := strconv.ParseFloat(f[1], 64)
		if err != nil || !(m > 0) || math.IsInf(m, 0) {
			return CostTable{}, fmt.Errorf("%s:%d: invalid memory %q (want MB > 0)", name, line, f[1])
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return CostTable{}, fmt.Errorf("%s:%d: invalid cost %q (want seconds >= 0)", name, line, f[2])
		}
		pts = append(pts, pt{m, v})
	}
	if err := sc.Err(); err != nil {
		return CostTable{}, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if len(pts) == 0 {
		return CostTable{}, fmt.Errorf("%s: no measurement", name)
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
