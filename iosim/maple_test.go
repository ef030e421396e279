package iosim

import (
	"fmt"
	"testing"
)

// Published values: sim/figures/model.dat and prosp-model.dat of
// SMURFSorg/ABBFHR17-cCR-Platform, printed by the Maple files with %g
// (six significant digits). An oracle independent of our code.

// Cielo: bandwidth (B/s), system MTBF M (hours; node MTBF M·17 784 h),
// waste.
var publishedCielo = []struct{ bw, M, waste float64 }{
	{4e10, 1, 0.338214}, {4e10, 2, 0.227357}, {4e10, 24, 0.0674591},
	{5e10, 4, 0.137925}, {7e10, 8, 0.084903}, {1e11, 16, 0.0550621},
	{1.3e11, 1, 0.173538}, {1.6e11, 1, 0.154931}, {1.6e11, 24, 0.0403063},
}

func TestMapleCieloPublished(t *testing.T) {
	for _, p := range publishedCielo {
		c := Cielo().WithBandwidth(p.bw).WithNodeMTBF(p.M * 17784 * 3600)
		b, err := c.LowerBound(BoundOptions{Maple: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%g", round6(b.Waste)); got != fmt.Sprintf("%g", p.waste) {
			t.Errorf("bw %g M %g: %s, published %g", p.bw, p.M, got, p.waste)
		}
	}
}

// Prospective: node MTBF M years, the bandwidth the file's bisection
// stops at, and the waste there.
var publishedProspective = []struct{ M, bw, waste float64 }{
	{5, 1.19116e+13, 0.800515}, {6, 9.94727e+12, 0.799429}, {7, 8.50586e+12, 0.800663},
	{8, 7.45996e+12, 0.799463}, {9, 6.61621e+12, 0.800621}, {10, 5.96582e+12, 0.799649},
	{11, 5.41211e+12, 0.800731}, {12, 4.96387e+12, 0.800443}, {13, 4.59473e+12, 0.799016},
	{14, 4.26074e+12, 0.799716}, {15, 3.97949e+12, 0.799353}, {16, 3.72900e+12, 0.799598},
	{17, 3.50488e+12, 0.800299}, {18, 3.31592e+12, 0.799404}, {19, 3.14014e+12, 0.799611},
	{20, 2.97754e+12, 0.800579}, {21, 2.84131e+12, 0.799568}, {22, 2.71387e+12, 0.799243},
	{23, 2.59521e+12, 0.799374}, {24, 2.48096e+12, 0.800647},
}

func TestMapleProspectivePublished(t *testing.T) {
	m := MapleFiles["prospective"]
	for _, p := range publishedProspective {
		bw, w, err := MapleBandwidthFor(m, p.M*Year)
		if err != nil {
			t.Fatal(err)
		}
		if g, want := fmt.Sprintf("%g %g", round6(bw), round6(w)), fmt.Sprintf("%g %g", p.bw, p.waste); g != want {
			t.Errorf("M %g y: %s, published %s", p.M, g, want)
		}
	}
}

// round6 keeps six significant digits, as %g prints.
func round6(x float64) float64 {
	var y float64
	fmt.Sscanf(fmt.Sprintf("%.6g", x), "%g", &y)
	return y
}

// BoundBandwidthFor brackets the target: the bound meets it at the answer
// and not one tolerance step below (checked with FractionBound directly).
func TestBoundBandwidthForBrackets(t *testing.T) {
	c := Prospective().WithNodeMTBF(10 * Year)
	bw, err := BoundBandwidthFor(c, 0.8, 1e9, 1e15, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	at := func(b float64) float64 {
		cb := c.WithBandwidth(b)
		w, err := cb.FractionBound()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if w := at(bw); w > 0.2 {
		t.Errorf("bound %v > 0.2 at the answer %g", w, bw)
	}
	if w := at(bw / (1 + 2e-3)); w <= 0.2 {
		t.Errorf("bound %v ≤ 0.2 below the answer %g", w, bw)
	}
	if _, err := BoundBandwidthFor(c, 0.8, 1e9, 2e9, 1e-3); err == nil {
		t.Error("an unreachable target should be an error")
	}
}
