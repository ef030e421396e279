package distribution

import (
	"math"
	"testing"
)

// bpRefs are reference values computed independently with mpmath at 120
// digits from the textbook forms (1 − (L/x)^α)/(1 − (L/H)^α), the density
// αL^α x^{−α−1}/(1 − (L/H)^α), its numerically integrated mean, and
// Q(p) = L(1 − p(1 − (L/H)^α))^{−1/α} (testdata/reference_values.py).
var bpRefs = []struct {
	d                   BoundedPareto
	mean                float64
	qLow, qMid, invSurv float64 // Quantile(1e-9), Quantile(0.5), InvSurvival(1e-9)
	points              [][4]float64
}{
	{BoundedPareto{L: 1, H: 20, Alpha: 2.1}, 1.8417587342429280497,
		1.0000000004753081736, 1.3898399539058519253, 19.999994869400715566,
		[][4]float64{
			{1.5, 0.57427982382784557401, 0.42572017617215442599, 0.59860703233690318394},
			{15, 0.9984599150164213254, 0.0015400849835786746002, 0.00047549046728971319966},
			{19.99999998, 0.99999999999610182113, 3.8981788724093980228e-12, 0.00019490892779574179225},
		}},
	{BoundedPareto{L: 1, H: 20, Alpha: 1}, 3.1534023932147273615,
		1.0000000009500000009, 1.9047619047619047619, 19.99999962000000722,
		[][4]float64{
			{1.5, 0.35087719298245614035, 0.64912280701754385965, 0.46783625730994152047},
			{15, 0.98245614035087719298, 0.017543859649122807018, 0.0046783625730994152047},
			{19.99999998, 0.99999999994736841665, 5.2631583354756377135e-11, 0.0026315789526315793907},
		}},
	{BoundedPareto{L: 1, H: 20, Alpha: 1.000000001}, 3.1534023911475577627,
		1.0000000009500000001, 1.904761903806279813, 19.999999620000006402,
		[][4]float64{
			{1.5, 0.35087719321167020931, 0.64912280678832979069, 0.46783625751432270039},
			{15, 0.98245614038601182634, 0.017543859613988173655, 0.0046783625643708990911},
			{19.99999998, 0.99999999994736841676, 5.2631583241419399716e-11, 0.0026315789469647309843},
		}},
	{BoundedPareto{L: 3600, H: 72000, Alpha: 0.5}, 16099.689437998485814,
		3600.0000055900310627, 9617.8661770643830187, 71999.999500012425084,
		[][4]float64{
			{5400, 0.23635371682862901659, 0.76364628317137098341, 0.00009737531839793191071},
			{54000, 0.95544513798300554475, 0.044554862016994455251, 3.079277940215630625e-6},
			{71999.999928, 0.99999999985599643159, 1.4400356841240242536e-10, 2.000049694154891373e-6},
		}},
}

func TestBoundedParetoReference(t *testing.T) {
	for _, r := range bpRefs {
		d := r.d
		if err := d.Validate(); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if e := relErr(d.Mean(), r.mean); e > 1e-14 {
			t.Errorf("%v: Mean = %.17g, want %.17g (rel %.2g)", d, d.Mean(), r.mean, e)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"Quantile(1e-9)", d.Quantile(1e-9), r.qLow},
			{"Quantile(0.5)", d.Quantile(0.5), r.qMid},
			{"InvSurvival(1e-9)", d.InvSurvival(1e-9), r.invSurv},
		} {
			if e := relErr(c.got, c.want); e > 1e-15 {
				t.Errorf("%v: %s = %.17g, want %.17g", d, c.name, c.got, c.want)
			}
		}
		for _, p := range r.points {
			x := p[0]
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"CDF", d.CDF(x), p[1]}, {"Survival", d.Survival(x), p[2]}, {"PDF", d.PDF(x), p[3]}} {
				if e := relErr(c.got, c.want); e > 1e-13 {
					t.Errorf("%v: %s(%v) = %.17g, want %.17g (rel %.2g)", d, c.name, x, c.got, c.want, e)
				}
			}
		}
	}
}

// TestBoundedParetoMeanNearOne: the mean is continuous through α = 1,
// where the general formula is 0/0.
func TestBoundedParetoMeanNearOne(t *testing.T) {
	at1 := BoundedPareto{L: 1, H: 20, Alpha: 1}.Mean()
	want := 20 * math.Log(20) / 19 // LH log(H/L)/(H−L)
	if relErr(at1, want) > 1e-15 {
		t.Errorf("Mean at α=1 = %v, want %v", at1, want)
	}
	for _, eps := range []float64{1e-15, 1e-12, 1e-8, -1e-8, -1e-12} {
		m := BoundedPareto{L: 1, H: 20, Alpha: 1 + eps}.Mean()
		if math.Abs(m-at1) > 3*math.Abs(eps)+1e-14 { // dE/dα ≈ −2.07 here
			t.Errorf("Mean at α=1%+g = %.17g, at 1 = %.17g", eps, m, at1)
		}
	}
}

// TestParetoTruncatedIsBoundedPareto: a Pareto truncated to [L, H] is the
// bounded Pareto, an independent closed form for Truncate.
func TestParetoTruncatedIsBoundedPareto(t *testing.T) {
	tr, err := Truncate(Pareto{Xm: 1, Alpha: 2.1}, 1, 20)
	if err != nil {
		t.Fatal(err)
	}
	bp := BoundedPareto{L: 1, H: 20, Alpha: 2.1}
	for _, x := range []float64{1, 1.5, 3, 10, 19.9, 20} {
		if math.Abs(tr.CDF(x)-bp.CDF(x)) > 1e-15 || relErr(tr.PDF(x), bp.PDF(x)) > 1e-14 {
			t.Errorf("x=%v: truncated CDF %v PDF %v, bounded %v %v", x, tr.CDF(x), tr.PDF(x), bp.CDF(x), bp.PDF(x))
		}
	}
	if relErr(tr.Mean(), bp.Mean()) > 1e-14 {
		t.Errorf("Mean %v vs %v", tr.Mean(), bp.Mean())
	}
}
