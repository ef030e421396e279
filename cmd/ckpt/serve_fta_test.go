package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

// serve --fta: the prior node MTBF is the Grid'5000 trace's, 32.51 h
// (ΣUp/ΣFailures counted independently with awk when the reader was
// written).
func TestServeFTAPrior(t *testing.T) {
	dir := filepath.Dir(datadir.ForTest(t, "failures", "grid5k_fta_event_trace.tab.gz"))
	f := serveFlags{bandwidth: "40GB/s", policy: "least-waste", ttl: "30s", maxTTL: "1d", nodeMTBF: "0", fta: dir}
	cfg, err := serveConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := 32.51 * 3600; math.Abs(cfg.NodeMTBF-want)/want > 0.001 {
		t.Fatalf("prior node MTBF %v s, want %v", cfg.NodeMTBF, want)
	}
	f.nodeMTBF = "1y"
	if _, err := serveConfig(f); err == nil {
		t.Fatal("--fta with --node-mtbf accepted")
	}
}
