package interval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/trace"
)

// Section 4.2.2: Te = 200 s, 160 MB, E(Y) = 2; local ramdisk C = 0.632 s
// (Table 2), restart of type A 3.22 s (Table 5); NFS C = 1.67 s, type B
// 1.45 s. The paper: x = 17.79 and 10.94, costs 28.29 and 37.78.
func TestStoragePaperExample(t *testing.T) {
	s := []Storage{{"local", 0.632, 3.22}, {"shared", 1.67, 1.45}}
	costs, best, err := ChooseStorage(200, 2, s, true)
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 {
		t.Errorf("best = %d, want local", best)
	}
	for i, want := range []struct{ x, cost float64 }{{17.79, 28.29}, {10.94, 37.78}} {
		if math.Abs(costs[i].X-want.x) > 0.005 || math.Abs(costs[i].Cost-want.cost) > 0.005 {
			t.Errorf("%s: x = %v cost = %v, want %v and %v", costs[i].Name, costs[i].X, costs[i].Cost, want.x, want.cost)
		}
	}
	// Integer form, by hand: local x = 18: 0.632·17 + 6.44 + 400/36 =
	// 28.2951; shared x = 11: 1.67·10 + 2.9 + 400/22 = 37.7818.
	costs, best, err = ChooseStorage(200, 2, s, false)
	if err != nil || best != 0 {
		t.Fatal(err, best)
	}
	if costs[0].X != 18 || !near(costs[0].Cost, 0.632*17+6.44+400.0/36, 1e-12) {
		t.Errorf("local integer: %+v", costs[0])
	}
	if costs[1].X != 11 || !near(costs[1].Cost, 1.67*10+2.9+400.0/22, 1e-12) {
		t.Errorf("shared integer: %+v", costs[1])
	}
	if _, _, err := ChooseStorage(200, 2, []Storage{{"bad", 0, 1}}, false); err == nil {
		t.Error("C = 0 accepted")
	}
}

func TestCostTableInterpolation(t *testing.T) {
	ct, err := ReadCostTable(strings.NewReader("# c\n1 10 1\n\n2 20 3\n3 30 2\n3 30 4\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	// Points (10,1) (20,3) (30,3 averaged).
	for _, c := range []struct{ mb, want float64 }{{10, 1}, {15, 2}, {20, 3}, {25, 3}, {30, 3}} {
		if got := ct.At(c.mb); !near(got, c.want, 1e-12) {
			t.Errorf("At(%v) = %v, want %v", c.mb, got, c.want)
		}
	}
	// Least-squares line through (10,1),(20,3),(30,3): slope 0.1, mean
	// (20, 7/3) → at 40: 7/3 + 2 = 4.333.
	if got := ct.At(40); !near(got, 7.0/3+2, 1e-12) {
		t.Errorf("At(40) = %v", got)
	}
	for _, c := range []struct{ in, want string }{
		{"", "bad: no measurement"},
		{"1 2\n", `bad:1: want 3 fields "index memoryMB seconds", got 2`},
		{"1 x 3\n", `bad:1: field 2 (memoryMB) "x" is not a number >= 0`},
		{"# c\n1 5 3\n\n2 0 3\n", "bad:4: memory 0 MB: want > 0"},
		{"1 5 -1\n", `bad:1: field 3 (seconds) "-1" is not a number >= 0`},
		{"1 5 NaN\n", `bad:1: field 3 (seconds) "NaN"`},
		{"1 Inf 2\n", `bad:1: field 2 (memoryMB) "Inf"`},
	} {
		_, err := ReadCostTable(strings.NewReader(c.in), "bad")
		var pe *trace.ParseError
		switch {
		case err == nil:
			t.Errorf("accepted %q", c.in)
		case !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &pe):
			t.Errorf("%q: error %q (%T), want %q…", c.in, err, err, c.want)
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("multi-line error %q", err)
		}
	}
}

// The real BLCR tables reproduce Table 5 of the paper at 160 MB within the
// measurement noise (type A 3.22 s, type B 1.45 s).
func TestBLCRTables(t *testing.T) {
	b, err := LoadBLCR(datadirtest.ForTest(t, BLCRDir...))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.LocalRestart.At(160); math.Abs(got-3.22) > 0.1 {
		t.Errorf("type A restart at 160 MB = %v, paper 3.22", got)
	}
	if got := b.SharedRestart.At(160); math.Abs(got-1.45) > 0.1 {
		t.Errorf("type B restart at 160 MB = %v, paper 1.45", got)
	}
	// The four tables were measured from 10.27 to 248.33 MB (their files).
	if lo, hi := b.Range(); math.Abs(lo-10.266197) > 1e-6 || math.Abs(hi-248.32846) > 1e-6 {
		t.Errorf("measured range %v-%v MB", lo, hi)
	}
	for mb, want := range map[float64]bool{160: false, 10.3: false, 248: false, 10: true, 250: true, 1e9: true} {
		if b.Extrapolated(mb) != want {
			t.Errorf("Extrapolated(%v) = %v", mb, !want)
		}
	}
	s := b.Storages(160)
	if s[0].C >= s[1].C {
		t.Errorf("local checkpoint %v not cheaper than NFS %v", s[0].C, s[1].C)
	}
}

func FuzzReadCostTable(f *testing.F) {
	f.Add("1 10.266197 0.63997954\n2 22.31324 0.74037933\n")
	f.Add("# x\n\n1 1 1\n")
	f.Add("1 1e308 1e308\n")
	f.Fuzz(func(t *testing.T, s string) {
		ct, err := ReadCostTable(strings.NewReader(s), "fuzz")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for i, m := range ct.MemoryMB {
			if v := ct.At(m); !(v >= 0) {
				t.Fatalf("At(%v) = %v", m, v)
			}
			if i > 0 && !(m > ct.MemoryMB[i-1]) {
				t.Fatalf("memories not increasing")
			}
		}
	})
}
