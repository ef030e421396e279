package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// --fta: E(Y) of a 1 h task on 64 Grid'5000 nodes is 64·Te/node MTBF, the
// node MTBF (32.51 h) counted independently from the event trace with awk
// (ΣUp/ΣFailures) when the reader was written.
func TestIntervalFTA(t *testing.T) {
	t.Parallel()
	dir := datadirtest.ForTest(t, "failures", "grid5k_fta_event_trace.tab.gz")
	dir = filepath.Dir(dir)
	out, errb, code := run(t, "", "interval", "--te", "1h", "--ckpt", "1m", "--fta", dir, "--nodes", "64", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var got struct {
		EY   float64 `json:"expected_failures"`
		MTBF float64 `json:"mtbf_s"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := 64 * 3600 / (32.51 * 3600)
	if math.Abs(got.EY-want)/want > 0.001 {
		t.Fatalf("E(Y) = %v, want %v (64 x 1 h / 32.51 h)", got.EY, want)
	}
	for _, args := range [][]string{
		{"interval", "--te", "1h", "--ckpt", "1m", "--nodes", "4", "--mtbf", "1h"},
		{"interval", "--te", "1h", "--ckpt", "1m", "--fta", dir, "--nodes", "0"},
		{"interval", "--te", "1h", "--ckpt", "1m", "--fta", dir, "--mtbf", "1h"},
		{"interval", "--te", "1h", "--ckpt", "1m", "--fta", dir, "--lanl", "x.csv"},
	} {
		if _, errb, code := run(t, "", args...); code != 2 || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
}
