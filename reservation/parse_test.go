package reservation

import (
	"testing"

	"pgregory.net/rapid"
)

func TestParseStrategy(t *testing.T) {
	s, err := ParseStrategy("20h:ckpt, 40h ,80h:no")
	if err != nil {
		t.Fatal(err)
	}
	want := Strategy{{72000, true}, {144000, false}, {288000, false}}
	if len(s) != 3 || s[0] != want[0] || s[1] != want[1] || s[2] != want[2] {
		t.Fatalf("got %v", s)
	}
	for _, bad := range []string{"", "1h,", "2h,1h", "1h:maybe", "abc", "-5", "NaN", "1h,1h", "1h:ckpt:ckpt"} {
		if _, err := ParseStrategy(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStrategyStringRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "n")
		var s Strategy
		x := 0.0
		for i := range n {
			x += rapid.Float64Range(1e-3, 1e6).Draw(t, "step")
			s = append(s, Step{Milestone: x, Checkpoint: rapid.Bool().Draw(t, "ckpt") && i < n})
		}
		back, err := ParseStrategy(s.String())
		if err != nil {
			t.Fatalf("%q: %v", s.String(), err)
		}
		for i := range s {
			if back[i] != s[i] {
				t.Fatalf("%v round-trips to %v", s, back)
			}
		}
	})
}

func FuzzParseStrategy(f *testing.F) {
	for _, seed := range []string{"20:ckpt,40,80", "1h30m:ckpt,2d", "", ",", "1e308,1e309", "5:c,6:checkpoint,7:no", "0", "-1h"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseStrategy(in)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%q parsed to invalid %v: %v", in, s, err)
		}
	})
}
