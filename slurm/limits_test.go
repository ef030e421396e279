package slurm

import (
	"math"
	"strings"
	"testing"
)

func TestCheckLimits(t *testing.T) {
	parts, err := ParseSinfo("debug*|1:00:00|24105\ngpu|2-00:00:00|64000\ngpu|2-00:00:00|32000\nlong|infinite|100000+\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || !parts[0].Default || parts[0].MaxTime != 3600 || parts[1].MaxTime != 2*86400 || parts[1].MemMB != 32000 || !math.IsInf(parts[2].MaxTime, 1) {
		t.Fatalf("%+v", parts)
	}
	c := Chain{Job: "j", Steps: []Step{{Time: 3599}, {Time: 3601, Mem: "40G"}}}
	if err := CheckLimits(c, parts); err == nil || !strings.Contains(err.Error(), "reservation 2 needs --time=01:01:00 but partition debug allows at most 01:00:00") {
		t.Errorf("MaxTime: %v", err)
	}
	c.Extra = []string{"--partition=gpu"}
	if err := CheckLimits(c, parts); err == nil || !strings.Contains(err.Error(), "--mem=40G but the nodes of partition gpu have 32000 MiB") {
		t.Errorf("memory: %v", err)
	}
	c.Extra = []string{"-plong"}
	if err := CheckLimits(c, parts); err != nil {
		t.Errorf("long: %v", err)
	}
	c.Extra = []string{"--partition=nope"}
	if err := CheckLimits(c, parts); err == nil {
		t.Error("unknown partition accepted")
	}
	if _, err := ParseSinfo("garbage"); err == nil {
		t.Error("garbage accepted")
	}
}

func TestParseCPUs(t *testing.T) {
	if n, err := parseCPUs("3/5/0/8\n"); n != 8 || err != nil {
		t.Errorf("%d, %v", n, err)
	}
	for _, bad := range []string{"", "8", "1/2/3/x", "0/0/0/0"} {
		if n, err := parseCPUs(bad); err == nil {
			t.Errorf("%q: %d", bad, n)
		}
	}
}
