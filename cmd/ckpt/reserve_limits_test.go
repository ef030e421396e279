package main

import (
	"math"
	"strings"
	"testing"
)

// --max-request bounds every reservation, --slurm plans in whole minutes
// with C + --margin per checkpoint, and the report shows both.
func TestReserveMaxRequestAndSlurm(t *testing.T) {
	args := []string{"reserve", "--dist", "lognormal:mean=2h,sd=1h", "--ckpt", "2m", "--restart", "1m", "--n", "800", "--no-baselines"}
	js, errOut, code := run(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	free := decodePlan(t, js)
	first := free.Reservations[0].Length
	js, errOut, code = run(t, "", append(args, "--json", "--slurm", "--max-request", "01:05:00")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := decodePlan(t, js)
	if !(first > 3900) {
		t.Fatalf("the free plan's first reservation, %v s, should exceed the bound", first)
	}
	for i, r := range p.Reservations {
		if r.Length > 3900 || math.Mod(r.Length, 60) != 0 {
			t.Errorf("reservation %d: %v s, want whole minutes within 3900 s", i+1, r.Length)
		}
	}
	if !(p.ExpectedCost > free.ExpectedCost) || !strings.Contains(js, `"max_request_s": 3900`) || !strings.Contains(js, `"margin_s": 16`) || !strings.Contains(js, `"granularity_s": 60`) {
		t.Errorf("bounded plan %v vs free %v:\n%s", p.ExpectedCost, free.ExpectedCost, js)
	}
	out, _, code := run(t, "", append(args, "--slurm", "--margin", "30s", "--max-request", "90m")...)
	if code != 0 || !strings.Contains(out, "limits: every reservation at most 1h30m; a checkpoint reserves C + 30.0s") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

// Malformed limits are refused in one line naming the flag.
func TestReserveLimitsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-request", "0"}, "--max-request"},
		{[]string{"--max-request", "-1h"}, "--max-request"},
		{[]string{"--max-request", "abc"}, "--max-request"},
		{[]string{"--max-request", "NaN"}, "--max-request"},
		{[]string{"--max-request", "1e308"}, "--max-request"},
		{[]string{"--max-request", "30s", "--slurm"}, "--max-request"},
		{[]string{"--margin", "10s"}, "--margin does not apply without --slurm"},
		{[]string{"--slurm", "--margin", "-1s"}, "--margin"},
		{[]string{"--slurm", "--margin", "1e308"}, "--margin"},
		{[]string{"--max-request", "1h", "--dist", "uniform:a=10h,b=20h"}, "within 1h00m"},
		{[]string{"--profile", "slant", "--max-request", "1h"}, "--max-request"},
	} {
		out, errOut, code := run(t, "", append([]string{"reserve", "--no-baselines"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, errOut, c.want)
		}
	}
}
