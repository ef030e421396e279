package memplan

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/profile"
)

// FuzzProfilePlan: a profile file either is refused with one line naming
// the file, in the file's vocabulary (no Go type), or parses into a model
// that PlanApp refuses with one line or turns into finite plans whose
// requests stay within MaxMemory.
func FuzzProfilePlan(f *testing.F) {
	f.Add("name: p\ncheckpoint: {latency: 5, bandwidth: 0.5}\ntasks:\n  - walltime: normal:mu=10m,sigma=3m\n    mem: 4\n  - walltime: normal:mu=1h,sigma=10m\n    mem: 48\n")
	f.Add("tasks:\n  - walltime: pareto:xm=100,alpha=0.9\n    mem: 1\n  - walltime: normal:mu=100,sigma=10\n    mem: 2\n")
	f.Add("tasks:\n  - walltime: discrete:600@0.25,1200@0.75\n    mem: 1e300\n")
	f.Add(`{"checkpoint": {"latency": "00:10:00", "bandwidth": "200MB/s", "restart": "1m"}, "tasks": [{"walltime": "gamma:k=2,theta=300", "mem": 3}]}`)
	f.Add("tasks:\n  - walltime: uniform:a=1e9,b=1e11\n    mem: 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := profile.Parse(strings.NewReader(in), "f.yaml")
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.yaml") || strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, "profile.") || strings.Contains(msg, "float64") || strings.Contains(msg, "yaml.Node") {
				t.Fatalf("parse error %q", msg)
			}
			return
		}
		if len(p.App.Tasks) > 8 {
			return // keep each case fast
		}
		o := DefaultAppPlanOptions(p.App)
		o.N, o.Steps = 40, 64
		if p.Checkpoint != nil {
			o.Ckpt = *p.Checkpoint
		}
		if p.Restart != nil {
			o.Restart = *p.Restart
		}
		ps, err := PlanApp(context.Background(), p.App, nil, o)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("plan error on several lines: %q", err)
			}
			return
		}
		for name, pl := range ps.Plans {
			if math.IsNaN(pl.ExpectedTime) || math.IsInf(pl.ExpectedTime, 0) || len(pl.Reservations) == 0 {
				t.Fatalf("%s: expected time %v, %d reservations", name, pl.ExpectedTime, len(pl.Reservations))
			}
			for _, r := range pl.Reservations {
				if !(r.Length >= 0) || math.IsInf(r.Length, 0) || !(r.Mem >= 0 && r.Mem <= MaxMemory) {
					t.Fatalf("%s: reservation %+v", name, r)
				}
			}
		}
	})
}
