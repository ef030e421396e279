package profile

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// TestScaledNormal: N(μ, σ) slowed by f is N(f·μ, f·σ), memory unchanged,
// the source untouched.
func TestScaledNormal(t *testing.T) {
	a := &App{Name: "x", Tasks: []Task{{Walltime: distribution.Normal{Mu: 100, Sigma: 10}, Mem: 3}, {Walltime: distribution.Normal{Mu: 50, Sigma: 5}, Mem: 7}}}
	b, err := a.Scaled([]float64{2, 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.Tasks[0].Walltime.(distribution.Normal); n.Mu != 200 || n.Sigma != 20 || b.Tasks[0].Mem != 3 {
		t.Errorf("task 1: %v, mem %v", n, b.Tasks[0].Mem)
	}
	if n := b.Tasks[1].Walltime.(distribution.Normal); n.Mu != 75 || n.Sigma != 7.5 || b.Tasks[1].Mem != 7 {
		t.Errorf("task 2: %v, mem %v", n, b.Tasks[1].Mem)
	}
	if a.Tasks[0].Walltime.(distribution.Normal).Mu != 100 {
		t.Error("source modified")
	}
	c := &App{Tasks: []Task{{Walltime: distribution.Exponential{Rate: 1}}}}
	if _, err := c.Scaled([]float64{2}); err == nil {
		t.Error("exponential law scaled")
	}
}

func TestReadPhaseTimes(t *testing.T) {
	got, err := ReadPhaseTimes(strings.NewReader("# KNL runs\ntask1,task2,task3\n600, 10m,00:10:00\n\n1 2\t3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{600, 600, 600}, {1, 2, 3}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range want {
		for i := range want[k] {
			if got[k][i] != want[k][i] {
				t.Errorf("run %d phase %d: %v, want %v", k+1, i+1, got[k][i], want[k][i])
			}
		}
	}
	for _, bad := range []string{"", "# only\n", "1,2\n3\n", "1,2\nx,3\n", "1,-2\n", "1,NaN\n", "h\n"} {
		if _, err := ReadPhaseTimes(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestReadPhaseTimesBounds: a duration beyond MaxSeconds (it used to reach
// the planner as a slowdown of 4e305 and fail there, naming no line) and a
// run of more than MaxTasks phases are refused naming the line.
func TestReadPhaseTimesBounds(t *testing.T) {
	if _, err := ReadPhaseTimes(strings.NewReader("1,2\n1e308,3\n")); err == nil || err.Error() != "line 2, phase 1: duration 1e+308 s, want a value in [0, 1e+10]" {
		t.Errorf("1e308: %v", err)
	}
	if _, err := ReadPhaseTimes(strings.NewReader("1,1e10\n")); err != nil {
		t.Errorf("1e10: %v", err)
	}
	many := strings.TrimSuffix(strings.Repeat("1,", MaxTasks+1), ",")
	if _, err := ReadPhaseTimes(strings.NewReader(many)); !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Errorf("%d phases: %v", MaxTasks+1, err)
	}
}

// FuzzReadPhaseTimes: whatever the input, an accepted file gives at least
// one run, every run the same number (≥ 1) of finite durations ≥ 0.
func FuzzReadPhaseTimes(f *testing.F) {
	for _, s := range []string{"1,2,3\n4,5,6\n", "a,b\n1m,2h\n", "00:10:00;1d\n", ",,,\n1\n", "-1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		runs, err := ReadPhaseTimes(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(runs) == 0 || len(runs[0]) == 0 {
			t.Fatalf("accepted %q with no run or no phase", s)
		}
		for _, r := range runs {
			if len(r) != len(runs[0]) {
				t.Fatalf("%q: runs of %d and %d phases", s, len(r), len(runs[0]))
			}
			for _, d := range r {
				if !(d >= 0) || math.IsInf(d, 0) {
					t.Fatalf("%q: duration %v", s, d)
				}
			}
		}
	})
}
