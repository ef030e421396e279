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
