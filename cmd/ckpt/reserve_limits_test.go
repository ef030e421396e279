package main

import (
	"math"
	"regexp"
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
	if !(p.ExpectedCost > free.ExpectedCost) || !strings.Contains(js, `"max_request_s": 3900`) || !strings.Contains(js, `"margin_s": 18`) || !strings.Contains(js, `"granularity_s": 60`) {
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
		{[]string{"--max-request", "20m", "--dist", "uniform:a=10h,b=20h"}, "within 20m00s"},
		{[]string{"--profile", "slant", "--max-request", "1m"}, "--max-request"},
		{[]string{"--profile", "slant", "--slurm"}, "--slurm"},
	} {
		out, errOut, code := run(t, "", append([]string{"reserve", "--no-baselines"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, errOut, c.want)
		}
	}
}

// reserve --sbatch plans under the MaxTime of the partition the chain
// goes to (it was refused with "plan with shorter reservations"): every
// --time within it, in whole minutes; --slurm=false keeps the paper's
// continuous lengths, under the same bound.
func TestReserveSbatchPlansUnderMaxTime(t *testing.T) {
	fakeSinfo(t, "echo 'debug*|1:00:00|100000'; echo 'long|infinite|100000'")
	base := []string{"reserve", "--dist", "lognormal:mean=2h,sd=1h", "--ckpt", "2m", "--restart", "1m", "--n", "800", "--no-baselines", "--sbatch", "job.sh"}
	out, errOut, code := run(t, "", base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	times := regexp.MustCompile(`--time=(\d\d):(\d\d):(\d\d)`).FindAllStringSubmatch(out, -1)
	if len(times) == 0 {
		t.Fatalf("no --time in\n%s", out)
	}
	for _, m := range times {
		if m[1] > "01" || m[1] == "01" && (m[2] != "00" || m[3] != "00") || m[3] != "00" {
			t.Errorf("--time=%s:%s:%s beyond the partition's hour or not whole minutes", m[1], m[2], m[3])
		}
	}
	// --slurm=false: the paper's continuous lengths, still within MaxTime.
	if cont, errOut, code := run(t, "", append(base, "--slurm=false")...); code != 0 || cont == out || !regexp.MustCompile(`# reservation 1 of \d+: \d+m\d\ds`).MatchString(cont) {
		t.Errorf("--slurm=false: exit %d, %q\n%s", code, errOut, cont)
	}
	if out, errOut, code := run(t, "", append(base, "--sbatch-arg=--partition=long")...); code != 0 || !strings.Contains(out, "--time=01:") && !strings.Contains(out, "--time=02:") {
		t.Errorf("unlimited partition: exit %d, %q", code, errOut)
	}
}
