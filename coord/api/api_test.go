package api

import (
	"math"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
)

func TestAdviceText(t *testing.T) {
	for _, c := range []struct {
		a    coord.Advice
		want string
	}{
		{coord.Advice{Job: "j", Method: "daly", C: 10, Period: 1190, At: 1300}, "next checkpoint of j in 1200s (period 1190s, daly, C = 10s)"},
		{coord.Advice{Job: "j", Method: "daly", C: 10, Period: 50, At: 150, Final: true}, "next checkpoint of j in 50s (period 50s, daly, C = 10s); the last one before the allocation ends"},
		{coord.Advice{Job: "j", At: math.Inf(1), None: true, Reason: "no checkpoint can end in time"}, "j: no checkpoint can end in time"},
	} {
		if got := ViewAdvice(c.a, 100).Text(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// Every core refusal has its code, and each code one status.
func TestCodes(t *testing.T) {
	for k, want := range map[coord.ErrorKind]int{coord.Invalid: 400, coord.NotFound: 404, coord.Conflict: 409, coord.Fenced: 409, coord.Full: 503, 99: 500} {
		if got := CodeOf(k).Status(); got != want {
			t.Errorf("kind %d (%s): %d, want %d", k, k, got, want)
		}
	}
}
