package distribution

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// TestMillsRatio against mpmath's erfc(x/√2)/(2φ(x)) (testdata), on both
// sides of the switch to the continued fraction at 25.
func TestMillsRatio(t *testing.T) {
	ref := [][2]float64{
		{0, 1.2533141373155002512}, {0.5, 0.87636445645369234673}, {3, 0.30459029871010329573},
		{10, 0.099028596471731921395}, {24.5, 0.040748664706979116663}, {25, 0.039936304769535592529},
		{26, 0.03840489334210212768}, {40, 0.024984404205720571147}, {100, 0.0099990002998501049056},
		{1e4, 0.00009999999900000003},
	}
	for _, r := range ref {
		if e := relErr(millsRatio(r[0]), r[1]); e > 2e-14 {
			t.Errorf("R(%v) = %.17g, want %.17g (rel %.2g)", r[0], millsRatio(r[0]), r[1], e)
		}
	}
	if millsRatio(math.Inf(1)) != 0 {
		t.Error("R(+Inf) != 0")
	}
}

// TestNormalInterval: Φ(y) − Φ(x) against Erfc differences where those are
// exact enough, and against the tail mass 7.6198530223840439539e-24 of
// [10, 12] (mpmath).
func TestNormalInterval(t *testing.T) {
	if e := relErr(normalInterval(10, 12), 7.6198530223840439539e-24); e > 1e-13 {
		t.Errorf("[10,12]: %v", normalInterval(10, 12))
	}
	if e := relErr(normalInterval(-12, -10), 7.6198530223840439539e-24); e > 1e-13 {
		t.Errorf("[-12,-10]: %v", normalInterval(-12, -10))
	}
	if e := relErr(math.Exp(logNormalInterval(10, 12)), 7.6198530223840439539e-24); e > 1e-13 {
		t.Errorf("log [10,12]: %v", logNormalInterval(10, 12))
	}
	for _, xy := range [][2]float64{{-1, 2}, {-3, -0.5}, {0.2, 0.9}, {-0.001, 0.001}, {1, math.Inf(1)}, {math.Inf(-1), 0.3}} {
		x, y := xy[0], xy[1]
		want := 0.5*math.Erfc(-y/math.Sqrt2) - 0.5*math.Erfc(-x/math.Sqrt2)
		if e := relErr(normalInterval(x, y), want); e > 1e-13 {
			t.Errorf("[%v, %v]: %v, want %v", x, y, normalInterval(x, y), want)
		}
	}
	// Far beyond underflow of the mass itself the log stays finite:
	// log(Q(40) − Q(41)) = log 3.6558935409150296946e-350 (mpmath).
	want := math.Log(3.6558935409150296946) - 350*math.Ln10
	if got := logNormalInterval(40, 41); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("log interval [40, 41] = %v, want %v", got, want)
	}
}

// TestTrigamma against a central difference of gonum's digamma and the
// exact values ψ₁(1) = π²/6, ψ₁(½) = π²/2.
func TestTrigamma(t *testing.T) {
	if e := relErr(trigamma(1), math.Pi*math.Pi/6); e > 1e-13 {
		t.Errorf("ψ₁(1) = %v", trigamma(1))
	}
	if e := relErr(trigamma(0.5), math.Pi*math.Pi/2); e > 1e-13 {
		t.Errorf("ψ₁(½) = %v", trigamma(0.5))
	}
	for _, x := range []float64{0.01, 0.3, 2, 9.9, 10, 50, 1e4} {
		h := 1e-4 * x
		num := (mathext.Digamma(x+h) - mathext.Digamma(x-h)) / (2 * h)
		if e := relErr(trigamma(x), num); e > 1e-6 {
			t.Errorf("ψ₁(%v) = %v, difference of ψ = %v", x, trigamma(x), num)
		}
	}
}

// TestLogNormalFromMeanSD: the law's own mean and variance formulas give
// back the inputs (e.g. the paper's 21 h and 20 h).
func TestLogNormalFromMeanSD(t *testing.T) {
	for _, ms := range [][2]float64{{21 * 3600, 20 * 3600}, {1, 1e-6}, {1, 1e3}} {
		l, err := LogNormalFromMeanSD(ms[0], ms[1])
		if err != nil {
			t.Fatal(err)
		}
		s2 := l.Sigma * l.Sigma
		mean := math.Exp(l.Mu + s2/2)
		sd := mean * math.Sqrt(math.Expm1(s2))
		if relErr(mean, ms[0]) > 1e-14 || relErr(sd, ms[1]) > 1e-12 || relErr(l.Mean(), ms[0]) > 1e-14 {
			t.Errorf("mean %v sd %v -> %v: mean %v sd %v", ms[0], ms[1], l, mean, sd)
		}
	}
	for _, ms := range [][2]float64{{0, 1}, {1, -1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if _, err := LogNormalFromMeanSD(ms[0], ms[1]); err == nil {
			t.Errorf("LogNormalFromMeanSD(%v, %v) accepted", ms[0], ms[1])
		}
	}
}
