package memplan

import (
	"context"
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
)

func BenchmarkPlanAppSLANT(b *testing.B) {
	app, _ := profile.Builtin("slant")
	o := DefaultAppPlanOptions(app)
	for b.Loop() {
		if _, err := PlanApp(context.Background(), app, nil, o); err != nil {
			b.Fatal(err)
		}
	}
}
