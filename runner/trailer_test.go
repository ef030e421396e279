package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestShardEndLines: a complete shard ends with its end line (shard and
// the sweep's item count), an unsplit run writes no end line, and a
// cancelled shard writes none either.
func TestShardEndLines(t *testing.T) {
	points := testPoints(5)
	whole, wholeJ := runToBytes(t, Options{Seed: 1}, points, 2)
	if bytes.Contains(whole, []byte("#")) || bytes.Contains(wholeJ, []byte("ckpt_shard")) {
		t.Fatal("an unsplit run writes an end line")
	}
	c, j := runToBytes(t, Options{Seed: 1, Shard: Shard{2, 3}}, points, 2)
	if !bytes.HasSuffix(c, []byte("\n#ckpt-shard 2/3 items=10\n")) {
		t.Fatalf("CSV shard does not end with its end line:\n%s", c)
	}
	if !bytes.HasSuffix(j, []byte("\n{\"ckpt_shard\":\"2/3\",\"items\":10}\n")) {
		t.Fatalf("JSONL shard does not end with its end line:\n%s", j)
	}
	// A shard with no item holds its end line alone.
	c, j = runToBytes(t, Options{Seed: 1, Shard: Shard{11, 12}}, points, 2)
	if string(c) != "#ckpt-shard 11/12 items=10\n" || string(j) != "{\"ckpt_shard\":\"11/12\",\"items\":10}\n" {
		t.Fatalf("empty shard wrote %q and %q", c, j)
	}
	// Cancelled: no end line.
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	n := 0
	err := Run(ctx, Options{Seed: 1, Workers: 1, Shard: Shard{0, 2}}, points, 2,
		func(ctx context.Context, it Item[param]) (outcome, error) {
			if n++; n == 3 {
				cancel()
			}
			return sweepFn(ctx, it)
		}, NewCSV[outcome](&out))
	if err == nil || bytes.Contains(out.Bytes(), []byte("#ckpt-shard")) {
		t.Fatalf("cancelled shard: err %v, output %q", err, out.Bytes())
	}
}

// TestMergeNamesMissingShards is the case the end lines exist for: a
// missing last shard, or a missing empty shard, leaves no gap in the
// items, and used to merge silently.
func TestMergeNamesMissingShards(t *testing.T) {
	points := testPoints(3) // 3 items
	want, _ := runToBytes(t, Options{Seed: 4}, points, 1)
	three, _ := shardOutputs(t, 4, points, 1, 3, 1)
	four, _ := shardOutputs(t, 4, points, 1, 4, 1) // shard 3 is empty
	for _, tc := range []struct {
		name string
		in   [][]byte
		want string
	}{
		{"last shard", three[:2], "1 of 3 shards missing: 2 (resubmit with --array=2)"},
		{"empty shard", four[:3], "1 of 4 shards missing: 3 (resubmit with --array=3)"},
		{"several", [][]byte{four[1]}, "3 of 4 shards missing: 0,2,3 (resubmit with --array=0,2,3)"},
		{"interrupted", [][]byte{three[0], bytes.TrimSuffix(three[1], []byte("#ckpt-shard 1/3 items=3\n")), three[2]}, "input #1 has no shard end line (shard 1/3, by its items): interrupted"},
		{"two splits", [][]byte{three[0], four[1], four[2], four[3]}, "input #1 is shard 1/4 of 3 items, but input #0 is shard 0/3 of 3 items"},
		{"same shard twice", [][]byte{four[3], four[0], four[1], four[2], four[3]}, "shard 3/4 is both input #0 and input #4"},
		{"expect differs", three, "input #0 says the sweep has 3 items, not the expected 4"},
		{"text after end", [][]byte{three[0], three[1], append(append([]byte{}, three[2]...), "x\n"...)}, "input #2:4: text after the shard's end line"},
	} {
		expect := 0
		if tc.name == "expect differs" {
			expect = 4
		}
		_, err := mergeBytes(t, FormatCSV, expect, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, in := range [][][]byte{three, four, {four[3], four[2], four[1], four[0]}} {
		got, err := mergeBytes(t, FormatCSV, 0, in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("complete shards: %v\n%s", err, got)
		}
	}
	// One shard of one is a whole sweep that knows its count.
	one, _ := runToBytes(t, Options{Seed: 4, Shard: Shard{0, 1}}, points, 1)
	if got, err := mergeBytes(t, FormatCSV, 0, [][]byte{one}); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("0/1 alone: %v", err)
	}
}

func TestTrailerLinesRoundTrip(t *testing.T) {
	for _, f := range []Format{FormatCSV, FormatJSONL} {
		for _, tr := range []Trailer{{Shard{0, 1}, 0}, {Shard{3, 8}, 100}, {Shard{99, 100}, 7}} {
			got, err := parseTrailer(f, tr.Line(f))
			if err != nil || got != tr {
				t.Errorf("%v %v: %v, %v", f, tr, got, err)
			}
		}
	}
	for _, bad := range []string{"#ckpt-shard 3/8 items=100", "#ckpt-shard 3/8 items=100 \n", "#ckpt-shard 8/8 items=100\n",
		"#ckpt-shard 3/8 items=-1\n", "#ckpt-shard 3/8  items=1\n", "# comment\n", "#ckpt-shard 03/8 items=1\n"} {
		if _, err := parseTrailer(FormatCSV, []byte(bad)); err == nil {
			t.Errorf("CSV end line %q accepted", bad)
		}
	}
	for _, bad := range []string{`{"ckpt_shard":"3/8","items":100,"x":1}` + "\n", `{"ckpt_shard":"3/8"}` + "\n",
		`{"ckpt_shard":"3/8","items":1.5}` + "\n", `{"ckpt_shard": "3/8","items":1}` + "\n"} {
		if _, err := parseTrailer(FormatJSONL, []byte(bad)); err == nil {
			t.Errorf("JSONL end line %q accepted", bad)
		}
	}
}

func TestParseShardEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	slurm := func(id, count, lo, hi string) func(string) string {
		return env("SLURM_ARRAY_TASK_ID", id, "SLURM_ARRAY_TASK_COUNT", count, "SLURM_ARRAY_TASK_MIN", lo, "SLURM_ARRAY_TASK_MAX", hi)
	}
	for _, tc := range []struct {
		spec string
		env  func(string) string
		want Shard
		err  string
	}{
		{"auto", env(), Shard{}, ""},
		{"auto", slurm("3", "8", "0", "7"), Shard{3, 8}, ""},
		{"auto", env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "8"), Shard{3, 8}, ""},
		{"auto", slurm("5", "2", "2", "5"), Shard{}, "tasks 2-5, not 0-1"},
		{"auto", slurm("8", "8", "1", "8"), Shard{}, "tasks 1-8, not 0-7"},
		{"auto/8", slurm("5", "2", "2", "5"), Shard{5, 8}, ""},
		{"auto/8", slurm("8", "8", "1", "8"), Shard{}, "outside [0, 8)"},
		{"auto", env("SLURM_ARRAY_TASK_ID", "3"), Shard{}, "SLURM_ARRAY_TASK_COUNT is not set"},
		{"auto", env("JOB_COMPLETION_INDEX", "2"), Shard{}, "use --shard auto/N"},
		{"auto/4", env("JOB_COMPLETION_INDEX", "2"), Shard{2, 4}, ""},
		{"auto/4", env(), Shard{}, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX"},
		{"auto/x", env("JOB_COMPLETION_INDEX", "2"), Shard{}, `count "x"`},
		{"auto/4", env("JOB_COMPLETION_INDEX", "auto"), Shard{}, `"auto"`},
		{"auto/0", env("JOB_COMPLETION_INDEX", "0"), Shard{}, "count 0"},
		{"3/8", env("SLURM_ARRAY_TASK_ID", "5"), Shard{3, 8}, ""}, // explicit wins
	} {
		got, err := ParseShardEnv(tc.spec, tc.env)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s: %v, %v; want %v", tc.spec, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.spec, err, tc.err)
		}
	}
}

