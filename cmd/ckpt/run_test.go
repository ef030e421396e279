package main

import (
	"strings"
	"testing"
)

// Bad values of --app-signal, --app-grace and --step-time are usage
// errors, one line naming the flag and the value.
func TestRunAppSignalBadInput(t *testing.T) {
	t.Setenv("CKPT_CHAIN_DIR", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--app-signal", "KILL"}, `--app-signal "KILL": want TERM, USR1, USR2 or INT`},
		{[]string{"--app-signal", "15"}, `--app-signal "15"`},
		{[]string{"--app-grace", "-1s"}, "--app-grace -1s"},
		{[]string{"--app-grace", "1e308"}, "--app-grace 1e308"},
		{[]string{"--app-grace", "soon"}, "--app-grace"},
		{[]string{"--step-time", "NaN"}, "--step-time"},
		{[]string{"--step-time", "-0.5"}, "--step-time -0.5"},
		{[]string{"--chain-dir", t.TempDir(), "--app-signal", "TERM", "--coordinator", "http://127.0.0.1:1"}, "--app-signal TERM: with --coordinator"},
	} {
		args := append(append([]string{"run", "--reservation", "1"}, c.args...), "--", "true")
		_, errOut, code := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2, %q", c.args, code, errOut, c.want)
		}
	}
}
