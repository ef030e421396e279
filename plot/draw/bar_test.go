package draw

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/plot"
)

// TestBarsUndefined: an undefined value draws no bar, only its label
// ("n/a", "+Inf", "-Inf"), where a value 0 draws a bar (a filled path of
// length 0: the last case shows the count sees it).
func TestBarsUndefined(t *testing.T) {
	c := fillOf(2)
	fill := fmt.Sprintf("fill:#%02X%02X%02X", c.R, c.G, c.B)
	for _, tc := range []struct {
		values []float64
		bars   int
		labels []string
	}{
		{[]float64{1, math.NaN(), math.Inf(1), 2, math.Inf(-1)}, 2, []string{">1<", ">2<", ">n/a<", ">+Inf<", ">-Inf<"}},
		{[]float64{math.NaN(), math.NaN()}, 0, []string{">n/a<"}},
		{[]float64{0, 3}, 2, []string{">0<", ">3<"}},
	} {
		var bars []plot.Bar
		for i, v := range tc.values {
			bars = append(bars, plot.Bar{Label: fmt.Sprintf("row%d", i), Value: v})
		}
		b, err := plot.StackBytes("svg", 0, 0, plot.Panel{Figure: plot.Figure{Title: "t", XLabel: "x"}, Bars: bars})
		if err != nil {
			t.Fatalf("%v: %v", tc.values, err)
		}
		svg := string(b)
		if got := strings.Count(svg, fill); got != tc.bars {
			t.Errorf("%v: %d bars drawn, want %d", tc.values, got, tc.bars)
		}
		for _, l := range tc.labels {
			if !strings.Contains(svg, l) {
				t.Errorf("%v: no label %q", tc.values, l)
			}
		}
	}
	if _, err := plot.StackBytes("svg", 0, 0, plot.Panel{Bars: []plot.Bar{{Label: "neg", Value: -0.5}}}); err == nil || !strings.Contains(err.Error(), `bar "neg"`) {
		t.Errorf("negative bar: %v", err)
	}
}
