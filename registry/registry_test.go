package registry

import (
	"strings"
	"testing"
)

func TestLookupAndList(t *testing.T) {
	r := New("strategy", Entry[int]{Name: "a", Value: 1}, Entry[int]{Name: "b", Value: 2})
	if v, err := r.Lookup("b"); err != nil || v != 2 {
		t.Fatalf("Lookup(b) = %v, %v", v, err)
	}
	_, err := r.Lookup("c")
	if err == nil || !strings.Contains(err.Error(), `unknown strategy "c" (known: a, b)`) {
		t.Fatalf("err = %v", err)
	}
	vs, names, err := r.LookupList(" b, a")
	if err != nil || len(vs) != 2 || vs[0] != 2 || names[1] != "a" {
		t.Fatalf("LookupList = %v %v %v", vs, names, err)
	}
	for _, bad := range []string{"", "a,,b", "a,a", "a,z", " , "} {
		if _, _, err := r.LookupList(bad); err == nil {
			t.Errorf("LookupList(%q) accepted", bad)
		}
	}
}

func TestDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate name did not panic")
		}
	}()
	New("policy", Entry[int]{Name: "x"}, Entry[int]{Name: "x"})
}

// FuzzSplitList asserts SplitList's properties: an accepted list has one
// item per comma-separated field, each non-empty, trimmed, comma-free and
// distinct, in the list's order; joining the items splits back to them; a
// refusal is one line.
func FuzzSplitList(f *testing.F) {
	for _, s := range []string{"a", "a,b", " a , b ", "a,,b", "a,a", "", " ", ",", "a, a", "α,β", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		items, err := SplitList(list)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		fields := strings.Split(list, ",")
		if len(items) != len(fields) {
			t.Fatalf("%q: %d items from %d fields", list, len(items), len(fields))
		}
		seen := map[string]bool{}
		for i, it := range items {
			if it == "" || it != strings.TrimSpace(it) || strings.Contains(it, ",") || it != strings.TrimSpace(fields[i]) {
				t.Fatalf("%q: item %d is %q", list, i, it)
			}
			if seen[it] {
				t.Fatalf("%q: %q accepted twice", list, it)
			}
			seen[it] = true
		}
		again, err := SplitList(strings.Join(items, ","))
		if err != nil || strings.Join(again, "\x00") != strings.Join(items, "\x00") {
			t.Fatalf("%q: re-split of the items gives %q, %v", list, again, err)
		}
	})
}
