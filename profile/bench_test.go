package profile

import (
	"context"
	"testing"
)

func BenchmarkNewTimelineSLANT(b *testing.B) {
	a, _ := Builtin("slant")
	for b.Loop() {
		if _, err := NewTimeline(context.Background(), a, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNeedsSLANT1000(b *testing.B) {
	a, _ := Builtin("slant")
	tl, err := NewTimeline(context.Background(), a, 1024)
	if err != nil {
		b.Fatal(err)
	}
	vs := make([]float64, 1000)
	for i := range vs {
		vs[i] = 12000 * float64(i+1) / 1000
	}
	for b.Loop() {
		if _, _, _, err := tl.Needs(context.Background(), vs, 0.1, 0.1, false, CRIU); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSegment3600(b *testing.B) {
	s := make([]Sample, 3600)
	for i := range s {
		s[i] = Sample{T: float64(2 * i), Mem: 2 + float64((i/300)%3)*10 + float64(i%300)/100}
	}
	for b.Loop() {
		if _, err := Segment(s, SegmentOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
