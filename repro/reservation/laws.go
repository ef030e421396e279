package reservation

import (
	"math"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// law is one of the nine distributions of Table 1, in hours.
type law struct {
	Name string
	D    distribution.Distribution
}

// table1 returns the instantiations of Table 1 (all parameters in hours).
func table1() []law {
	return []law{
		{"Exponential", distribution.Exponential{Rate: 1}},
		{"Weibull", distribution.Weibull{K: 0.5, Lambda: 1}},
		{"Gamma", distribution.Gamma{Alpha: 2, Beta: 2}},
		{"LogNormal", distribution.LogNormal{Mu: 3, Sigma: 0.5}},
		{"Pareto", distribution.Pareto{Xm: 1.5, Alpha: 3}},
		{"TruncatedNormal", distribution.TruncatedNormal{Mu: 8, Sigma: math.Sqrt2, A: 1, B: 20}},
		{"Uniform", distribution.Uniform{A: 1, B: 20}},
		{"Beta", distribution.Beta{Alpha: 2, Beta: 2, A: 0, B: 1}},
		{"BoundedPareto", distribution.BoundedPareto{L: 1, H: 20, Alpha: 2.1}},
	}
}

// paperTable2 is Table 2 as published: per distribution, ALL-CKPT-PER then
// NO-CKPT-PER, each as best τ, its normalised cost, and the normalised
// costs at τ = 1, 200, 400, 600, 800, 1000.
var paperTable2 = map[string][2]struct {
	BestTau  int
	BestCost float64
	AtTau    [6]float64
}{
	"Exponential":     {{23, 1.00, [6]float64{8.60, 2.55, 4.51, 6.48, 8.46, 10.43}}, {12, 1.38, [6]float64{8.60, 7.81, 15.04, 22.27, 29.50, 36.74}}},
	"Weibull":         {{291, 1.06, [6]float64{81.56, 1.09, 1.08, 1.17, 1.29, 1.43}}, {68, 2.54, [6]float64{81.56, 3.85, 6.66, 9.56, 12.49, 15.43}}},
	"Gamma":           {{13, 1.02, [6]float64{5.35, 4.07, 7.54, 11.02, 14.49, 17.97}}, {8, 1.26, [6]float64{5.35, 10.44, 20.29, 30.14, 39.99, 49.84}}},
	"LogNormal":       {{9, 1.11, [6]float64{3.05, 4.52, 8.24, 11.96, 15.69, 19.41}}, {3, 1.24, [6]float64{3.05, 18.26, 35.74, 53.21, 70.68, 88.16}}},
	"Pareto":          {{574, 1.00, [6]float64{105.79, 1.19, 1.02, 1.00, 1.02, 1.04}}, {261, 1.32, [6]float64{105.79, 1.35, 1.39, 1.57, 1.79, 2.01}}},
	"TruncatedNormal": {{9, 1.10, [6]float64{2.18, 3.28, 5.67, 8.07, 10.46, 12.86}}, {2, 1.23, [6]float64{2.18, 30.78, 60.69, 90.60, 120.50, 150.41}}},
	"Uniform":         {{8, 1.01, [6]float64{1.57, 3.17, 5.51, 7.86, 10.20, 12.54}}, {1, 1.57, [6]float64{1.57, 51.08, 101.33, 151.58, 201.83, 252.09}}},
	"Beta":            {{2, 1.06, [6]float64{1.11, 30.77, 60.99, 91.21, 121.42, 151.64}}, {1, 1.11, [6]float64{1.11, 40.85, 81.14, 121.42, 161.71, 202.00}}},
	"BoundedPareto":   {{32, 1.01, [6]float64{7.53, 1.73, 2.71, 3.70, 4.70, 5.69}}, {14, 1.44, [6]float64{7.53, 6.51, 12.28, 18.06, 23.83, 29.61}}},
}

// table2Taus are the fixed τ columns of Table 2.
var table2Taus = [6]int{1, 200, 400, 600, 800, 1000}
