package logs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/usage"
)

func TestLearnRequestErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Learn(ctx, LearnRequest{Model: "x", Params: advise.DefaultParams()}); err == nil {
		t.Fatal("no log accepted")
	}
	if _, err := Learn(ctx, LearnRequest{Log: "/nonexistent.swf", Model: filepath.Join(t.TempDir(), "m"), Params: advise.DefaultParams()}); err == nil {
		t.Fatal("missing log accepted")
	}
}

// An existing model keeps its parameters: asking it for others is refused,
// naming the field, and the model is left as it was (it was extended,
// exit 0, the asked prior ignored without a word).
func TestLearnExistingModelKeepsParams(t *testing.T) {
	dir := t.TempDir()
	log, model := swfLog(t, dir, 300), filepath.Join(dir, "m.model")
	ctx := context.Background()
	if _, err := Learn(ctx, LearnRequest{Log: log, Model: model, Params: advise.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(model)
	p := advise.DefaultParams()
	p.Prior = 5
	_, err := Learn(ctx, LearnRequest{Log: log, Model: model, Params: p})
	var ue *usage.Error
	if after, _ := os.ReadFile(model); !errors.As(err, &ue) || ue.Field != "prior" || !strings.Contains(err.Error(), "keeps the prior it was built with, 2") || string(after) != string(before) {
		t.Fatalf("%v", err)
	}
	if _, err := Learn(ctx, LearnRequest{Log: log, Model: model, Params: advise.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}

// A prior listed twice in Priors is refused, naming the field (the replay
// printed the same operating point twice).
func TestReplayRequestDuplicatePriors(t *testing.T) {
	err := ReplayRequest{Log: "x.swf", Params: advise.DefaultParams(), Priors: []float64{1, 4, 1}}.Validate()
	var ue *usage.Error
	if !errors.As(err, &ue) || ue.Field != "priors" || !strings.Contains(err.Error(), "1 listed twice") {
		t.Fatalf("%v", err)
	}
}
