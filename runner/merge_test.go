package runner

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/usage"
)

// shardOutputs runs every shard of an n-way split and returns their CSV
// and JSONL outputs.
func shardOutputs(t tb, seed uint64, points []param, reps, n, workers int) (csvs, jsons [][]byte) {
	for i := range n {
		c, j := runToBytes(t, Options{Seed: seed, Workers: workers, Shard: Shard{i, n}}, points, reps)
		csvs = append(csvs, c)
		jsons = append(jsons, j)
	}
	return csvs, jsons
}

func readers(bs [][]byte) []io.Reader {
	rs := make([]io.Reader, len(bs))
	for i, b := range bs {
		rs[i] = bytes.NewReader(b)
	}
	return rs
}

func mergeBytes(t tb, f Format, expect int, bs [][]byte) ([]byte, error) {
	var out bytes.Buffer
	err := Merge(&out, f, expect, readers(bs)...)
	return out.Bytes(), err
}

func TestShardsMergeToUnsplitProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		npoints := rapid.IntRange(1, 25).Draw(t, "points") // 0 items: see TestMergeRefusesEmpty
		reps := rapid.IntRange(1, 5).Draw(t, "reps")
		n := rapid.IntRange(1, 12).Draw(t, "shards")
		workers := rapid.IntRange(1, 4).Draw(t, "workers")
		seed := rapid.Uint64().Draw(t, "seed")
		points := testPoints(npoints)
		wantC, wantJ := runToBytes(t, Options{Seed: seed, Workers: 1}, points, reps)
		csvs, jsons := shardOutputs(t, seed, points, reps, n, workers)
		perm := rapid.Permutation(indices(n)).Draw(t, "order") // inputs in any order
		var pc, pj [][]byte
		for _, i := range perm {
			pc = append(pc, csvs[i])
			pj = append(pj, jsons[i])
		}
		expect := 0
		if rapid.Bool().Draw(t, "expect") {
			expect = npoints * reps
		}
		gotC, err := mergeBytes(t, FormatCSV, expect, pc)
		if err != nil {
			t.Fatalf("CSV merge: %v", err)
		}
		gotJ, err := mergeBytes(t, FormatJSONL, expect, pj)
		if err != nil {
			t.Fatalf("JSONL merge: %v", err)
		}
		if !bytes.Equal(gotC, wantC) {
			t.Fatalf("merged CSV differs from unsplit:\n%s\nwant\n%s", gotC, wantC)
		}
		if !bytes.Equal(gotJ, wantJ) {
			t.Fatalf("merged JSONL differs from unsplit")
		}
	})
}

