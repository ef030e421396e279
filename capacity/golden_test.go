package capacity

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// planPrint folds every plan of a simulation into a hash: the case codes,
// C_nf and every interval (times rounded to 1e-6, so that an architecture
// that fuses multiply-adds hashes the same decisions).
func planPrint(t *testing.T, in *Instance, spec string) string {
	t.Helper()
	a, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	r6 := func(x float64) int64 { return int64(math.Round(x * 1e6)) }
	st := NewState(in)
	cmin, rmin := math.Inf(1), math.Inf(1)
	finite := false
	for _, jb := range in.Jobs {
		cmin, rmin = math.Min(cmin, jb.C), math.Min(rmin, jb.R)
		finite = finite || jb.Length > 0
	}
	for i, s := range in.Sections {
		st.P, st.T = s.P, s.Length
		pl, err := a.Plan(st)
		if err == nil && finite {
			pl, err = Finish(st, pl)
		}
		if err != nil {
			t.Fatalf("%s section %d: %v", spec, i, err)
		}
		fmt.Fprint(h, pl.Case, r6(pl.Cnf))
		for j, ivs := range pl.Jobs {
			for _, iv := range ivs {
				fmt.Fprint(h, j, iv.Kind, r6(iv.Start), r6(iv.End))
			}
		}
		if _, err := Advance(st, pl, cmin, rmin); err != nil {
			t.Fatalf("%s section %d: %v", spec, i, err)
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// goldenWidths mixes the width profiles of the logs: many narrow jobs, a few
// wide ones, powers of two.
var goldenWidths = []int{1, 1, 1, 2, 2, 3, 4, 4, 5, 7, 8, 8, 12, 16, 16, 24, 32}

func goldenInstance(seed uint64, pr Params, finite bool) *Instance {
	r := rand.New(rand.NewPCG(seed, 11))
	if finite {
		var specs []JobSpec
		for i, w := range goldenWidths {
			specs = append(specs, JobSpec{P: w, L: float64(30 + 97*i%400)})
		}
		in, err := GenerateFinite(r, pr, specs, FIFO)
		if err != nil {
			panic(err)
		}
		return in
	}
	in, err := Generate(r, pr, goldenWidths)
	if err != nil {
		panic(err)
	}
	return in
}

// TestPlansUnchanged is a regression pin, not an oracle: it pins the
// schedules chosen by every algorithm on a few instances (default-like,
// short sections, finite jobs) to fingerprints recorded from this code, with
// no independent source. The dynamic programs are tuned for speed; any
// change of a decision, including a tie broken differently, changes a
// fingerprint. Their correctness is checked against independent oracles
// beside it: exhaustive search over the 15 paths and over two-stage plans
// (oracle_test.go), hand-computed sections and bounds (algorithms_test.go),
// the optimality of Corollary 1 (property_test.go) and the independent
// validator on every plan. Regenerate with CKPT_GOLDEN_PRINT=1 only for an
// intended change of the algorithms.
func TestPlansUnchanged(t *testing.T) {
	t.Parallel()
	base := Params{Sections: 25, AvgT: 100, PMax: 90, PMinFrac: 0.2, Delta: 0.1, Load: 2, CLo: 5, CHi: 20}
	short := base
	short.AvgT, short.Delta, short.PMinFrac, short.Load = 25, 0.3, 0.4, 3
	light := base
	light.PMax, light.Sections = 40, 12
	cases := []struct {
		name   string
		pr     Params
		finite bool
		specs  []string
	}{
		{"default", base, false, []string{"greedy-goodput", "greedy-yield", "dp-goodput", "dp-goodput-best-cnf", "dp-yield", "dp-bic:15", "dp-bic:2", "dp-bic-best-cnf:7", "target-yield:0.5"}},
		{"short", short, false, []string{"dp-goodput", "dp-goodput-best-cnf", "dp-yield", "dp-bic:15", "dp-bic-best-cnf:15"}},
		{"light", light, false, []string{"dp-goodput-slow", "dp-goodput-slow-best-cnf", "target-goodput:0.8", "target-goodput:0.95"}},
		{"finite", base, true, []string{"greedy-goodput", "dp-goodput", "dp-yield", "dp-bic:15"}},
	}
	got := map[string]string{}
	for _, c := range cases {
		for seed := uint64(1); seed <= 2; seed++ {
			in := goldenInstance(seed, c.pr, c.finite)
			for _, s := range c.specs {
				got[fmt.Sprintf("%s/%d/%s", c.name, seed, s)] = planPrint(t, in, s)
			}
		}
	}
	if testing.Verbose() && os.Getenv("CKPT_GOLDEN_PRINT") != "" {
		for k, v := range got {
			fmt.Printf("\t%q: %q,\n", k, v)
		}
	}
	for k, v := range got {
		if w, ok := goldenPlans[k]; !ok {
			t.Errorf("%s: no golden fingerprint (got %s)", k, v)
		} else if w != v {
			t.Errorf("%s: plans changed: fingerprint %s, want %s", k, v, w)
		}
	}
}

// goldenPlans (regression pins) was recorded with the straightforward
// dynamic programs (before the bounded-range engine of knapsack.go).
var goldenPlans = map[string]string{
	"default/1/dp-bic-best-cnf:7":      "67b66b8463fda280",
	"default/1/dp-bic:15":              "a65146576986c475",
	"default/1/dp-bic:2":               "be67d550a572a12c",
	"default/1/dp-goodput":             "6a96c41adb122ccf",
	"default/1/dp-goodput-best-cnf":    "4b25532376839da2",
	"default/1/dp-yield":               "52602473500b0fd0",
	"default/1/greedy-goodput":         "7729961987bd04ca",
	"default/1/greedy-yield":           "20010b43f9c1e812",
	"default/1/target-yield:0.5":       "52602473500b0fd0",
	"default/2/dp-bic-best-cnf:7":      "969b335996d8ddb2",
	"default/2/dp-bic:15":              "ffe79dba9f9bb456",
	"default/2/dp-bic:2":               "6c3af4f1126b0948",
	"default/2/dp-goodput":             "cce9b4d0fe4bff7b",
	"default/2/dp-goodput-best-cnf":    "de9eb18e26857cf9",
	"default/2/dp-yield":               "a618d89fa67780ab",
	"default/2/greedy-goodput":         "891c73f958006b43",
	"default/2/greedy-yield":           "d796dac252cf6210",
	"default/2/target-yield:0.5":       "a618d89fa67780ab",
	"finite/1/dp-bic:15":               "f53a4db1f59f88a5",
	"finite/1/dp-goodput":              "21b8f81d7d2b41f1",
	"finite/1/dp-yield":                "7b92bc26d44ca570",
	"finite/1/greedy-goodput":          "fe8f140dfdf90ca0",
	"finite/2/dp-bic:15":               "828ee99a79b43ffe",
	"finite/2/dp-goodput":              "62e33f7931ae5656",
	"finite/2/dp-yield":                "f81c523636c65da8",
	"finite/2/greedy-goodput":          "f7819a1655af3729",
	"light/1/dp-goodput-slow":          "d492044c478fb59b",
	"light/1/dp-goodput-slow-best-cnf": "649bd1b78bbba89f",
	"light/1/target-goodput:0.8":       "f90aaee6bfa5a2b5",
	"light/1/target-goodput:0.95":      "257a3d135dc422fa",
	"light/2/dp-goodput-slow":          "9520d5eaa57f5c72",
	"light/2/dp-goodput-slow-best-cnf": "3a788363c024b047",
	"light/2/target-goodput:0.8":       "1003dc836c46f12e",
	"light/2/target-goodput:0.95":      "e4c9a233c8db3e8f",
	"short/1/dp-bic-best-cnf:15":       "375fd34304dc4dc5",
	"short/1/dp-bic:15":                "ebf780ab01c59b59",
	"short/1/dp-goodput":               "b1fa6f24a24f7581",
	"short/1/dp-goodput-best-cnf":      "e517077291cafbfb",
	"short/1/dp-yield":                 "cd435ce353f80a13",
	"short/2/dp-bic-best-cnf:15":       "52565db8f0a21ffd",
	"short/2/dp-bic:15":                "057c76d591fccb97",
	"short/2/dp-goodput":               "ed42d4f4740ef012",
	"short/2/dp-goodput-best-cnf":      "446fe236b8a88ad9",
	"short/2/dp-yield":                 "2bdff36bbe129b9b",
}
