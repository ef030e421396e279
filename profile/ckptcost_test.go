package profile

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/trace"
)

func TestFitCheckpointCostExactLine(t *testing.T) {
	// Points on t = 5 + V/0.25 are fitted exactly.
	sizes := []float64{1, 2, 8, 40}
	times := make([]float64, len(sizes))
	for i, v := range sizes {
		times[i] = 5 + v/0.25
	}
	c, err := FitCheckpointCost(sizes, times)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Latency-5) > 1e-9 || math.Abs(c.Bandwidth-0.25) > 1e-12 {
		t.Fatalf("got %+v, want l=5 b=0.25", c)
	}
	if _, err := FitCheckpointCost([]float64{3, 3}, []float64{1, 2}); err == nil {
		t.Fatal("equal sizes accepted")
	}
}

func TestCRIUMatchesTheMeasuredTable(t *testing.T) {
	criuPath := datadirtest.ForTest(t, "checkpoint-costs", "criu-podman-bandwidth.tsv")
	f, err := os.Open(criuPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sizes, ck, rs, err := ReadCRIUCosts(f, criuPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 13 {
		t.Fatalf("%d rows, want 13", len(sizes))
	}
	c, err := FitCheckpointCost(sizes, ck)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fitted C(V) = %.4f s + V / %.5f GB/s", c.Latency, c.Bandwidth)
	if math.Abs(c.Latency-CRIU.Latency) > 1e-3 || math.Abs(c.Bandwidth-CRIU.Bandwidth) > 1e-5 {
		t.Fatalf("CRIU = %+v, fit gives %+v", CRIU, c)
	}
	r, err := FitCheckpointCost(sizes, rs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Latency-CRIURestart.Latency) > 1e-3 || math.Abs(r.Bandwidth-CRIURestart.Bandwidth) > 1e-5 {
		t.Fatalf("CRIURestart = %+v, fit gives %+v", CRIURestart, r)
	}
	// The manifest says the write bandwidth levels at about 208 MB/s.
	if math.Abs(c.Bandwidth-0.208) > 0.01 {
		t.Fatalf("bandwidth %v GB/s, want about 0.208", c.Bandwidth)
	}
	// The fit reproduces the 47 GB checkpoint (231.5 s) within 3 %.
	if got := c.Cost(46.95); math.Abs(got-231.496)/231.496 > 0.03 {
		t.Fatalf("C(46.95) = %v, measured 231.5", got)
	}
}

func TestReadCRIUCostsErrors(t *testing.T) {
	_, _, _, err := ReadCRIUCosts(strings.NewReader("Size\tC\tR\n1\t2\t3\n4\tx\t5\n"), "c.tsv")
	if err == nil || !strings.Contains(err.Error(), "c.tsv:3") {
		t.Fatalf("got %v, want an error at c.tsv:3", err)
	}
}

func FuzzReadCRIUCosts(f *testing.F) {
	f.Add("Size\tC\tR\n0.3\t4.47\t2.139\n")
	f.Add("1 2 3\n4 5\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, c, r, err := ReadCRIUCosts(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if len(s) != len(c) || len(s) != len(r) {
			t.Fatal("uneven columns")
		}
		FitCheckpointCost(s, c) // must not panic
	})
}

// FitCheckpointCost is the ordinary least-squares fit of time = l + V/b to
// (size GB, seconds) pairs. It needs two distinct sizes and a positive slope.
func FitCheckpointCost(sizes, times []float64) (CheckpointCost, error) {
	n := len(sizes)
	if n != len(times) || n < 2 {
		return CheckpointCost{}, fmt.Errorf("need at least 2 (size, time) pairs, got %d and %d", len(sizes), len(times))
	}
	var sx, sy, sxx, sxy float64
	for i := range sizes {
		sx += sizes[i]
		sy += times[i]
		sxx += sizes[i] * sizes[i]
		sxy += sizes[i] * times[i]
	}
	fn := float64(n)
	den := fn*sxx - sx*sx
	if den <= 0 {
		return CheckpointCost{}, fmt.Errorf("sizes are all equal: cannot fit a bandwidth")
	}
	slope := (fn*sxy - sx*sy) / den
	if !(slope > 0) {
		return CheckpointCost{}, fmt.Errorf("checkpoint time does not grow with size (slope %v s/GB)", slope)
	}
	l := (sy - slope*sx) / fn
	return CheckpointCost{Latency: math.Max(l, 0), Bandwidth: 1 / slope}, nil
}

// CRIUFormat is the layout of the CRIU table
// (checkpoint-costs/criu-podman-bandwidth.tsv): a header line, then per
// measurement the size (GB), the checkpoint and restart times (s) and
// further columns (bandwidths) that are ignored.
var CRIUFormat = trace.CostFormat{Columns: []string{"size", "checkpoint", "restart"}, MoreColumns: true, Header: true}

// ReadCRIUCosts reads the CRIU table (CRIUFormat, through
// trace.ReadCostTable) and returns the sizes, checkpoint times and restart
// times. Errors are *trace.ParseError values naming the line.
func ReadCRIUCosts(r io.Reader, name string) (sizes, ckpt, restart []float64, err error) {
	t, err := trace.ReadCostTable(r, name, CRIUFormat)
	if err != nil {
		return nil, nil, nil, err
	}
	return t.Column(0), t.Column(1), t.Column(2), nil
}
