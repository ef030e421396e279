package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22 in iosim, capacity, convert and merge: no silent wrong answer,
// named errors, no file lost. Every case failed on 995673b.

// iosim: answers that were +Inf, a waste for an empty window, runs that
// spun to --max-events, configs with junk or beside --platform.
func TestIOSimIssue22Refusals(t *testing.T) {
	dir := t.TempDir()
	cfg, _, code := run(t, "", "iosim", "run", "--print-config")
	if code != 0 {
		t.Fatal("print-config failed")
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	junk := write("junk.json", cfg+"junk\n")
	two := write("two.yaml", cfg+"---\n"+cfg)
	good := write("good.json", cfg)
	quick := []string{"--seeds", "1", "--strategies", "least-waste"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bound", "--mtbf", "1e304"}, "--mtbf: 1e+304 s: Eq. (8)'s periods overflow"},
		{[]string{"bound", "--mtbf", "1e304", "--json"}, "--mtbf: 1e+304 s"},
		{append([]string{"run", "--span", "5e-324", "--skip", "0"}, quick...), "--span: 5e-324 s leaves a window"},
		{append([]string{"run", "--span", "1.5", "--skip", "0.5"}, quick...), "at least 1 s is measured"},
		{append([]string{"run", "--bandwidth", "1e295"}, quick...), "--bandwidth: 1e+295 B/s moves class"},
		{append([]string{"run", "--bandwidth", "1e308"}, quick...), "--bandwidth: 1e+308 B/s × 17784 nodes exceeds 1e+300"},
		{append([]string{"run", "--io-chunk", "5e-324"}, quick...), "--io-chunk: 5e-324 s is below the clock's resolution"},
		{append([]string{"sweep", "--values", "1e295"}, quick...), "1e+295 B/s moves class"},
		{append([]string{"sweep", "--values", "1e308"}, quick...), "--values: 1e308: platform.bandwidth: 1e+308 B/s × 17784 nodes exceeds"},
		{[]string{"bandwidth-for", "--hi", "1e308", "--seeds", "1"}, "--hi: 1e+308 B/s moves class"},
		{[]string{"bound", "--config", junk}, "junk.json: unexpected data after the config"},
		{[]string{"bound", "--config", two}, "a second YAML document"},
		{[]string{"bound", "--config", good, "--platform", "prospective"}, `--platform: "prospective" and config`},
		{[]string{"run", "--config", good, "--platform", "cielo"}, `--platform: "cielo" and config`},
		{[]string{"bound", "--config", filepath.Join(dir, "none.yaml")}, "none.yaml"},
	} {
		out, errs, code := run(t, "", append([]string{"iosim"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q on one line", c.args, code, out, errs, c.want)
		}
	}
	// The bound still answers where floating point holds it, near 0.
	out, errs, code := run(t, "", "iosim", "bound", "--mtbf", "1e290", "--json")
	var b struct {
		Waste *float64 `json:"waste"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Waste == nil || !(*b.Waste >= 0 && *b.Waste < 1e-100) {
		t.Errorf("--mtbf 1e290: exit %d %.200s %s", code, out, errs)
	}
	if _, errs, code := run(t, "", "iosim", "bound", "--config", good); code != 0 {
		t.Errorf("--config alone: exit %d %s", code, errs)
	}
}

// capacity: a checkpoint below the length's resolution made an invalid
// schedule; export --out into a folder wrote hidden files.
func TestCapacityIssue22Refusals(t *testing.T) {
	tiny := strings.NewReplacer(`"length":100`, `"length":1e12`, `"c":10,"r":10`, `"c":1e-5,"r":1e-5`).Replace(capState)
	if _, errs, code := run(t, tiny, "capacity", "decide", "--state", "-", "--strategy", "dp-bic:15"); code != 2 || !strings.Contains(errs, "job 0: c = 1e-05: below the time resolution") {
		t.Errorf("tiny c: exit %d, %q", code, errs)
	}
	dir := t.TempDir()
	for _, out := range []string{dir + "/", filepath.Join(dir, ".hidden"), dir + "/."} {
		_, errs, code := run(t, "", "capacity", "export", "--p-max", "10", "--sections", "2", "--out", out)
		if code != 2 || !strings.Contains(errs, "--out") {
			t.Errorf("--out %s: exit %d, %q", out, code, errs)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("export into a folder wrote %d files", len(es))
	}
	if _, errs, code := run(t, "", "capacity", "batsim-score", "--workload", filepath.Join(dir, "no.json"), "--schedule", "x.csv"); code != 2 || !strings.Contains(errs, "no.json") {
		t.Errorf("missing workload: exit %d, %q", code, errs)
	}
}

// convert and merge: the input survives, a failed run keeps the previous
// output, and convert writes no Batsim ids it cannot read back.
func TestConvertMergeIssue22NoFileLost(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "w.json")
	body := []byte(`{"nb_res":4,"jobs":[{"id":1,"subtime":0,"walltime":200,"res":4,"profile":"d"}],"profiles":{"d":{"type":"delay","delay":100}}}`)
	if err := os.WriteFile(jobs, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := run(t, "", "convert", jobs, jobs); code != 2 || !strings.Contains(errs, "is the input") {
		t.Errorf("in place: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(jobs); !bytes.Equal(b, body) {
		t.Fatalf("convert in place changed its input: %q", b)
	}
	prev := filepath.Join(dir, "prev.swf")
	os.WriteFile(prev, []byte("previous\n"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nb_res":`), 0o644)
	if _, _, code := run(t, "", "convert", bad, prev); code == 0 {
		t.Error("bad input converted")
	}
	if b, _ := os.ReadFile(prev); string(b) != "previous\n" {
		t.Errorf("failed convert changed the previous output: %q", b)
	}
	swf := filepath.Join(dir, "dup.swf")
	os.WriteFile(swf, []byte("; Version: 2.2\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n1 0 0 50 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n"), 0o644)
	out := filepath.Join(dir, "dup.json")
	if _, errs, code := run(t, "", "convert", swf, out); code != 2 || !strings.Contains(errs, "same id 1") {
		t.Errorf("duplicate ids: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("duplicate ids: an output was written")
	}
	merged := filepath.Join(dir, "m.csv")
	os.WriteFile(merged, []byte("previous\n"), 0o644)
	shard := filepath.Join(dir, "s.csv")
	os.WriteFile(shard, []byte("a,b\n1,2\n#ckpt-shard 0/2 items=2\n"), 0o644)
	if _, _, code := run(t, "", "merge", "--out", merged, shard); code == 0 {
		t.Error("merge of a missing shard succeeded")
	}
	if b, _ := os.ReadFile(merged); string(b) != "previous\n" {
		t.Errorf("failed merge changed the previous output: %q", b)
	}
	if _, errs, code := run(t, "", "merge", "--out", merged, "--expect", "2", filepath.Join(dir, "none.csv")); code != 2 || !strings.Contains(errs, "none.csv") {
		t.Errorf("missing shard file: exit %d, %q", code, errs)
	}
	if es, _ := os.ReadDir(dir); len(es) != 6 {
		t.Errorf("%d files left, want 6 (no temporary file)", len(es))
	}
}
