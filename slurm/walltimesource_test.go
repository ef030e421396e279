package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/usage"
)

const sourceSacct = "JobID|State|ElapsedRaw\n1|COMPLETED|3600\n2|COMPLETED|7200\n3|TIMEOUT|9000\n4|FAILED|10\n5|COMPLETED|5400\n"

func field(err error) string {
	var ue *usage.Error
	if errors.As(err, &ue) {
		return ue.Field
	}
	return ""
}

// A state sacct never reports is refused, naming the field; it used to
// skip every run silently.
func TestHistorySourceRefusesUnknownStates(t *testing.T) {
	for _, tc := range []struct {
		src   HistorySource
		field string
	}{
		{HistorySource{Path: "-", Fit: "auto", States: []string{"BOGUS"}}, "States"},
		{HistorySource{Path: "-", Fit: "auto", Censored: []string{"TIMEOUT", "timed_out"}}, "Censored"},
	} {
		tc.src.Stdin = strings.NewReader(sourceSacct)
		_, err := tc.src.LoadWalltime(context.Background())
		if field(err) != tc.field || !strings.Contains(err.Error(), "not a Slurm job state") {
			t.Errorf("%+v: %v", tc.src, err)
		}
	}
	ok := HistorySource{Path: "-", Fit: "empirical", States: []string{"completed", "FAILED"}, Stdin: strings.NewReader(sourceSacct)}
	w, err := ok.LoadWalltime(context.Background())
	if err != nil || w.Source.Sacct.Complete != 4 || w.Source.Sacct.Censored != 1 {
		t.Errorf("lower-case states: %v %+v", err, w.Source)
	}
}

// LoadWalltime and Learn learn the same law: reserve --history and chain
// history take one path.
func TestHistorySourceLoadIsLearn(t *testing.T) {
	src := HistorySource{Path: "-", Fit: "exponential"}
	src.Stdin = strings.NewReader(sourceSacct)
	w, err := src.LoadWalltime(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	src.Stdin = strings.NewReader(sourceSacct)
	h, l, err := src.Learn()
	if err != nil {
		t.Fatal(err)
	}
	if w.Source.Spec != l.Spec || h.Complete != 3 || h.Censored != 1 || w.Source.Sacct.Skipped["state FAILED"] != 1 {
		t.Errorf("LoadWalltime %+v, Learn %+v %+v", w.Source, l, h.Runs)
	}
	// The complete runs, in job order, feed the baselines.
	if len(w.History) != 3 || w.History[0] != 3600 || w.History[2] != 5400 {
		t.Errorf("history %v", w.History)
	}
	if len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], "skipped 1 state FAILED") {
		t.Errorf("warnings %q", w.Warnings)
	}
}

// Input errors are usage errors: a missing file, states given for a plain
// list, a walltime beyond the limit.
func TestHistorySourceInputErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	huge := filepath.Join(dir, "huge.txt")
	os.WriteFile(plain, []byte("10\n20\n30\n"), 0o644)
	os.WriteFile(huge, []byte("10\n1e300\n"), 0o644)
	for _, tc := range []struct {
		src  HistorySource
		want string
	}{
		{HistorySource{Path: filepath.Join(dir, "missing.txt"), Fit: "auto"}, "missing.txt"},
		{HistorySource{Path: plain, Fit: "auto", States: []string{"COMPLETED"}}, "applies to sacct output"},
		{HistorySource{Path: huge, Fit: "auto"}, "1e+300"},
		{HistorySource{Path: plain, Fit: "nosuch"}, "nosuch"},
		{HistorySource{Fit: "auto"}, "empty"},
	} {
		_, err := tc.src.LoadWalltime(context.Background())
		if !usage.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc.src, err)
		}
	}
	var _ reservation.WalltimeSource = HistorySource{}
}
