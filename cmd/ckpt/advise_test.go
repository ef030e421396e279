package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// adviseLog writes a small SWF log: user 7 runs 20 jobs of about 10 min
// under a 4 h request, each ending before the next is submitted.
func adviseLog(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n")
	submit := 0
	for i := 1; i <= 200; i++ {
		user, run := 7, 500+10*(i%7)
		if i%2 == 0 {
			user, run = 8, 14400 // user 8 always hits the limit
		}
		wait := 3000 + 20*(i%13) + 2*i%17
		b.WriteString(strings.Join([]string{strconv.Itoa(i), strconv.Itoa(submit), strconv.Itoa(wait), strconv.Itoa(run), "1", "-1", "-1", "1", "14400",
			"-1", "1", strconv.Itoa(user), "1", "-1", "-1", "-1", "-1", "-1"}, " ") + "\n")
		submit += wait + run + 10
	}
	path := filepath.Join(t.TempDir(), "log.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAdviseLearnAsk(t *testing.T) {
	log := adviseLog(t)
	model := filepath.Join(t.TempDir(), "site.model")
	if out, errb, code := run(t, "", "advise", "learn", log, "--model", model, "--min-runs", "5", "--wait", "0.8,1h"); code != 0 || !strings.Contains(out, "200 new jobs") {
		t.Fatalf("learn: exit %d, %q %q", code, out, errb)
	}
	// Learning the same log again adds nothing.
	if out, _, code := run(t, "", "advise", "learn", log, "--model", model); code != 0 || !strings.Contains(out, "0 new jobs") {
		t.Fatalf("relearn: exit %d, %q", code, out)
	}
	out, errb, code := run(t, "", "advise", "--model", model, "--user", "7", "--account", "1", "--time", "4h", "--json")
	if code != 0 {
		t.Fatalf("ask: exit %d, %s", code, errb)
	}
	var a struct {
		Time  float64 `json:"time"`
		Keep  bool    `json:"keep_user_request"`
		Slurm string  `json:"slurm_time"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	// User 7 never runs over 560 s; with a wait of 0.8 s per second
	// requested, asking 4 h wastes 3.2 h of wait: the advice must be short.
	if a.Keep || a.Time < 500 || a.Time > 3600 || a.Slurm == "" {
		t.Fatalf("user 7: %s", out)
	}
	// User 8 always hits the limit: keep it.
	out, _, _ = run(t, "", "advise", "--model", model, "--user", "8", "--time", "4h")
	if !strings.HasPrefix(out, "keep --time=04:00:00") {
		t.Fatalf("user 8: %q", out)
	}
	out, _, _ = run(t, "", "advise", "--model", model, "--user", "9")
	if !strings.HasPrefix(out, "no advice") {
		t.Fatalf("unknown user: %q", out)
	}
}

func TestAdviseBadInput(t *testing.T) {
	log := adviseLog(t)
	notModel := filepath.Join(t.TempDir(), "x")
	os.WriteFile(notModel, []byte("hello\n"), 0o644)
	newModel := filepath.Join(t.TempDir(), "new.model")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--user", "1"}, "--model"},
		{[]string{"advise", "--model", notModel}, "--user"},
		{[]string{"advise", "--model", "/nonexistent", "--user", "1"}, "/nonexistent"},
		{[]string{"advise", "--model", notModel, "--user", "1"}, "not a ckpt-advise-model"},
		{[]string{"advise", "--model", notModel, "--user", "1", "--time", "soon"}, "soon"},
		{[]string{"advise", "--model", notModel, "--user", "1", "--nodes", "-3"}, "--nodes"},
		{[]string{"advise", "learn", log}, "--model"},
		{[]string{"advise", "learn", log, "--model", notModel}, "not a ckpt-advise-model"},
		{[]string{"advise", "learn", "--model", newModel}, "--from-cluster"},
		{[]string{"advise", "learn", log, "--from-cluster", "--model", newModel}, "not both"},
		{[]string{"advise", "learn", log, "--since", "1d", "--model", newModel}, "--since"},
		{[]string{"advise", "learn", "--from-cluster", "--since", "yesterday", "--model", newModel}, "yesterday"},
		{[]string{"advise", "learn", "--from-cluster", "--since", "2026-01-02", "--until", "2026-01-01", "--model", newModel}, "--until"},
		{[]string{"advise", "learn", "--from-cluster", "--until", "-1h", "--model", newModel}, "-1h"},
		{[]string{"advise", "learn", log, log, "--model", newModel}, "2"},
		{[]string{"advise", "replay", log, "--wait", "fast"}, "--wait"},
		{[]string{"advise", "replay", log, "--window", "2"}, "--window"},
		{[]string{"advise", "replay", log, "--priors", "1,-1"}, "--priors"},
		{[]string{"advise", "replay", log, "--priors", "x"}, "--priors"},
		{[]string{"advise", "replay", "/nonexistent.swf"}, "/nonexistent.swf"},
		{[]string{"advise", "replay", notModel}, "x:1:"},
		// --plot and --html are checked before the replay (re-audit N4:
		// one file under both was overwritten, exit 0; a missing folder
		// failed after the work, exit 1).
		{[]string{"advise", "replay", log, "--plot", newModel + ".svg", "--html", newModel + ".svg"}, "are the same file"},
		{[]string{"advise", "replay", log, "--html", filepath.Join(newModel, "x.html")}, "does not exist"},
	} {
		_, errb, code := run(t, "", c.args...)
		if code != 2 || !strings.Contains(errb, c.want) || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q in one line", c.args, code, errb, c.want)
		}
	}
	if _, err := os.Stat(newModel); err == nil {
		t.Errorf("a refused learn wrote %s", newModel)
	}
}

func TestAdviseReplay(t *testing.T) {
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "r.svg"), filepath.Join(dir, "r.html")
	out, errb, code := run(t, "", "advise", "replay", adviseLog(t), "--min-runs", "5", "--wait", "0.8,1h", "--plot", svg, "--html", page, "--priors", "1,4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, f := range []string{svg, page} {
		if b, err := os.ReadFile(f); err != nil || !strings.Contains(string(b), "ckpt+abstain") {
			t.Errorf("%s: %v, or no ckpt+abstain in it", f, err)
		}
	}
	for _, p := range []string{"ckpt+abstain prior 4", "user request", "last-two mean", "max x1.5", "max x2", "group p90", "ckpt+abstain", "100 hit their limit"} {
		if !strings.Contains(out, p) {
			t.Errorf("no %q in\n%s", p, out)
		}
	}
}
