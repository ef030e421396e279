package repro

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

func TestComparisons(t *testing.T) {
	cs := []Comparison{
		{Experiment: "T", Quantity: "a", Paper: 2, Ours: 2.5, Note: "n, with comma"},
		{Experiment: "T", Quantity: "b", Paper: math.NaN(), Ours: 1},
		{Experiment: "T", Quantity: "c", Paper: 0, Ours: 1},
	}
	if d, r := cs[0].Diff(), cs[0].RelDiff(); d != 0.5 || r != 0.25 {
		t.Errorf("diff %v rel %v", d, r)
	}
	if !math.IsNaN(cs[1].RelDiff()) || !math.IsNaN(cs[2].RelDiff()) {
		t.Error("relative difference defined without a published number")
	}
	path := filepath.Join(t.TempDir(), "c.csv")
	if err := WriteComparisons(path, cs); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 4 || rows[1][6] != "n, with comma" || rows[2][2] != "" || rows[1][5] != "0.25" {
		t.Fatalf("rows %q, %v", rows, err)
	}
	var b bytes.Buffer
	PrintComparisons(&b, "Title", cs)
	if !strings.Contains(b.String(), "+0.5 (+25.0%)") {
		t.Errorf("table:\n%s", b.String())
	}
}

func TestTableAndSteps(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Log: &bytes.Buffer{}}
	tb, err := cfg.NewTable("x.csv", "a", "b", "c", "d")
	if err != nil {
		t.Fatal(err)
	}
	tb.Row(1.5, 2, true, math.NaN())
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "x.csv"))
	if string(got) != "a,b,c,d\n1.5,2,true,\n" {
		t.Errorf("table %q", got)
	}
	var order []string
	steps := []Step{
		{"one", func(context.Context) ([]Comparison, error) {
			order = append(order, "one")
			return []Comparison{{Experiment: "E", Quantity: "q", Paper: 1, Ours: 1}}, nil
		}},
		{"two", func(context.Context) ([]Comparison, error) { order = append(order, "two"); return nil, nil }},
	}
	if err := RunSteps(context.Background(), cfg, steps); err != nil || strings.Join(order, ",") != "one,two" {
		t.Fatalf("order %v err %v", order, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "comparisons.csv")); err != nil {
		t.Error(err)
	}
	failing := []Step{{"bad", func(context.Context) ([]Comparison, error) { return nil, errors.New("boom") }}}
	if err := RunSteps(context.Background(), cfg, failing); err == nil || !strings.Contains(err.Error(), "bad: boom") {
		t.Errorf("error %v", err)
	}
}

// DataPath reads the folder of Config.Data before $CKPT_DATA, refuses a
// Data that is not a folder naming it, and names a missing file with its
// folder.
func TestDataPath(t *testing.T) {
	flag, env := t.TempDir(), t.TempDir()
	for _, d := range []string{flag, env} {
		if err := os.MkdirAll(filepath.Join(d, "swf"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(datadir.Env, env)
	if p, err := (Config{Data: flag}).DataPath("swf"); err != nil || p != filepath.Join(flag, "swf") {
		t.Errorf("Data set: %q, %v; want %q", p, err, filepath.Join(flag, "swf"))
	}
	if p, err := (Config{}).DataPath("swf"); err != nil || p != filepath.Join(env, "swf") {
		t.Errorf("Data empty: %q, %v; want $%s's %q", p, err, datadir.Env, filepath.Join(env, "swf"))
	}
	bad := filepath.Join(flag, "absent")
	if _, err := (Config{Data: bad}).DataPath("swf"); !errors.Is(err, datadir.ErrNotFound) || !strings.Contains(err.Error(), bad) {
		t.Errorf("Data %q: %v; want an error naming it", bad, err)
	}
	if _, err := (Config{Data: flag}).DataPath("swf", "x.swf"); !errors.Is(err, datadir.ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(flag, "swf", "x.swf")) {
		t.Errorf("missing file: %v; want an error naming it", err)
	}
}
