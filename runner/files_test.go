package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/usage"
)

// CheckOutputs against its rule counted directly: the rows go somewhere,
// and at most one output is stdout; every refusal is a usage error.
func TestCheckOutputs(t *testing.T) {
	for _, csv := range []string{"", "-", "o.csv"} {
		for _, jsonl := range []string{"", "-", "o.jsonl"} {
			for _, asJSON := range []bool{false, true} {
				stdout, some := 0, asJSON || csv != "" || jsonl != ""
				for _, on := range []bool{csv == "-", jsonl == "-", asJSON} {
					if on {
						stdout++
					}
				}
				err := CheckOutputs(csv, jsonl, asJSON)
				if want := !some || stdout > 1; (err != nil) != want || err != nil && !usage.Is(err) {
					t.Errorf("CheckOutputs(%q, %q, %v) = %v, want an error: %v", csv, jsonl, asJSON, err, want)
				}
			}
		}
	}
}

// WithOutputs writes the rows of a sweep to both files as CreateOutputs and
// Run do by hand, leaves *sink alone without paths, and returns the
// sweep's own error.
func TestWithOutputs(t *testing.T) {
	dir := t.TempDir()
	cp, jp := dir+"/o.csv", dir+"/o.jsonl"
	var sink Sink[outcome]
	n, err := WithOutputs(nil, cp, jp, &sink, func() (int, error) {
		return 3, Run(context.Background(), Options{Seed: 2}, testPoints(3), 2, sweepFn, sink)
	})
	if n != 3 || err != nil {
		t.Fatalf("WithOutputs: %d, %v", n, err)
	}
	wantC, wantJ := runToBytes(t, Options{Seed: 2}, testPoints(3), 2)
	gotC, _ := os.ReadFile(cp)
	gotJ, _ := os.ReadFile(jp)
	if !bytes.Equal(gotC, wantC) || !bytes.Equal(gotJ, wantJ) {
		t.Fatal("files differ from in-memory outputs")
	}
	sink = nil
	boom := errors.New("boom")
	if _, err := WithOutputs(nil, "", "", &sink, func() (int, error) { return 0, boom }); err != boom || sink != nil {
		t.Fatalf("no paths: %v, sink %v", err, sink)
	}
	if _, err := WithOutputs(nil, dir+"/no/such/dir.csv", "", &sink, func() (int, error) { t.Fatal("ran without its file"); return 0, nil }); err == nil {
		t.Fatal("a file that cannot be created was accepted")
	}
}

