package distribution

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// tnRef holds reference values computed independently with mpmath at 120
// digits (erfc, bisection for quantiles) by testdata/reference_values.py.
type tnRef struct {
	d      TruncatedNormal
	mean   float64
	quants [][2]float64 // p, Quantile(p)
	points [][4]float64 // x, CDF, Survival, PDF
}

var tnRefs = []tnRef{
	{TruncatedNormal{Mu: 0, Sigma: 1, A: 10, B: 12}, 10.09809323349993672,
		[][2]float64{{1e-10, 10.00000000000990286}, {0.3, 10.035260039588929587}, {0.5, 10.068411836058495923}, {0.9, 10.225526810998912148}},
		[][4]float64{
			{10.125, 0.71916864201225333162, 0.28083135798774666838, 2.870637462681909732},
			{10.001953125, 0.019531467997075071953, 0.98046853200292492805, 9.9027595447413262379},
			{11.25, 0.99999848057086277604, 1.5194291372239558141e-6, 0.000017229226820501723193},
		}},
	{TruncatedNormal{Mu: 0, Sigma: 1, A: -12, B: -10}, -10.09809323349993672,
		[][2]float64{{1e-10, -11.970422644904055034}, {0.3, -10.118538515603847732}, {0.5, -10.068411836058495923}, {0.9, -10.010428370089281675}},
		[][4]float64{
			{-11.875, 8.1434916513240376675e-10, 0.99999999918565083487, 1.2525918210298596659e-8},
			{-11.998046875, 5.5665980648438429659e-12, 0.99999999999443340194, 2.8836246075663544175e-9},
			{-10.8125, 0.00019709720781212716145, 0.99980290279218787284, 0.0021490454601317695432},
		}},
	{TruncatedNormal{Mu: 0, Sigma: 1, A: 1000, B: 1002}, 1000.00099999800001,
		[][2]float64{{0.3, 1000.0003566745236566}, {0.5, 1000.0006931462471895}, {0.9, 1000.0023025801394835}},
		[][4]float64{
			{1000.125, 1, 5.1255745329642515795e-55, 5.126220354704541081e-52},
			{1000.001953125, 0.85817038844236556479, 0.14182961155763443521, 141.83003039764539979},
		}},
	{TruncatedNormal{Mu: 8, Sigma: math.Sqrt2, A: 1, B: 20}, 8.0000026997143916382,
		[][2]float64{{1e-10, 1.0000740723079869226}, {0.3, 7.2583867406865390677}, {0.5, 8.00000065855378581}, {0.9, 9.8123879042781840962}},
		[][4]float64{
			{1.9375, 8.6903000461550391533e-6, 0.99999130969995384496, 0.000028833048411213544652},
			{1.01953125, 2.7285532268656150862e-8, 0.99999997271446773134, 1.4452218130102945207e-6},
			{12.375, 0.99901125404082685578, 0.00098874595917314421813, 0.0023562874760597510534},
		}},
	{TruncatedNormal{Mu: 0, Sigma: 1, A: 40, B: 41}, 40.024968847207263721,
		[][2]float64{{1e-10, 40.00000000000249844}, {0.3, 40.00891031978351288}, {0.5, 40.017314126764651106}, {0.9, 40.057487458036021658}},
		[][4]float64{
			{40.0625, 0.91820281613644039447, 0.081797183863559605527, 3.27903888158489763},
			{40.0009765625, 0.038333305898959776356, 0.96166669410104022364, 38.491618015671034093},
			{40.625, 0.99999999998875162999, 1.1248370011399477257e-11, 4.5724168233541103112e-10},
		}},
	{TruncatedNormal{Mu: 0, Sigma: 1, A: -0.5, B: 38}, 0.50916043383703348583,
		[][2]float64{{1e-10, -0.49999999980359825047}, {0.3, 0.040057297915527102407}, {0.5, 0.39687117508954453836}, {0.9, 1.4821796784409070819}},
		[][4]float64{
			{1.4375, 0.89111775312616971995, 0.10888224687383028005, 0.20531800807181592067},
			{-0.4609375, 0.020079447897850117582, 0.97992055210214988242, 0.51880675438973091378},
			{22.625, 1, 1.7785729132883813488e-113, 4.0318518938451025364e-112},
		}},
}

