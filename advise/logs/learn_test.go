package logs

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/advise"
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