// A sweep that fails after some rows leaves the previous files as they
// were (it emptied them when CreateOutputs wrote in place), keeps its
// whole rows beside them as PATH.partial, says so in its error, and leaves
// no temporary file; a successful one replaces them.
func TestWithOutputsKeepsOldFilesOnFailure(t *testing.T) {
	dir := t.TempDir()
	cp, jp := filepath.Join(dir, "o.csv"), filepath.Join(dir, "o.jsonl")
	for _, p := range []string{cp, jp} {
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	var sink Sink[outcome]
	first := make(chan struct{}) // item 0 reached the sink
	_, err := WithOutputs(nil, cp, jp, &sink, func() (int, error) {
		return 0, Run(context.Background(), Options{Seed: 2, Workers: 1}, testPoints(3), 2, func(ctx context.Context, it Item[param]) (outcome, error) {
			if it.K == 4 {
				<-first
				return outcome{}, boom
			}
			return sweepFn(ctx, it)
		}, Tee(sink, SinkFunc[outcome](func(r Result[outcome]) error {
			if r.K == 0 {
				close(first)
			}
			return nil
		})))
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), cp+".partial and "+jp+".partial") {
		t.Fatalf("err = %v", err)
	}
	for _, p := range []string{cp, jp} {
		if b, _ := os.ReadFile(p); string(b) != "old\n" {
			t.Errorf("%s became %q", p, b)
		}
	}
	wantC, _ := runToBytes(t, Options{Seed: 2}, testPoints(3), 2)
	gotC, _ := os.ReadFile(cp + ".partial")
	if n := bytes.Count(gotC, []byte("\n")); n < 2 || n > 5 || !bytes.HasPrefix(wantC, gotC) || gotC[len(gotC)-1] != '\n' {
		t.Errorf("partial rows %q, want the header and the rows of items 0 to at most 3", gotC)
	}
	if es, _ := os.ReadDir(dir); len(es) != 4 {
		t.Errorf("%d files left, want the 2 old ones and the 2 partial ones", len(es))
	}
	if _, err := WithOutputs(nil, cp, "", &sink, func() (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cp); len(b) != 0 {
		t.Errorf("a successful sweep of no rows left %q", b)
	}
}

// The paths are checked before any file is made: the same file under two
// spellings, a missing folder (usage errors naming the flag), a folder (an
// error naming the flag, as for a file that cannot be created).
func TestCreateOutputsChecksPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("adir.jsonl", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ csv, jsonl, want string }{
		{"same.out", "./same.out", `--csv "same.out" and --jsonl "./same.out" are the same file`},
		{"same.out", filepath.Join(dir, "same.out"), "are the same file"},
		{"no/o.csv", "", `--csv "no/o.csv": the folder no does not exist`},
		{"o.csv", "adir.jsonl", `--jsonl "adir.jsonl": is a folder`},
		{"x", "x.partial", `--csv "x" and --jsonl "x.partial" clash: a failed run writes x.partial`},
		{"./x.jsonl.prev", "x.jsonl", `--jsonl "x.jsonl" and --csv "./x.jsonl.prev" clash: a failed run writes x.jsonl.prev`},
	} {
		_, _, err := CreateOutputs[outcome](nil, tc.csv, tc.jsonl)
		if err == nil || usage.Is(err) == strings.Contains(tc.want, "is a folder") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CreateOutputs(%q, %q): %v, want a usage error %q", tc.csv, tc.jsonl, err, tc.want)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries, want only adir.jsonl", len(es))
	}
	os.Symlink("no/such/folder/o.csv", "link.csv")
	if _, _, err := CreateOutputs[outcome](nil, "link.csv", ""); err == nil || strings.Count(err.Error(), "link.csv") != 1 {
		t.Errorf("CreateOutputs(link to a missing folder): %v, want an error naming link.csv once", err)
	}
}

// A shard run that fails moves an earlier run's complete shard output at
// its path to PATH.prev (it kept it, and merge took it for this run's
// shard, mixing two runs), and says so; a failed unsplit run keeps an
// unsplit output (TestWithOutputsKeepsOldFilesOnFailure).
func TestWithOutputsMovesAnEarlierShardAside(t *testing.T) {
	dir := t.TempDir()
	s0, s1 := filepath.Join(dir, "s.0.csv"), filepath.Join(dir, "s.1.csv")
	for i, p := range []string{s0, s1} {
		var sink Sink[outcome]
		opts := Options{Seed: 1, Shard: Shard{i, 2}}
		if _, err := WithOutputs(nil, p, "", &sink, func() (int, error) {
			return 0, Run(context.Background(), opts, testPoints(3), 2, sweepFn, sink)
		}); err != nil {
			t.Fatal(err)
		}
	}
	old, _ := os.ReadFile(s1)
	boom := errors.New("boom")
	var sink Sink[outcome]
	_, err := WithOutputs(nil, s1, "", &sink, func() (int, error) { return 0, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "moved to "+s1+".prev") || !strings.Contains(PartialNote(err), s1+".prev") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(s1 + ".prev"); !bytes.Equal(b, old) {
		t.Fatalf("%s.prev holds %q, want the earlier shard", s1, b)
	}
	if err := MergeFiles(filepath.Join(dir, "m.csv"), 0, s0, s1); err == nil {
		t.Fatal("merge accepted an earlier run's shard")
	}
}