func TestTruncatedNormalReference(t *testing.T) {
	for _, r := range tnRefs {
		d := r.d
		if err := d.Validate(); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if e := relErr(d.Mean(), r.mean); e > 1e-12 {
			t.Errorf("%v: Mean = %.17g, want %.17g", d, d.Mean(), r.mean)
		}
		for _, q := range r.quants {
			if got := d.Quantile(q[0]); math.Abs(got-q[1]) > 4e-15*math.Max(1, math.Abs(q[1])) {
				t.Errorf("%v: Quantile(%v) = %.17g, want %.17g", d, q[0], got, q[1])
			}
		}
		for _, p := range r.points {
			x := p[0]
			if e := relErr(d.CDF(x), p[1]); e > 1e-12 {
				t.Errorf("%v: CDF(%v) = %.17g, want %.17g (rel %.2g)", d, x, d.CDF(x), p[1], e)
			}
			if e := relErr(d.Survival(x), p[2]); e > 1e-12 {
				t.Errorf("%v: Survival(%v) = %.17g, want %.17g (rel %.2g)", d, x, d.Survival(x), p[2], e)
			}
			if e := relErr(d.PDF(x), p[3]); e > 1e-12 {
				t.Errorf("%v: PDF(%v) = %.17g, want %.17g (rel %.2g)", d, x, d.PDF(x), p[3], e)
			}
		}
	}
}

// TestTruncatedNormalAgainstGonum compares a central truncation with the
// textbook formula on gonum's Normal, which is accurate there.
func TestTruncatedNormalAgainstGonum(t *testing.T) {
	d := TruncatedNormal{Mu: 8, Sigma: 3, A: 1, B: 20}
	n := distuv.Normal{Mu: 8, Sigma: 3}
	z := n.CDF(20) - n.CDF(1)
	mean := 8 + 9*(n.Prob(1)-n.Prob(20))/z
	if e := relErr(d.Mean(), mean); e > 1e-14 {
		t.Errorf("Mean = %v, want %v", d.Mean(), mean)
	}
	for x := 1.0; x <= 20; x += 0.37 {
		if e := math.Abs(d.CDF(x) - (n.CDF(x)-n.CDF(1))/z); e > 1e-14 {
			t.Errorf("CDF(%v) = %v, want %v", x, d.CDF(x), (n.CDF(x)-n.CDF(1))/z)
		}
		if e := relErr(d.PDF(x), n.Prob(x)/z); e > 1e-12 {
			t.Errorf("PDF(%v) = %v, want %v", x, d.PDF(x), n.Prob(x)/z)
		}
	}
}

// TestTruncatedNormalFarTail: the mean of the standard normal truncated to
// [a, a+2] for large a follows the asymptotic series of the inverse Mills
// ratio, a + 1/a − 2/a³ + 10/a⁵ − 74/a⁷ + 706/a⁹; nothing collapses to 0
// or NaN. The median is resolved to the float64 spacing of x near a, which
// for a = 10⁶ is a tenth of a percent of the law's width 1/a.
func TestTruncatedNormalFarTail(t *testing.T) {
	for _, a := range []float64{50, 200, 1e4, 1e6} {
		d := TruncatedNormal{Mu: 0, Sigma: 1, A: a, B: a + 2}
		want := a + 1/a - 2/(a*a*a) + 10/math.Pow(a, 5) - 74/math.Pow(a, 7) + 706/math.Pow(a, 9)
		if e := math.Abs(d.Mean() - want); e > 4e-16*a+1e-12/a {
			t.Errorf("a=%v: Mean = %.17g, want %.17g", a, d.Mean(), want)
		}
		med := d.Quantile(0.5)
		if !(med > a && med < a+2/a) || math.IsNaN(d.CDF(med)) || math.Abs(d.CDF(med)-0.5) > 1e-6+8*a*a*0x1p-52 {
			t.Errorf("a=%v: median %v, CDF there %v", a, med, d.CDF(med))
		}
		if lp := d.LogPDF(a); math.IsInf(lp, 0) || math.IsNaN(lp) || math.Abs(lp-math.Log(a)) > 1e-3 {
			t.Errorf("a=%v: LogPDF(a) = %v, want ≈ log a", a, lp)
		}
	}
}
