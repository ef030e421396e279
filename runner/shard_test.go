package runner

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string // substring of the error, "" for success
	}{
		{"", Shard{}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"3/8", Shard{3, 8}, ""},
		{"07/08", Shard{7, 8}, ""},
		{"8/8", Shard{}, `"8/8"`},
		{"1/0", Shard{}, "count 0"},
		{"-1/4", Shard{}, `"-1"`},
		{"+1/4", Shard{}, `"+1"`},
		{"1/ 4", Shard{}, `" 4"`},
		{"3", Shard{}, "want i/n"},
		{"3/8/2", Shard{}, `"8/2"`},
		{"a/b", Shard{}, `"a"`},
		{"1/99999999999999999999999", Shard{}, "99999999999999999999999"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseShard(%q) error = %v, want one mentioning %s", tc.in, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseShard(%q) error spans lines: %q", tc.in, err)
		}
	}
}

func TestShardLen(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for i := range n {
			for total := range 40 {
				want := 0
				for k := range total {
					if k%n == i {
						want++
					}
				}
				if got := (Shard{i, n}).Len(total); got != want {
					t.Fatalf("Shard{%d,%d}.Len(%d) = %d, want %d", i, n, total, got, want)
				}
			}
		}
	}
	if got := (Shard{}).Len(5); got != 5 {
		t.Fatalf("zero Shard Len(5) = %d", got)
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"", "0/1", "3/8", "8/8", "-1/2", "1/", "/", "00/1", "9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if s == "" {
			return
		}
		if sh.Count <= 0 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("ParseShard(%q) accepted invalid %+v", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}
