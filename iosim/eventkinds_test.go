package iosim

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestEventKinds prints the events of one default trial (seed 1) on
// Cielo ×K by kind (CKPT_EVENT_KINDS=1; a measurement, not a check).
func TestEventKinds(t *testing.T) {
	if os.Getenv("CKPT_EVENT_KINDS") == "" {
		t.Skip("set CKPT_EVENT_KINDS=1")
	}
	sts, err := LookupList(strings.Join(DefaultStrategies(), ","), 3600)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"fail-free", "fail-job", "stop-end", "stop-ckpt", "stop-io", "stop-replan", "transfer-end", "pass-empty", "pass-start"}
	for _, virtual := range []bool{false} {
		for _, k := range []int{1, 2, 4, 8, 16} {
			var n [nEventKinds]uint64
			countEvents = &n
			c := scaledCielo(k)
			out, err := Trial(&c, sts, Options{Seed: 1, VirtualTime: virtual})
			countEvents = nil
			if err != nil {
				t.Fatal(err)
			}
			ev := out.Baseline.Events
			for _, r := range out.Runs {
				ev += r.Events
			}
			var sb strings.Builder
			fmt.Fprintf(&sb, "x%d events %d:", k, ev)
			for i, v := range n {
				fmt.Fprintf(&sb, " %s %d", names[i], v)
			}
			fmt.Fprintf(&sb, "; baseline events %d; checkpoints:", out.Baseline.Events)
			for i, r := range out.Runs {
				fmt.Fprintf(&sb, " %s %d (events %d)", sts[i].Name, r.Checkpoints, r.Events)
			}
			t.Log(sb.String())
		}
	}
}
