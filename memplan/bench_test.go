package memplan

import (
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
)

func BenchmarkPlanAppSLANT(b *testing.B) {
	app, _ := profile.Builtin("slant")
	o := DefaultAppPlanOptions(app)
	for b.Loop() {
		if _, err := PlanApp(app, nil, o); err != nil {
			b.Fatal(err)
		}
	}
}
