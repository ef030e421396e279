package interval

import (
	"math"
	"strings"
	"testing"
)

// Period by hand: Young √(2·2·9) = 6; Theorem 1 for Te = 18, C = 2,
// E(Y) = 2: x* = √(18·2/4) = 3 intervals of 6 s, the same from the MTBF 9
// (E(Y) = 18/9); one interval is no checkpoint.
func TestPeriod(t *testing.T) {
	for _, c := range []struct {
		method          string
		te, c, mtbf, ey float64
		want            float64
	}{
		{MethodYoung, 0, 2, 9, 0, 6},
		{MethodDaly, 0, 2, 9, 0, Daly(2, 9)},
		{MethodMNOF, 18, 2, math.NaN(), 2, 6},
		{MethodEY, 18, 2, 9, 0, 6},
		{MethodEY, 1, 100, math.NaN(), 0.01, math.Inf(1)},
		{MethodYoung, 0, 2, math.Inf(1), 0, math.Inf(1)},
	} {
		got, err := Period(c.method, c.te, c.c, c.mtbf, c.ey)
		if err != nil || got != c.want {
			t.Errorf("%+v: %v, %v; want %v", c, got, err, c.want)
		}
	}
	for field, c := range map[string][]float64{"work": {0, 2, 9, 2}, "ey": {18, 2, math.NaN(), 0}} {
		if _, err := Period(MethodEY, c[0], c[1], c[2], c[3]); err == nil || !strings.HasPrefix(err.Error(), field+": ") {
			t.Errorf("%s: %v", field, err)
		}
	}
	if _, err := Period(MethodDaly, 0, 2, math.NaN(), 1); err == nil || !strings.HasPrefix(err.Error(), "mtbf: ") {
		t.Errorf("daly without MTBF: %v", err)
	}
	if _, err := Period("bogus", 1, 2, 9, 1); err == nil || !strings.HasPrefix(err.Error(), "method: ") {
		t.Errorf("unknown method: %v", err)
	}
}
