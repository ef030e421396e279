package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"pgregory.net/rapid"
)

// The lite build lists a stand-in of each command of fullOnly with the
// Use and Short written there: they must be the full tree's, or
// `ckpt --help` of the two builds would differ.
func TestFullOnlyIsTheFullTrees(t *testing.T) {
	if handOver != nil {
		t.Fatal("the default build hands over: it must run every command itself")
	}
	root := newRoot()
	for path, c := range fullOnly {
		cmd, rest, err := root.Find(strings.Fields(path))
		if err != nil || len(rest) > 0 || cmd.CommandPath() != "ckpt "+path {
			t.Errorf("%s: not a command of the full tree (%v, found %q)", path, err, cmd.CommandPath())
			continue
		}
		if cmd.Use != c[0] || cmd.Short != c[1] {
			t.Errorf("%s: the full tree's Use %q, Short %q; fullOnly has %q, %q", path, cmd.Use, cmd.Short, c[0], c[1])
		}
	}
}

var errHandedOver = errors.New("handed over")

// handsOver runs args in-process with a hand-over that records that it was
// called and stops the command (as the lite build's exec would), and
// reports whether it was called.
func handsOver(t *testing.T, args ...string) bool {
	t.Helper()
	called := false
	handOver = func() error { called = true; return errHandedOver }
	defer func() { handOver = nil }()
	var stderr strings.Builder
	code := execute(context.Background(), args, strings.NewReader(""), io.Discard, &stderr)
	if called != (code == 1 && strings.Contains(stderr.String(), errHandedOver.Error())) {
		t.Errorf("%q: hand-over called %v, but exit %d: %s", args, called, code, stderr.String())
	}
	return called
}

// The dispatch table: which invocations the lite build hands to
// ckpt-full, decided after cobra parsed the flags and before any work (a
// picture handed over is not drawn here). Not parallel: it sets handOver.
func TestHandOverTable(t *testing.T) {
	dir := t.TempDir()
	svg, html := filepath.Join(dir, "a.svg"), filepath.Join(dir, "a.html")
	interval := []string{"interval", "--te", "441", "--ckpt", "1", "--failures", "2"}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{interval, false},
		{append(interval, "--json"), false},
		{append(interval, "--plot", svg), true},
		{append(interval, "--html="+html), true},
		{append(interval, "--plot", ""), true}, // set, if empty: ckpt-full says what it makes of it
		{[]string{"iosim", "bound", "--bandwidth", "80GB/s"}, false},
		{[]string{"iosim", "run", "--seeds", "1", "--plot", svg}, true},
		{[]string{"capacity", "simulate", "--html", html}, true},
		{[]string{"chain", "status", "1", "--plot", svg}, true},
		{[]string{"version"}, false},
		{[]string{"serve", "--db", filepath.Join(dir, "x.db")}, true},
		{[]string{"repro", "nosuch"}, true},
		{[]string{"report", dir}, true},
		{[]string{"coord", "loadgen", "--jobs", "1"}, true},
		{[]string{"coord", "--id", "j", "simulate"}, true},
		{[]string{"coord", "members", "remove", "n4"}, true},
		{[]string{"help", "serve"}, true},
		{[]string{"help", "coord", "members"}, true},
		{[]string{"help", "coord"}, false},
		{[]string{"help", "interval"}, false},
		{[]string{"array", "--shards", "2", "--", "repro", "capacity"}, true},
		{[]string{"array", "--shards", "2", "--", "ckpt", "repro", "capacity"}, true},
		{[]string{"array", "--shards", "2", "--", "--out", "r", "repro", "capacity"}, true},
		{[]string{"help", "--", "serve"}, true},
		{[]string{"array", "--shards", "2", "--", "reserve", "sweep", "--ckpt", "1m,5m"}, false},
		{[]string{"__complete", "interval", "--"}, true},
		// refused by cobra before the hook, in either build alike
		{[]string{"interval", "--plot"}, false},
		{[]string{"nosuch", "--plot", svg}, false},
		{[]string{"interval", "--te", "x", "--plot", svg}, false},
	} {
		if got := handsOver(t, tc.args...); got != tc.want {
			t.Errorf("%q: hands over %v, want %v", tc.args, got, tc.want)
		}
	}
	for _, p := range []string{svg, html} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written before the hand-over (%v)", p, err)
		}
	}
}

// resolve is what cobra does before the hook: find the command, parse its
// flags; ok is false when cobra would refuse the arguments first.
func resolve(args []string) (*cobra.Command, []string, bool) {
	root := newRoot(args...)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.DisableFlagParsing {
		return cmd, rest, err == nil
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return cmd, nil, false
	}
	return cmd, cmd.Flags().Args(), true
}

// No arguments crash the dispatcher, and a command without --plot or
// --html set is handed over only if it names a command of fullOnly.
func TestHandOverAnyArgs(t *testing.T) {
	words := []string{"interval", "iosim", "bound", "serve", "coord", "loadgen", "members", "simulate", "repro", "report",
		"help", "array", "ckpt", "--", "-", "--id", "--server", "--plot", "--html", "--plot=", "a.svg", "--json", "--te", "441", "--help", "-h", "__complete", ""}
	rapid.Check(t, func(t *rapid.T) {
		args := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(words), rapid.String()), 0, 8).Draw(t, "args")
		cmd, rest, ok := resolve(args)
		if !ok {
			return
		}
		full := needsFull(cmd, rest)
		named := false
		for path := range fullOnly { // where cobra resolved the command, or anywhere in help/array's words
			named = named || strings.HasPrefix(cmd.CommandPath()+" ", "ckpt "+path+" ") ||
				strings.Contains(" "+strings.Join(args, " ")+" ", " "+path+" ")
		}
		picture := cmd.Flags().Changed("plot") || cmd.Flags().Changed("html")
		if full && !named && !picture && !strings.HasPrefix(cmd.Name(), "__complete") {
			t.Fatalf("%q (%s) hands over, yet names no command of fullOnly and asks no picture", args, cmd.CommandPath())
		}
	})
}