// FuzzParseShardEnv: whatever the environment, an accepted auto shard is
// valid, and its index is the array variable's value.
func FuzzParseShardEnv(f *testing.F) {
	f.Add("auto", "3", "8", "", "")
	f.Add("auto/8", "", "", "5", "")
	f.Add("auto", "1", "2", "", "0")
	f.Fuzz(func(t *testing.T, spec, id, count, k8s, lo string) {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_COUNT": count, "JOB_COMPLETION_INDEX": k8s, "SLURM_ARRAY_TASK_MIN": lo}
		sh, err := ParseShardEnv(spec, func(k string) string { return env[k] })
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if sh == (Shard{}) {
			return
		}
		if sh.Count <= 0 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("accepted invalid %+v", sh)
		}
		if strings.HasPrefix(spec, "auto") {
			src := id
			if src == "" {
				src = k8s
			}
			if n, err := strconv.Atoi(src); err != nil || n != sh.Index {
				t.Fatalf("%q: index %d not from the environment (%q)", spec, sh.Index, src)
			}
		}
	})
}

// TestArrayListProperty: the list expands back to the sorted distinct
// indices (an independent expansion of Slurm's a,b-c syntax).
func TestArrayListProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOf(rapid.IntRange(0, 40)).Draw(t, "ids")
		s := ArrayList(ids)
		var got []int
		if s != "" {
			for _, part := range strings.Split(s, ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if isRange {
					b, _ = strconv.Atoi(hi)
					if b < a+2 {
						t.Fatalf("%q: range %q shorter than 3", s, part)
					}
				}
				for x := a; x <= b; x++ {
					got = append(got, x)
				}
			}
		}
		seen := map[int]bool{}
		var want []int
		for _, x := range ids {
			seen[x] = true
		}
		for x := 0; x <= 40; x++ {
			if seen[x] {
				want = append(want, x)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%v → %q → %v", ids, s, got)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v → %q → %v", ids, s, got)
			}
		}
	})
}

