package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
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
