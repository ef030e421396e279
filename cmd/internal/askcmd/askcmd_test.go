package askcmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/advise"
)

// model writes a model of 400 jobs of four users (u0…u3), each user's
// runs a fixed share of the request, waits half the request.
func model(t testing.TB) string {
	t.Helper()
	e := advise.NewEngine(advise.DefaultParams())
	var jobs []advise.Job
	for i, t0 := 0, 0.0; i < 400; i++ {
		req := 3600.0 * float64(1+i%3)
		run := req * float64(1+i%4) / 8
		jobs = append(jobs, advise.Job{Submit: t0, Wait: req / 2, Run: run, Requested: req, Nodes: 1,
			Who: advise.Who{User: "u" + string(rune('0'+i%4)), Group: "g"}})
		t0 += req/2 + run + 1
	}
	e.Feed(jobs, true, nil)
	path := filepath.Join(t.TempDir(), "m.model")
	if err := e.WriteModel(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// exec runs the command in-process and checks the command line's
// contract: exit 0 with the answer on stdout and nothing on stderr, or 2
// (usage) or 1 (runtime) with nothing on stdout and one line on stderr.
func exec(t testing.TB, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), New("ckpt-advise", "ckpt-advise"), args, &out, &errb)
	switch {
	case code == 0 && (out.Len() == 0 || errb.Len() != 0):
		t.Fatalf("%q: exit 0 with stdout %q, stderr %q", args, out.String(), errb.String())
	case code != 0 && (out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "ckpt: ")):
		t.Fatalf("%q: exit %d with stdout %q, stderr %q; want one line on stderr", args, code, out.String(), errb.String())
	case code < 0 || code > 2:
		t.Fatalf("%q: exit %d", args, code)
	}
	return out.String() + errb.String(), code
}

func TestExitStatusAndFlagNames(t *testing.T) {
	m := model(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--model", m, "--user", "u1", "--time", "2h"}, 0, "--time="},
		{[]string{"--model", m, "--user", "u1", "--time", "2h", "--json"}, 0, `"slurm_time": "`},
		{[]string{"--model", m, "--user", "nobody"}, 0, "no advice"},
		{[]string{"--model", m, "--user", "u1", "--time", "2x"}, 2, "ckpt: --time: invalid duration \"2x\""},
		{[]string{"--model", m, "--user", "u1", "--nodes", "-1"}, 2, "ckpt: --nodes: must be >= 0, got -1"},
		{[]string{"--model", m}, 2, "ckpt: --user: the user is needed"},
		{[]string{"--user", "u1"}, 2, "ckpt: --model: a model file is needed"},
		{[]string{"--model", m, "--user", "u1", "x"}, 2, `ckpt: unknown command "x"`},
		{[]string{"--model", m, "--user", "u1", "--nope"}, 2, "ckpt: unknown flag: --nope"},
		{[]string{"--model", filepath.Dir(m), "--user", "u1"}, 2, "is a directory"},
	} {
		got, code := exec(t, c.args...)
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args, code, got, c.code, c.want)
		}
	}
}

// FuzzCommandLine: any command line (arguments separated by NUL) answers
// or is refused in one line with status 1 or 2, never panics. Arguments
// holding a newline are left out: an error quotes the bad value as given,
// as ckpt's own errors do, so its newline breaks the line.
func FuzzCommandLine(f *testing.F) {
	m := model(f)
	for _, s := range []string{"--user\x00u1\x00--time\x002h", "--user\x00u2\x00--nodes\x00-4", "--json\x00--user", "--time=1:00:00\x00--user=u0\x00--account\x00g", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := append([]string{"--model", m}, strings.Split(s, "\x00")...)
		for _, a := range args[2:] {
			if strings.ContainsAny(a, "\n\r") {
				return // the bad value is quoted as given, newlines included (as ckpt does)
			}
			if a == "--help" || a == "-h" || strings.HasPrefix(a, "--help=") || strings.HasPrefix(a, "-h") {
				return // help prints the usage, on stdout
			}
		}
		exec(t, args...)
	})
}
