package draw

import (
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
)

// logTicks marks a log axis: labelled ticks at powers of ten and unlabelled
// ones at their multiples 2…9. Over more than eight decades only powers of
// ten are marked, and only those whose exponent is a multiple of k are
// labelled (at most about 8 labels); over short ranges the multiples 2 and
// 5, then 3 and 7, then the rest are labelled too until at least three
// ticks carry numbers, and a range too narrow for two labels gets
// linTicks's ticks instead. Unlike gonum's LogTicks it handles ranges
// below 1 and within one decade.
type logTicks struct{}

// decimal returns m·10^e parsed from its decimal text, so that 3e-5 is the
// float nearest to 0.00003 rather than 3 × 1e-5.
func decimal(m, e int) float64 {
	v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
	return v
}

func (logTicks) Ticks(min, max float64) []gplot.Tick {
	if !(min > 0 && max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	step := (hi - lo + 7) / 8 // label every step-th power of ten
	if step < 1 {
		step = 1
	}
	in := func(v float64) bool { return v >= min*(1-1e-12) && v <= max*(1+1e-12) }
	var ticks []gplot.Tick
	labelled := 0
	mults := 9
	if hi-lo > 8 {
		mults = 1
	}
	for e := lo; e <= hi; e++ {
		for m := 1; m <= mults; m++ {
			v := decimal(m, e)
			if !in(v) {
				continue
			}
			// Rounding may put a tick just outside; its label keeps the
			// exact decimal.
			t := gplot.Tick{Value: math.Min(math.Max(v, min), max)}
			if m == 1 && (e%step+step)%step == 0 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
				labelled++
			}
			ticks = append(ticks, t)
		}
	}
	for _, set := range [][]int{{2, 5}, {3, 7}, {4, 6, 8, 9}} {
		if labelled >= 3 {
			break
		}
		for i := range ticks {
			m, e := digits(ticks[i].Value)
			for _, want := range set {
				if m == want && ticks[i].Label == "" {
					ticks[i].Label = strconv.FormatFloat(decimal(m, e), 'g', -1, 64)
					labelled++
				}
			}
		}
	}
	if labelled < 2 { // less than a factor 2 or so: linear ticks read better
		return linTicks{}.Ticks(min, max)
	}
	return ticks
}

// digits returns m and e of a tick value m·10^e, m in 1…9.
func digits(v float64) (m, e int) {
	fe := math.Floor(math.Log10(v) + 1e-9)
	return int(math.Round(v / math.Pow(10, fe))), int(fe)
}

// linTicks marks a linear axis with labelled ticks at multiples of a
// "nice" step (1, 2 or 5 times a power of ten, 2.5 as a last resort),
// chosen so that about six labels fall in the range, and unlabelled ticks
// at fifths of the step.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	e := math.Floor(math.Log10((hi - lo) / 6))
	best, bestScore, bestPrec := 0.0, math.Inf(1), 0
	for _, d := range []float64{-1, 0, 1} {
		mag := math.Pow(10, e+d)
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * mag
			n := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
			score := math.Abs(n - 6)
			if m == 2.5 {
				score += 1.5
			}
			if n < 3 {
				score += 10
			}
			if score < bestScore {
				best, bestScore = step, score
				bestPrec = max(0, -int(e+d))
				if m == 2.5 {
					bestPrec++
				}
			}
		}
	}
	step, prec := best, bestPrec
	fmtc := byte('f')
	if big := math.Max(math.Abs(lo), math.Abs(hi)); big >= 1e6 || big < 1e-3 {
		fmtc, prec = 'g', 4
	}
	minor := step / 5
	var ticks []gplot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*minor && len(ticks) < 500; k++ {
		v := k * minor
		if v == 0 {
			v = 0 // not -0
		}
		// Rounding may put a tick just outside; its label keeps k·minor.
		t := gplot.Tick{Value: math.Min(math.Max(v, lo), hi)}
		if math.Mod(k, 5) == 0 {
			t.Label = strconv.FormatFloat(v, fmtc, prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
