package iosim

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// One class: the constraint F = nC/P = 1 gives P = nC, and Eq. (8) solved
// for λ gives λ = P² q² / (2μNC) − q/N.
func TestBoundOneClassClosedForm(t *testing.T) {
	N, mu := 1000.0, 1e6
	c := BoundClass{Name: "x", Jobs: 10, Nodes: 100, C: 2000, R: 2000}
	b, err := LowerBound([]BoundClass{c}, N, mu)
	if err != nil {
		t.Fatal(err)
	}
	P := c.Jobs * c.C
	wantL := P*P*c.Nodes*c.Nodes/(2*mu*N*c.C) - c.Nodes/N
	if b.DalyIOFraction <= 1 {
		t.Fatalf("test needs a binding constraint, F(Daly)=%v", b.DalyIOFraction)
	}
	if math.Abs(b.Lambda-wantL) > 1e-9*wantL || math.Abs(b.Periods[0]-P) > 1e-6*P {
		t.Fatalf("λ=%v P=%v, want λ=%v P=%v", b.Lambda, b.Periods[0], wantL, P)
	}
	wantW := c.Jobs * c.Nodes / N * (c.C/P + c.Nodes/mu*(P/2+c.R))
	if math.Abs(b.Waste-wantW) > 1e-9 {
		t.Fatalf("waste %v want %v", b.Waste, wantW)
	}
}

// Non-binding: λ = 0 and the periods are Young/Daly's √(2 μ/q C).
func TestBoundDalyWhenIOSuffices(t *testing.T) {
	N, mu := 1000.0, 1e7
	cs := []BoundClass{{Jobs: 2, Nodes: 300, C: 60, R: 60}, {Jobs: 4, Nodes: 100, C: 30, R: 30}}
	b, _ := LowerBound(cs, N, mu)
	for i, c := range cs {
		if want := math.Sqrt(2 * mu / c.Nodes * c.C); b.Lambda != 0 || math.Abs(b.Periods[i]-want) > 1e-9*want {
			t.Fatalf("class %d: P=%v λ=%v want %v", i, b.Periods[i], b.Lambda, want)
		}
	}
}

// The bound is the minimum of Eq. (7) under Eq. (6): no feasible vector of
// periods does better, and the constraint is tight when λ > 0. It depends
// on C and μ only through C/μ.
func TestBoundOptimalAndScaling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		K := rapid.IntRange(1, 4).Draw(t, "K")
		N := 1000.0
		var cs []BoundClass
		for i := range K {
			q := float64(rapid.IntRange(1, 500).Draw(t, "q"))
			C := rapid.Float64Range(10, 5000).Draw(t, "C")
			cs = append(cs, BoundClass{Name: string(rune('a' + i)), Jobs: rapid.Float64Range(0.1, 5).Draw(t, "n"), Nodes: q, C: C, R: C})
		}
		mu := rapid.Float64Range(1e5, 1e9).Draw(t, "mu")
		b, err := LowerBound(cs, N, mu)
		if err != nil {
			t.Fatal(err)
		}
		if b.IOFraction > 1+1e-9 {
			t.Fatalf("infeasible F=%v", b.IOFraction)
		}
		if b.Lambda > 0 && b.IOFraction < 1-1e-6 {
			t.Fatalf("λ>0 but constraint slack F=%v", b.IOFraction)
		}
		// Random feasible perturbations never beat the bound.
		for range 20 {
			P := make([]float64, K)
			for i := range P {
				P[i] = b.Periods[i] * math.Exp(rapid.Float64Range(-1, 1).Draw(t, "d"))
			}
			if Eq6(cs, P) <= 1 && Eq7(cs, P, N, mu) < b.Waste*(1-1e-9) {
				t.Fatalf("feasible periods %v beat the bound: %v < %v", P, Eq7(cs, P, N, mu), b.Waste)
			}
		}
		s := rapid.Float64Range(0.1, 10).Draw(t, "scale")
		cs2 := append([]BoundClass(nil), cs...)
		for i := range cs2 {
			cs2[i].C *= s
			cs2[i].R *= s
		}
		b2, _ := LowerBound(cs2, N, mu*s)
		if math.Abs(b2.Waste-b.Waste) > 1e-9*b.Waste {
			t.Fatalf("scaling C and μ by %v changed the bound %v → %v", s, b.Waste, b2.Waste)
		}
	})
}

// The published curve uses λ = min(0, r): at 40 GB/s on Cielo the I/O
// constraint binds, so it returns the (infeasible) Daly waste, below
// Theorem 1's bound.
func TestPaperBoundBelowTheorem1WhenBinding(t *testing.T) {
	c := Cielo()
	cs, _, err := c.BoundClasses(BoundOptions{Maple: true})
	if err != nil {
		t.Fatal(err)
	}
	N, mu := float64(c.Platform.Nodes), float64(c.Platform.NodeMTBF)
	th, _ := LowerBound(cs, N, mu)
	pb, _ := PaperBound(cs, N, mu)
	if th.Lambda <= 0 || !(pb.Waste < th.Waste) || pb.IOFraction <= 1 {
		t.Fatalf("theorem λ=%v W=%v; paper W=%v F=%v", th.Lambda, th.Waste, pb.Waste, pb.IOFraction)
	}
}
