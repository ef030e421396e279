package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/units"
	inputerr "github.com/ckpt-hpc/ckpt/usage"
)

// The helpers below are the flag conventions every command shares: one
// duration grammar (units.ParseSeconds), one bandwidth grammar, lists that
// refuse empty and repeated items, the same names for --json, --seed and
// --workers. Each returns a usage error naming the flag and the bad value.

// nonNegDurationFlag reads a duration flag's value in seconds (>= 0),
// naming the flag in the error.
func nonNegDurationFlag(name, v string) (float64, error) {
	s, err := nonNeg(v)
	if err != nil {
		return 0, usagef("--%s: %v", name, err)
	}
	return s, nil
}

// durationList reads a comma-separated list of durations >= 0, none
// empty or repeated (a parsedVar's parse: --ckpt 1m,5m).
func durationList(list string) ([]float64, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(items))
	for i, it := range items {
		if out[i], err = nonNeg(it); err != nil {
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

// parsedVar defines a flag shown in --help as a string, def its default
// ("" for none), read into dst by parse as it is parsed: a bad value is
// refused as "--NAME: error" before the command runs.
func parsedVar[T any](fl *pflag.FlagSet, dst *T, name, def, help string, parse func(string) (T, error)) {
	v := &textValue{set: func(s string) (err error) {
		*dst, err = parse(s)
		return err
	}}
	if def != "" {
		_ = v.Set(def) // the defaults are valid
	}
	fl.Var(v, name, help)
	seedHelp(fl) // --shard
}

// durationVar defines a duration flag read into dst in seconds.
func durationVar(fl *pflag.FlagSet, dst *float64, name, def, help string) {
	parsedVar(fl, dst, name, def, help, units.ParseSeconds)
}

// positive and nonNeg read a duration that must be > 0, >= 0.
func positive(s string) (float64, error) { return bounded(s, ">") }
func nonNeg(s string) (float64, error)   { return bounded(s, ">=") }

// bounded reads a duration that must be op 0.
func bounded(s, op string) (float64, error) {
	v, err := units.ParseSeconds(s)
	if err == nil && !(v > 0 || v == 0 && op == ">=") {
		err = fmt.Errorf("%s must be %s 0", s, op)
	}
	return v, err
}

// optional makes parse's value a pointer: nil when the flag is not given.
func optional[T any](parse func(string) (T, error)) func(string) (*T, error) {
	return func(s string) (*T, error) {
		v, err := parse(s)
		return &v, err
	}
}

// wallclock makes parse's seconds a time.Duration.
func wallclock(parse func(string) (float64, error)) func(string) (time.Duration, error) {
	return func(s string) (time.Duration, error) {
		v, err := parse(s)
		return time.Duration(v * float64(time.Second)), err
	}
}

// hiddenAlias makes --old a hidden name of flag --name, for one release
// after a rename.
func hiddenAlias(fl *pflag.FlagSet, old, name string) {
	f := fl.Lookup(name)
	fl.AddFlag(&pflag.Flag{Name: old, Usage: "old name of --" + name, Value: f.Value, DefValue: f.DefValue, Hidden: true})
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

// addSeedFlag defines --seed with the given default; its help names
// --workers and --shard only where the command has them (seedHelp).
func addSeedFlag(fl *pflag.FlagSet, p *uint64, def uint64) {
	fl.Uint64Var(p, "seed", def, "")
	seedHelp(fl)
}

// seedHelp sets the help of fl's --seed, if any, naming the flags of fl that
// keep its bytes; addWorkersFlag and parsedVar call it, whatever the order.
func seedHelp(fl *pflag.FlagSet) {
	help, sep := "base seed of every random stream (same seed, same bytes", ", whatever --"
	for _, name := range []string{"workers", "shard"} {
		if fl.Lookup(name) != nil {
			help, sep = help+sep+name, " and --"
		}
	}
	if f := fl.Lookup("seed"); f != nil {
		f.Usage = help + ")"
	}
}

// addWorkersFlag defines --workers (0: one per CPU).
func addWorkersFlag(fl *pflag.FlagSet, p *int) {
	fl.IntVar(p, "workers", 0, "parallel workers (0: one per CPU)")
	seedHelp(fl)
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

// flagOfField returns the usage error (usage.Error) in err, if any, and
// the flag that flags names for its Field ("" when none): the one mapping
// from a Request's fields to the command line's flags.
func flagOfField(err error, flags map[string]string) (string, *inputerr.Error) {
	var ue *inputerr.Error
	if !errors.As(err, &ue) {
		return "", nil
	}
	return flags[ue.Field], ue
}

// namedFlag renames the field of a usage error in err after its flag, so
// that "span: ..." reads "--span: ...": the flag flags maps the field to,
// else the command's flag of the field's own name.
func namedFlag(cmd *cobra.Command, err error, flags map[string]string) error {
	name, ue := flagOfField(err, flags)
	if ue != nil && name == "" && ue.Field != "" && cmd.Flags().Lookup(ue.Field) != nil {
		name = ue.Field
	}
	if name != "" {
		ue.Field = "--" + name
	}
	return err
}

// textReport is a Report that renders itself as text; its JSON is its
// schema.
type textReport interface{ WriteText(io.Writer) error }

// printer returns the function that prints a command's report: JSON with
// --json, else its text. An error is returned instead, naming the flag of
// a request's field (namedFlag with flags).
func printer(cmd *cobra.Command, asJSON bool, flags map[string]string) func(textReport, error) error {
	return func(rep textReport, err error) error {
		switch {
		case err != nil:
			return namedFlag(cmd, err, flags)
		case asJSON:
			return writeJSON(cmd.OutOrStdout(), rep)
		}
		return rep.WriteText(cmd.OutOrStdout())
	}
}

// addPictureFlags defines --plot FILE.svg|.png and --html FILE.html, which
// a command writes with report.WritePictures.
func addPictureFlags(fl *pflag.FlagSet, plotPath, htmlPath *string, what string) {
	fl.StringVar(plotPath, "plot", "", "draw "+what+" to FILE (.svg or .png)")
	fl.StringVar(htmlPath, "html", "", "write a self-contained HTML page (picture and tables) to FILE")
}
