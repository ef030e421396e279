package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIOSimBoundJSON(t *testing.T) {
	out, errs, code := run(t, "", "iosim", "bound", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var b struct {
		Waste   float64            `json:"waste"`
		Lambda  float64            `json:"lambda"`
		Periods map[string]float64 `json:"periods"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	// At 40 GB/s the I/O constraint binds on Cielo: λ > 0 and the bound
	// exceeds the Daly waste.
	if !(b.Waste > 0.3 && b.Waste < 0.5) || !(b.Lambda > 0) || len(b.Periods) != 4 || b.Periods["EAP"] <= 0 {
		t.Fatalf("%+v", b)
	}
}

func TestIOSimRunJSON(t *testing.T) {
	out, errs, code := run(t, "", "iosim", "run", "--json", "--seeds", "2", "--span", "12d", "--strategies", "ordered-nb-daly,least-waste", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Strategies []struct {
			Name  string `json:"name"`
			Waste struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
				Q1   float64 `json:"q1"`
				D9   float64 `json:"d9"`
			} `json:"waste"`
			Split map[string]float64 `json:"split"`
		} `json:"strategies"`
		Scheduler    string             `json:"scheduler"`
		BaselineBusy float64            `json:"baseline_busy"`
		ClassShares  map[string]float64 `json:"baseline_class_shares"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Strategies) != 2 || r.Strategies[1].Name != "least-waste" || r.Strategies[0].Waste.N != 2 {
		t.Fatalf("%s", out)
	}
	if r.Scheduler != "reserve" || !(r.BaselineBusy > 0.9 && r.BaselineBusy <= 1) || len(r.ClassShares) != 4 || !(r.ClassShares["Silverton"] > 0.05) {
		t.Errorf("scheduler %q, baseline busy %v, class shares %v", r.Scheduler, r.BaselineBusy, r.ClassShares)
	}
	for _, s := range r.Strategies {
		sum := 0.0
		for _, k := range []string{"work", "io", "checkpoint", "lost", "idle"} {
			v, ok := s.Split[k]
			if !ok {
				t.Fatalf("split lacks %s", k)
			}
			sum += v
		}
		if sum < 0.999999 || sum > 1.000001 || !(s.Waste.Mean > 0 && s.Waste.Mean < 1) {
			t.Fatalf("%s: split sums to %v, waste %v", s.Name, sum, s.Waste.Mean)
		}
	}
	// Same seed, other worker count: same bytes.
	out1, _, _ := run(t, "", "iosim", "run", "--json", "--seeds", "2", "--span", "12d", "--strategies", "ordered-nb-daly,least-waste", "--workers", "1")
	if out1 != out {
		t.Fatal("output depends on the worker count")
	}
}

func TestIOSimBadConfig(t *testing.T) {
	dir := t.TempDir()
	base := `platform: {nodes: NODES, memory_per_node: 1e9, bandwidth: BW, node_mtbf: MTBF}
classes:
  - {name: a, nodes: Q, walltime: 10h, checkpoint: 1, share: SHARE}
`
	cases := []struct {
		repl  []string
		field string
	}{
		{[]string{"NODES", "0"}, "platform.nodes"},
		{[]string{"Q", "200"}, "classes[0].nodes"},
		{[]string{"SHARE", "0.7"}, "share"},
		{[]string{"BW", "0"}, "platform.bandwidth"},
		{[]string{"BW", "-5"}, "platform.bandwidth"},
		{[]string{"MTBF", "0"}, "platform.node_mtbf"},
		{[]string{"MTBF", "-1y"}, "platform.node_mtbf"},
	}
	for i, tc := range cases {
		s := strings.NewReplacer(tc.repl...).Replace(base)
		s = strings.NewReplacer("NODES", "100", "BW", "1e9", "MTBF", "1y", "Q", "10", "SHARE", "1").Replace(s)
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, sub := range []string{"run", "bound"} {
			out, errs, code := run(t, "", "iosim", sub, "--config", p)
			if code != 2 || out != "" || !strings.Contains(errs, tc.field) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("case %d %s: exit %d, stdout %q, stderr %q (want one line naming %s)", i, sub, code, out, errs, tc.field)
			}
		}
	}
	for _, args := range [][]string{
		{"iosim", "run", "--bandwidth", "fast"},
		{"iosim", "run", "--bandwidth", "0"},
		{"iosim", "run", "--mtbf", "0"},
		{"iosim", "run", "--strategies", "nope"},
		{"iosim", "run", "--seeds", "0"},
		{"iosim", "sweep", "--param", "color"},
		{"iosim", "bandwidth-for", "--efficiency", "1.5"},
		{"iosim", "bandwidth-for", "--strategies", "least-waste,ordered-nb-daly"},
		{"iosim", "bandwidth-for", "--bandwidth", "80GB/s"},
		{"iosim", "run", "--scheduler", "fifo"},
		{"iosim", "run", "--platform", "mars"},
	} {
		if _, errs, code := run(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestIOSimSweepCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.csv")
	_, errs, code := run(t, "", "iosim", "sweep", "--values", "40GB/s,160GB/s", "--seeds", "2", "--span", "8d", "--strategies", "oblivious-daly,least-waste", "--csv", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "waste_least-waste") {
		t.Fatalf("csv:\n%s", b)
	}
}

func TestIOSimBandwidthFor(t *testing.T) {
	out, errs, code := run(t, "", "iosim", "bandwidth-for", "--json", "--seeds", "1", "--span", "8d", "--strategy", "ordered-nb-daly", "--lo", "10GB/s", "--hi", "10TB/s", "--tolerance", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Bandwidth float64 `json:"bandwidth"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || !(r.Bandwidth > 10e9 && r.Bandwidth < 10e12) {
		t.Fatalf("%s %v", out, err)
	}
}