func TestReadTrailer(t *testing.T) {
	dir := t.TempDir()
	c, j := runToBytes(t, Options{Seed: 1, Shard: Shard{1, 3}}, testPoints(4), 2)
	whole, _ := runToBytes(t, Options{Seed: 1}, testPoints(4), 2)
	for name, b := range map[string][]byte{"s.csv": c, "s.jsonl": j, "w.csv": whole, "cut.csv": c[:len(c)-5], "e.csv": nil} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, ok, err := ReadTrailer(p)
		wantOK := name == "s.csv" || name == "s.jsonl"
		if err != nil || ok != wantOK || (ok && tr != Trailer{Shard{1, 3}, 8}) {
			t.Errorf("%s: %v %v %v", name, tr, ok, err)
		}
	}
	if _, _, err := ReadTrailer(filepath.Join(dir, "none.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzParseTrailer: an accepted end line is exactly what Line writes for
// a valid shard, and nothing else is accepted.
func FuzzParseTrailer(f *testing.F) {
	f.Add("#ckpt-shard 3/8 items=100\n", false)
	f.Add(`{"ckpt_shard":"3/8","items":100}`+"\n", true)
	f.Add("#ckpt-shard 0/1 items=0\n", false)
	f.Fuzz(func(t *testing.T, line string, jsonl bool) {
		format := FormatCSV
		if jsonl {
			format = FormatJSONL
		}
		tr, err := parseTrailer(format, []byte(line))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if tr.Shard.Count < 1 || tr.Shard.Index < 0 || tr.Shard.Index >= tr.Shard.Count || tr.Items < 0 {
			t.Fatalf("%q accepted as invalid %+v", line, tr)
		}
		if string(tr.Line(format)) != line {
			t.Fatalf("%q accepted but written back as %q", line, tr.Line(format))
		}
	})
}
