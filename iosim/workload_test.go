package iosim

import (
	"math"
	"testing"
)

func TestGenerateJobs(t *testing.T) {
	c := Cielo()
	span := 62 * Day
	for seed := range uint64(5) {
		jobs, err := GenerateJobs(&c, span, seed)
		if err != nil {
			t.Fatal(err)
		}
		used := make([]float64, len(c.Classes))
		tot := 0.0
		for _, j := range jobs {
			w := float64(c.Classes[j.Class].Walltime)
			if j.Work < 0.8*w || j.Work > 1.2*w {
				t.Fatalf("work %v outside [0.8w,1.2w] for w=%v", j.Work, w)
			}
			v := j.Work * float64(c.Classes[j.Class].Nodes)
			used[j.Class] += v
			tot += v
		}
		if tot < WorkloadSlack*float64(c.Platform.Nodes)*span {
			t.Fatalf("node-time %v below the span", tot)
		}
		for k := range used {
			if d := math.Abs(used[k]/tot - c.Classes[k].Share); d > 0.01 {
				t.Fatalf("class %d share off by %v", k, d)
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s.Mean != 3 || s.Median != 3 || s.Q1 != 2 || s.Q3 != 4 || math.Abs(s.D1-1.4) > 1e-12 || math.Abs(s.D9-4.6) > 1e-12 || s.N != 5 {
		t.Fatalf("%+v", s)
	}
	if !math.IsNaN(Summarize(nil).Mean) {
		t.Fatal("empty")
	}
}