func indices(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestMergeErrors(t *testing.T) {
	points := testPoints(5)
	csvs, jsons := shardOutputs(t, 3, points, 2, 3, 2) // 10 items over 3 shards
	drop := func(b []byte, line int) []byte {
		ls := strings.SplitAfter(string(b), "\n")
		return []byte(strings.Join(append(ls[:line:line], ls[line+1:]...), ""))
	}
	dupLine := func(b []byte, i int) []byte {
		ls := strings.SplitAfter(string(b), "\n")
		return []byte(strings.Join(append(ls[:i+1:i+1], ls[i:]...), ""))
	}
	other, _ := runToBytes(t, Options{Seed: 3, Shard: Shard{1, 3}}, points, 2)
	otherHeader := bytes.Replace(other, []byte("count"), []byte("cnt"), 1)
	for _, tc := range []struct {
		name   string
		f      Format
		expect int
		in     [][]byte
		want   string
	}{
		{"missing shard", FormatCSV, 0, [][]byte{csvs[0], csvs[2]}, "1 of 3 shards missing: 1 (resubmit with --array=1)"},
		{"missing row", FormatCSV, 0, [][]byte{csvs[0], drop(csvs[1], 2), csvs[2]}, "input #1 does not hold the 3 items of shard 1/3 of 10 items"},
		{"missing last", FormatCSV, 10, [][]byte{drop(csvs[0], 4), csvs[1], csvs[2]}, "input #0 does not hold the 4 items of shard 0/3 of 10 items"},
		{"too many", FormatCSV, 8, csvs, "item 8 is beyond the expected 8"},
		{"duplicate shard", FormatCSV, 0, [][]byte{csvs[0], csvs[1], csvs[1], csvs[2]}, "item 1 appears twice"},
		{"header", FormatCSV, 0, [][]byte{csvs[0], otherHeader, csvs[2]}, "header"},
		{"repeated row", FormatCSV, 0, [][]byte{csvs[0], dupLine(csvs[1], 2), csvs[2]}, "item 4 follows item 4"},
		{"truncated", FormatCSV, 0, [][]byte{csvs[0], csvs[1][:len(csvs[1])-1], csvs[2]}, "truncated"},
		{"crlf", FormatCSV, 0, [][]byte{bytes.ReplaceAll(csvs[0], []byte("\n"), []byte("\r\n"))}, "carriage return"},
		{"not runner", FormatCSV, 0, [][]byte{[]byte("a,b\n1,2\n")}, "not a runner CSV"},
		{"jsonl as csv", FormatCSV, 0, jsons, "input #0:1: quote inside an unquoted field"},
		{"bad item", FormatCSV, 0, [][]byte{[]byte("item,point,rep,seed\n01,0,0,0\n")}, `item "01"`},
		{"field count", FormatCSV, 0, [][]byte{[]byte("item,point,rep,seed\n0,0,0\n")}, "3 fields, header has 4"},
		{"jsonl missing", FormatJSONL, 0, [][]byte{jsons[0], jsons[1]}, "shards missing: 2 "},
		{"jsonl dup", FormatJSONL, 0, [][]byte{jsons[0], jsons[1], jsons[2], jsons[0]}, "item 0 appears twice"},
		{"jsonl keys", FormatJSONL, 0, [][]byte{jsons[0], bytes.ReplaceAll(jsons[1], []byte(`"count"`), []byte(`"cnt"`)), jsons[2]}, "keys"},
		{"jsonl bad", FormatJSONL, 0, [][]byte{[]byte("{\"item\":0,\n")}, "input #0:1"},
		{"jsonl first key", FormatJSONL, 0, [][]byte{[]byte("{\"k\":0}\n")}, `first key is "k"`},
		{"jsonl trailing", FormatJSONL, 0, [][]byte{[]byte("{\"item\":0} 1\n")}, "text after"},
		{"csv as jsonl", FormatJSONL, 0, csvs, "not a JSON object"},
		{"format", Format(9), 0, csvs, "unknown format"},
	} {
		_, err := mergeBytes(t, tc.f, tc.expect, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: multi-line error %q", tc.name, err)
		}
	}
	// The complete set merges, with and without the count.
	for _, e := range []int{0, 10} {
		if _, err := mergeBytes(t, FormatCSV, e, csvs); err != nil {
			t.Fatalf("expect %d: %v", e, err)
		}
	}
}

func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	points := testPoints(4)
	want, _ := runToBytes(t, Options{Seed: 9}, points, 3)
	csvs, _ := shardOutputs(t, 9, points, 3, 5, 2)
	var paths []string
	for i, b := range csvs {
		p := filepath.Join(dir, "out."+string(rune('0'+i))+".csv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	dst := filepath.Join(dir, "out.csv")
	if err := MergeFiles(dst, 12, paths...); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	if !bytes.Equal(got, want) {
		t.Fatal("MergeFiles output differs from the unsplit run")
	}
	err := MergeFiles(dst, 0, paths[0], paths[2])
	if err == nil || !strings.Contains(err.Error(), "3 of 5 shards missing: 1,3,4 (resubmit with --array=1,3,4)") {
		t.Fatalf("missing shard error %v should name the missing shards", err)
	}
	// Issue 22: a failed merge keeps the file that was there before (the
	// first merge's output) and leaves no temporary file.
	if b, _ := os.ReadFile(dst); !bytes.Equal(b, want) {
		t.Fatal("failed merge changed the previous output")
	}
	if es, _ := os.ReadDir(dir); len(es) != len(paths)+1 {
		t.Fatalf("failed merge left %d files in the folder, want %d", len(es), len(paths)+1)
	}
	for _, tc := range []struct {
		dst  string
		srcs []string
		want string
	}{
		{filepath.Join(dir, "m.txt"), paths, `output "` + filepath.Join(dir, "m.txt") + `": unknown format`},
		{filepath.Join(dir, "m.csv"), []string{filepath.Join(dir, "in.json")}, `input "` + filepath.Join(dir, "in.json") + `": unknown format`},
		{filepath.Join(dir, "m.jsonl"), paths, "is csv but output"},
		{paths[0], paths, "is also an input"},
		{filepath.Join(dir, "m.csv"), []string{filepath.Join(dir, "nope.csv")}, "nope.csv"},
	} {
		if err := MergeFiles(tc.dst, 0, tc.srcs...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("MergeFiles(%s): %v, want %q", tc.dst, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(paths[0]); !bytes.Equal(b, csvs[0]) {
		t.Fatal("MergeFiles clobbered an input")
	}
}

func TestFormatOf(t *testing.T) {
	for in, want := range map[string]Format{"a.csv": FormatCSV, "B.CSV": FormatCSV, "x.jsonl": FormatJSONL, "y.ndjson": FormatJSONL} {
		if got, err := FormatOf(in); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := FormatOf("z.json"); err == nil || !strings.Contains(err.Error(), "z.json") {
		t.Errorf("FormatOf(z.json) = %v", err)
	}
}

// fuzzInputs splits data at NUL bytes into up to 4 inputs.
func fuzzInputs(data []byte) [][]byte {
	parts := bytes.SplitN(data, []byte{0}, 4)
	return parts
}

func fuzzMerge(t *testing.T, f Format, data []byte) {
	in := fuzzInputs(data)
	out, err := mergeBytes(t, f, 0, in)
	if err != nil {
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		return
	}
	// A successful merge is a complete sweep: merging it alone, or split
	// back into its round-robin shards, gives the same bytes.
	again, err := mergeBytes(t, f, 0, [][]byte{out, nil})
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("re-merge of merged output: %v", err)
	}
	total := 0
	for _, b := range in {
		total += len(b)
	}
	if len(out) > total {
		t.Fatalf("merged output (%d bytes) larger than inputs (%d)", len(out), total)
	}
}

func seedMergeCorpus(f *testing.F, pick func(c, j []byte) []byte) {
	points := testPoints(3)
	csvs, jsons := shardOutputs(f, 1, points, 2, 3, 1)
	var all []byte
	for i := range csvs {
		if i > 0 {
			all = append(all, 0)
		}
		all = append(all, pick(csvs[i], jsons[i])...)
	}
	f.Add(all)
	f.Add([]byte("item,point,rep,seed,\"a\"\"b\"\n\"0\",0,0,0,\"x\ny\"\n"))
	f.Add([]byte("{\"item\":0,\"a\":[1,{\"b\":2}]}\n\x00{\"item\":1,\"a\":null}\n"))
	f.Add([]byte(""))
}

func FuzzMergeCSV(f *testing.F) {
	seedMergeCorpus(f, func(c, _ []byte) []byte { return c })
	f.Fuzz(func(t *testing.T, data []byte) { fuzzMerge(t, FormatCSV, data) })
}

func FuzzMergeJSONL(f *testing.F) {
	seedMergeCorpus(f, func(_, j []byte) []byte { return j })
	f.Fuzz(func(t *testing.T, data []byte) { fuzzMerge(t, FormatJSONL, data) })
}

func TestMergeCheck(t *testing.T) {
	// Sanity for the fuzz seeds: a quoted first field that is canonical
	// after unquoting is accepted and kept byte for byte.
	in := []byte("item,point,rep,seed\n\"0\",0,0,0\n")
	out, err := mergeBytes(t, FormatCSV, 1, [][]byte{in})
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("%q, %v", out, err)
	}
}

// TestMergeRefusesEmpty: an empty file, a header alone (a run interrupted
// before its first row) or a truncated last row never merge with success,
// and the error names the file.
func TestMergeRefusesEmpty(t *testing.T) {
	dir := t.TempDir()
	full, _ := runToBytes(t, Options{Seed: 1}, testPoints(3), 2)
	header := full[:bytes.IndexByte(full, '\n')+1]
	for name, b := range map[string][]byte{
		"empty.csv":     nil,
		"header.csv":    header,
		"truncated.csv": full[:len(full)-3],
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := MergeFiles(filepath.Join(dir, "out.csv"), 0, p)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	// Several inputs, all empty.
	if _, err := mergeBytes(t, FormatJSONL, 0, [][]byte{nil, nil}); err == nil || !strings.Contains(err.Error(), "no item") {
		t.Errorf("all-empty inputs: %v", err)
	}
	// A run interrupted at its end is caught when the count is given.
	cut := full[:bytes.LastIndexByte(full[:len(full)-1], '\n')+1]
	if _, err := mergeBytes(t, FormatCSV, 6, [][]byte{cut}); err == nil || !strings.Contains(err.Error(), "item 5 is missing from input #0") {
		t.Errorf("interrupted run with expect: %v", err)
	}
}

// TestMergeFilesLoneUnsplitInput: an unsplit run's output has no end
// line, so alone it merges only with the item count it must hold (an
// interruption at its end looks complete otherwise); a negative count is
// refused. Both refusals are usage errors that write nothing.
func TestMergeFilesLoneUnsplitInput(t *testing.T) {
	dir := t.TempDir()
	full, _ := runToBytes(t, Options{Seed: 1}, testPoints(3), 2)
	p, dst := filepath.Join(dir, "full.csv"), filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, full, 0o644); err != nil {
		t.Fatal(err)
	}
	for expect, want := range map[int]string{0: "without a shard end line", -1: "-1 must be >= 0"} {
		if err := MergeFiles(dst, expect, p); !usage.Is(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("expect %d: %v, want a usage error saying %q", expect, err, want)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Fatalf("expect %d: a refused merge wrote %s", expect, dst)
		}
	}
	if err := MergeFiles(dst, bytes.Count(full, []byte("\n"))-1, p); err != nil { // a header and one line per item
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, full) {
		t.Fatal("a lone unsplit input with its count does not merge to itself")
	}
}
