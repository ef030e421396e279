package iosim

import (
	"testing"
)

// BenchmarkCielo60Days is one 60-day (62 simulated) Cielo run at 40 GB/s,
// node MTBF 2 years, per strategy; it reports events per second.
func BenchmarkCielo60Days(b *testing.B) {
	c := Cielo()
	jobs, err := GenerateJobs(&c, 62*Day, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"oblivious-fixed", "ordered-daly", "least-waste"} {
		st, _ := Lookup(n, 3600)
		b.Run(n, func(b *testing.B) {
			var ev uint64
			for b.Loop() {
				r, err := Simulate(&c, st, Options{Seed: 1, Jobs: jobs})
				if err != nil {
					b.Fatal(err)
				}
				ev += r.Events
			}
			b.ReportMetric(float64(ev)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func BenchmarkLowerBound(b *testing.B) {
	c := Cielo()
	for b.Loop() {
		if _, err := c.LowerBound(BoundOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
