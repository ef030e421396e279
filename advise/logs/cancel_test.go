package logs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/advise"
)

// stopAfter is a context whose Err turns context.Canceled after n calls:
// a cancel at a given point of the work, whatever the machine's speed.
type stopAfter struct {
	context.Context
	n, calls int
}

func (c *stopAfter) Err() error {
	if c.calls++; c.n >= 0 && c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// swfLog writes an SWF log of n jobs of 4 users into dir.
func swfLog(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		run, req := 100+(i*37)%900, 1000+(i%3)*500
		fmt.Fprintf(&b, "%d %d %d %d 4 -1 -1 4 %d -1 1 %d 1 %d 1 1 -1 -1\n", i, i*60, (i*13)%300, run, req, 1+i%4, 1+i%3)
	}
	path := filepath.Join(dir, "log.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Learn and replay stop at the first check after a cancel, in reading or
// in learning (the ctx was checked once, before learning, and a cancel
// during it wrote the model anyway), and leave the model file as it was.
func TestLearnReplayCancel(t *testing.T) {
	dir := t.TempDir()
	log := swfLog(t, dir, 2000)
	p := advise.DefaultParams()
	model := filepath.Join(dir, "m.model")
	all := &stopAfter{Context: context.Background(), n: -1}
	if _, err := Learn(all, LearnRequest{Log: log, Model: filepath.Join(dir, "full.model"), Params: p}); err != nil {
		t.Fatal(err)
	}
	if all.calls < 2000/1024 {
		t.Fatalf("learn checked its context %d times over 2000 jobs", all.calls)
	}
	for _, k := range []int{1, all.calls / 2, all.calls - 1} {
		ctx := &stopAfter{Context: context.Background(), n: k}
		if _, err := Learn(ctx, LearnRequest{Log: log, Model: model, Params: p}); !errors.Is(err, context.Canceled) || ctx.calls > k+3 {
			t.Fatalf("cancel at check %d of %d: %v after %d checks", k+1, all.calls, err, ctx.calls)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("cancel at check %d: the model was written", k+1)
		}
	}
	all = &stopAfter{Context: context.Background(), n: -1}
	if _, err := ReplayRun(all, ReplayRequest{Log: log, Params: p, Priors: []float64{2}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, all.calls / 2, all.calls - 1} {
		ctx := &stopAfter{Context: context.Background(), n: k}
		if _, err := ReplayRun(ctx, ReplayRequest{Log: log, Params: p, Priors: []float64{2}}); !errors.Is(err, context.Canceled) || ctx.calls > k+3 {
			t.Fatalf("replay: cancel at check %d of %d: %v after %d checks", k+1, all.calls, err, ctx.calls)
		}
	}
}
