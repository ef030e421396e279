package repro

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// squares is a reproduction of one sweep: it writes the squares of 0..9,
// each plus its item's seed modulo 7, to squares.csv.
func squares(ctx context.Context, cfg Config) error {
	var rs []runner.Result[int]
	fn := func(_ context.Context, it runner.Item[int]) (int, error) {
		return it.Param*it.Param + int(it.Seed%7), nil
	}
	points := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if err := runner.Run(ctx, cfg.RunnerOptions("squares", 3), points, 1, fn, runner.Collect(&rs)); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(strconv.Itoa(r.Value) + "\n")
	}
	p, err := cfg.Path("squares.csv")
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(b.String()), 0o644)
}

// TestItemsShardsFinishToTheWholeBytes: recording two shards, merging
// them and finishing writes the bytes of the whole run; a shard writes no
// outputs.
func TestItemsShardsFinishToTheWholeBytes(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if err := (Items{}).Run(ctx, Config{Dir: filepath.Join(dir, "whole")}, squares, nil); err != nil {
		t.Fatal(err)
	}
	var logs []string
	for i := range 2 {
		p := filepath.Join(dir, "part"+strconv.Itoa(i)+".jsonl")
		var log bytes.Buffer
		it := Items{Shard: strconv.Itoa(i) + "/2", ItemLog: p}
		if err := it.Run(ctx, Config{Dir: filepath.Join(dir, "shard")}, squares, &log); err != nil {
			t.Fatal(err)
		}
		if want := "5 of the 10 items of 1 sweeps recorded"; !strings.Contains(log.String(), want) {
			t.Errorf("shard %d log %q lacks %q", i, log.String(), want)
		}
		logs = append(logs, p)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard")); !os.IsNotExist(err) {
		t.Fatalf("a shard wrote outputs: %v", err)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if err := runner.MergeFiles(merged, 0, logs...); err != nil {
		t.Fatal(err)
	}
	if err := (Items{Finish: merged}).Run(ctx, Config{Dir: filepath.Join(dir, "fin")}, squares, nil); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(filepath.Join(dir, "whole", "squares.csv"))
	fin, err := os.ReadFile(filepath.Join(dir, "fin", "squares.csv"))
	if err != nil || len(whole) == 0 || !bytes.Equal(whole, fin) {
		t.Fatalf("finished %q (%v), whole %q", fin, err, whole)
	}
	// Finishing from one shard's log alone fails, naming --finish.
	err = (Items{Finish: logs[0]}).Run(ctx, Config{Dir: filepath.Join(dir, "half")}, squares, nil)
	if err == nil || !strings.Contains(err.Error(), "--finish") {
		t.Fatalf("finish from half the items: %v", err)
	}
}

func TestItemsValidate(t *testing.T) {
	for _, c := range []struct {
		it   Items
		want string // "" for valid
	}{
		{Items{}, ""},
		{Items{Shard: "1/3", ItemLog: "a.jsonl"}, ""},
		{Items{ItemLog: "a.jsonl"}, ""},
		{Items{Finish: "m.jsonl"}, ""},
		{Items{Shard: "3/3", ItemLog: "a.jsonl"}, "--shard"},
		{Items{Shard: "0/2"}, "needs --items"},
		{Items{Shard: "0/2", ItemLog: "a.csv"}, "JSON lines"},
		{Items{ItemLog: "a.jsonl", Finish: "m.jsonl"}, "give one of them"},
		{Items{Shard: "0/2", Finish: "m.jsonl"}, "takes no --shard"},
	} {
		err := c.it.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.it, err)
			}
			continue
		}
		if err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error naming %q", c.it, err, c.want)
		}
	}
	// A missing merged log is the caller's input: a usage error naming it.
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	err := (Items{Finish: missing}).Run(context.Background(), Config{Dir: t.TempDir()}, squares, nil)
	if !usage.Is(err) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing --finish log: %v", err)
	}
}

func TestReadComparisons(t *testing.T) {
	dir := t.TempDir()
	cs := []Comparison{{Experiment: "Table 2", Quantity: "cost", Paper: 41.54, Ours: 39.74, Note: "optimum"}, {Experiment: "Fig. 5", Quantity: "ratio", Paper: math.NaN(), Ours: 1.25}}
	if err := WriteComparisons(filepath.Join(dir, "comparisons.csv"), cs); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadComparisons(dir)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v, %+v", err, rows)
	}
	if r := rows[0]; r.Experiment != "Table 2" || float64(r.Paper) != 41.54 || float64(r.Ours) != 39.74 || float64(r.Diff) != -1.8 || r.Note != "optimum" {
		t.Errorf("row 0 %+v", r)
	}
	if r := rows[1]; r.Paper == r.Paper || float64(r.Ours) != 1.25 || r.RelDiff == r.RelDiff {
		t.Errorf("row 1 %+v: want NaN paper and relative difference", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "comparisons.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadComparisons(dir); err == nil || !strings.Contains(err.Error(), "comparisons.csv:2: 2 fields, want 7") {
		t.Errorf("short row: %v", err)
	}
}
