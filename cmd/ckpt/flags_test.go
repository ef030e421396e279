package main

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/units"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// durationListFlag reads list as --name is read: through parsedVar with
// durationList, and the root's flag error hook.
func durationListFlag(name, list string) ([]float64, error) {
	var v []float64
	fl := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	parsedVar(fl, &v, name, "", "", durationList)
	if err := fl.Parse([]string{"--" + name + "=" + list}); err != nil {
		return nil, flagError(nil, err)
	}
	return v, nil
}

// flagErr checks what every flag helper's refusal must be: a usage error
// (exit 2), one line, naming the flag.
func flagErr(t *testing.T, name string, err error) {
	t.Helper()
	if !inputerr.Is(err) {
		t.Fatalf("error %v is not a usage error", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "--"+name+": ") {
		t.Fatalf("error %q should be one line starting with --%s", msg, name)
	}
}

// FuzzDurationFlags: both duration helpers accept exactly what
// units.ParseSeconds accepts within its range, return a finite value in
// that range, and refuse with a one-line usage error naming the flag.
func FuzzDurationFlags(f *testing.F) {
	for _, s := range []string{"600", "10m", "01:30:00", "1-00", "0", "-5", "NaN", "1e400", "", "1e301y", "2d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, perr := units.ParseSeconds(s)
		for _, h := range []struct {
			fn func(string, string) (float64, error)
			ok func(float64) bool
		}{
			{nonNegDurationFlag, func(v float64) bool { return v >= 0 }},
			{positiveDurationFlag, func(v float64) bool { return v > 0 }},
		} {
			v, err := h.fn("te", s)
			if err != nil {
				flagErr(t, "te", err)
				if perr == nil && h.ok(want) {
					t.Fatalf("%q refused (%v) though it is %v s", s, err, want)
				}
				continue
			}
			if perr != nil || v != want || math.IsNaN(v) || math.IsInf(v, 0) || !h.ok(v) {
				t.Fatalf("%q accepted as %v (ParseSeconds: %v, %v)", s, v, want, perr)
			}
		}
	})
}

// FuzzDurationListFlag (--ckpt 1m,5m, --local C,R): an accepted list has
// one finite non-negative value per comma-separated field, each what
// ParseSeconds reads from the field, in order; empty and repeated items
// are refused.
func FuzzDurationListFlag(f *testing.F) {
	for _, s := range []string{"1m,5m", "60, 300", "10m,10m", "1m,,2m", "", ",", "00:10:00,1-00", "-1", "1m,NaN", "5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := durationListFlag("ckpt", s)
		if err != nil {
			flagErr(t, "ckpt", err)
			return
		}
		fields := strings.Split(s, ",")
		if len(vs) != len(fields) {
			t.Fatalf("%q: %d values from %d fields", s, len(vs), len(fields))
		}
		seen := map[string]bool{}
		for i, fl := range fields {
			fl = strings.TrimSpace(fl)
			if fl == "" || seen[fl] {
				t.Fatalf("%q: empty or repeated item %q accepted", s, fl)
			}
			seen[fl] = true
			want, err := units.ParseSeconds(fl)
			if err != nil || vs[i] != want || !(vs[i] >= 0) || math.IsInf(vs[i], 0) {
				t.Fatalf("%q: item %d = %v, ParseSeconds(%q) = %v, %v", s, i, vs[i], fl, want, err)
			}
		}
	})
}

// FuzzBandwidthAndListFlags: --bandwidth accepts only finite positive
// values that ParseBandwidth reads; --strategies-style lists give one
// distinct trimmed name per field.
func FuzzBandwidthAndListFlags(f *testing.F) {
	for _, s := range []string{"40GB/s", "0", "-1G", "1e400", "a,b", "a,a", " x ", "", "lazy,greedy,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := bandwidthFlag("bandwidth", s); err != nil {
			flagErr(t, "bandwidth", err)
		} else if want, perr := units.ParseBandwidth(s); perr != nil || b != want || !(b > 0) || math.IsInf(b, 0) {
			t.Fatalf("--bandwidth %q accepted as %v", s, b)
		}
		names, err := listFlag("strategies", s)
		if err != nil {
			flagErr(t, "strategies", err)
			return
		}
		fields := strings.Split(s, ",")
		if len(names) != len(fields) {
			t.Fatalf("%q: %d names from %d fields", s, len(names), len(fields))
		}
		seen := map[string]bool{}
		for i, n := range names {
			if n == "" || n != strings.TrimSpace(fields[i]) || seen[n] {
				t.Fatalf("%q: name %d is %q", s, i, n)
			}
			seen[n] = true
		}
	})
}

func TestFlagHelpersRefuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"te", func() error { _, err := positiveDurationFlag("te", "0"); return err }()},
		{"ckpt", func() error { _, err := nonNegDurationFlag("ckpt", "-1m"); return err }()},
		{"ckpt", func() error { _, err := durationListFlag("ckpt", "1m,1m"); return err }()},
		{"local", func() error { _, err := durationListFlag("local", "1m,,2m"); return err }()},
		{"bandwidth", func() error { _, err := bandwidthFlag("bandwidth", "0GB/s"); return err }()},
		{"strategies", func() error { _, err := listFlag("strategies", ""); return err }()},
		{"workers", checkWorkers(-1)},
	} {
		if tc.err == nil {
			t.Errorf("--%s: accepted", tc.name)
			continue
		}
		flagErr(t, tc.name, tc.err)
	}
	if v, err := durationListFlag("ckpt", "1m, 01:30:00,1-00"); err != nil || len(v) != 3 || v[0] != 60 || v[1] != 5400 || v[2] != 86400 {
		t.Errorf("durationListFlag = %v, %v; want [60 5400 86400]", v, err)
	}
}

// TestSharedFlagDefinitions: --json, --seed and --workers have the same
// names, types and defaults in every command that defines them here.
func TestSharedFlagDefinitions(t *testing.T) {
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var js bool
	var seed uint64
	var workers int
	addJSONFlag(fl, &js)
	addSeedFlag(fl, &seed, 42)
	addWorkersFlag(fl, &workers)
	if seed != 42 || js || workers != 0 {
		t.Fatalf("defaults: json %v seed %d workers %d", js, seed, workers)
	}
	if err := fl.Parse([]string{"--json", "--seed", "7", "--workers", "3"}); err != nil {
		t.Fatal(err)
	}
	if !js || seed != 7 || workers != 3 || checkWorkers(workers) != nil {
		t.Fatalf("parsed: json %v seed %d workers %d", js, seed, workers)
	}
	if err := fl.Parse([]string{"--seed", "-1"}); err == nil {
		t.Error("--seed -1 accepted")
	}
}

// A flag read straight into a request (a textValue) refuses a bad value
// when parsed, in one line naming the flag as the helpers above do.
func TestTextValueNamesTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"interval", "--te", "abc", "--ckpt", "1", "--failures", "1"}, "ckpt: --te: invalid duration \"abc\""},
		{[]string{"interval", "--te", "10", "--ckpt", "1", "--failures", "x"}, "ckpt: --failures: want a number of failures >= 0, got \"x\""},
		{[]string{"interval", "--te", "10", "--ckpt", "1", "--restart", "1q", "--failures", "1"}, "ckpt: --restart: invalid duration \"1q\""},
		{[]string{"interval", "simulate", "--te", "10", "--ckpt", "1", "--mtbf", "-"}, "ckpt: --mtbf: invalid duration \"-\""},
		{[]string{"failures", "x", "--task", "1h1"}, "ckpt: --task: invalid duration \"1h1\""},
	} {
		_, errOut, code := run(t, "", c.args...)
		if code != 2 || !strings.HasPrefix(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// bandwidthFlag reads (used by the tests of the bandwidth grammar only) a bandwidth flag (bytes/s) that must be > 0.
func bandwidthFlag(name, v string) (float64, error) {
	b, err := units.ParseBandwidth(v)
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	if !(b > 0) {
		return 0, usagef("--%s: %s must be > 0", name, v)
	}
	return b, nil
}

// positiveDurationFlag reads a duration flag's value in seconds (> 0): the
// grammar's tests check the positive rule through it.
func positiveDurationFlag(name, v string) (float64, error) {
	s, err := positive(v)
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	return s, nil
}

// Every command's --seed help names --workers and --shard exactly when the
// command has them: it named --shard on interval simulate, iosim run,
// capacity simulate, failures and coord simulate, which have none.
func TestSeedHelpNamesItsFlags(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("seed"); f != nil && c.Name() != "repro" {
			seen++
			for _, name := range []string{"workers", "shard"} {
				if has := c.Flags().Lookup(name) != nil; has != strings.Contains(f.Usage, "--"+name) {
					t.Errorf("%s: has --%s %v, --seed's help %q", c.CommandPath(), name, has, f.Usage)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if seen < 7 {
		t.Errorf("only %d commands with --seed", seen)
	}
}
