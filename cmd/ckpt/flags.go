package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/units"
)

// The helpers below are the flag conventions every command shares: one
// duration grammar (units.ParseSeconds), one bandwidth grammar, lists that
// refuse empty and repeated items, the same names for --json, --seed and
// --workers. Each returns a usage error naming the flag and the bad value.

// durationFlag reads a duration flag's value in seconds.
func durationFlag(name, v string) (float64, error) {
	s, err := units.ParseSeconds(v)
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	return s, nil
}

// nonNegDurationFlag reads a duration that must be >= 0.
func nonNegDurationFlag(name, v string) (float64, error) {
	s, err := durationFlag(name, v)
	if err == nil && s < 0 {
		err = usagef("--%s: %s must be >= 0", name, v)
	}
	return s, err
}

// positiveDurationFlag reads a duration that must be > 0.
func positiveDurationFlag(name, v string) (float64, error) {
	s, err := durationFlag(name, v)
	if err == nil && !(s > 0) {
		err = usagef("--%s: %s must be > 0", name, v)
	}
	return s, err
}

// durationListFlag reads a comma-separated list of durations >= 0, none
// empty or repeated.
func durationListFlag(name, list string) ([]float64, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, usagef("--%s: %v", name, err)
	}
	out := make([]float64, len(items))
	for i, it := range items {
		if out[i], err = nonNegDurationFlag(name, it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// listFlag splits a comma-separated list of names (--strategies), refusing
// empty and repeated items.
func listFlag(name, list string) ([]string, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, usagef("--%s: %v", name, err)
	}
	return items, nil
}

// textValue is a flag shown in --help as a string and read by set as it
// is parsed; set's error is reported as "--NAME: error" (flagError), as
// durationFlag's are.
type textValue struct {
	text string
	set  func(string) error
}

// valueError is the error of a textValue's set.
type valueError struct{ error }

func (v *textValue) String() string { return v.text }
func (v *textValue) Type() string   { return "string" }
func (v *textValue) Set(s string) error {
	if err := v.set(s); err != nil {
		return valueError{err}
	}
	v.text = s
	return nil
}

// durationVar defines a duration flag read into dst in seconds.
func durationVar(fl *pflag.FlagSet, dst *float64, name, help string) {
	fl.Var(&textValue{set: func(s string) (err error) {
		*dst, err = units.ParseSeconds(s)
		return err
	}}, name, help)
}

// flagError is the root's flag error hook: every flag error is a usage
// error, and a textValue's names its flag as "--NAME: error".
func flagError(_ *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	var v valueError
	if errors.As(err, &bad) && errors.As(err, &v) {
		return usagef("--%s: %v", bad.GetFlag().Name, v.error)
	}
	return usage(err)
}

// addJSONFlag defines --json.
func addJSONFlag(fl *pflag.FlagSet, p *bool) {
	fl.BoolVar(p, "json", false, "print JSON on stdout (progress and warnings stay on stderr)")
}

// addSeedFlag defines --seed with the given default.
func addSeedFlag(fl *pflag.FlagSet, p *uint64, def uint64) {
	fl.Uint64Var(p, "seed", def, "base seed of every random stream (same seed, same bytes, whatever --workers and --shard)")
}

// addWorkersFlag defines --workers (0: one per CPU).
func addWorkersFlag(fl *pflag.FlagSet, p *int) {
	fl.IntVar(p, "workers", 0, "parallel workers (0: one per CPU)")
}

// writeJSON writes v as indented JSON; NaN and ±Inf must be carried as
// output.Number (they become null).
func writeJSON(w io.Writer, v any) error { return output.WriteJSON(w, v) }

// checkWorkers refuses a negative worker count.
func checkWorkers(n int) error {
	if n < 0 {
		return usagef("--workers: %d must be >= 0", n)
	}
	return nil
}
