package profile

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
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
	criuPath := datadir.ForTest(t, "checkpoint-costs", "criu-podman-bandwidth.tsv")
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
