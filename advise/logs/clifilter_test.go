package logs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestCLIFilterOnSlurm submits through contrib/slurm/cli_filter.lua on the
// local Slurm, with CKPT_SLURM_TESTS=1 (or CKPT_SLURM_CLI_FILTER=1). The
// filter runs in the
// client, so a private copy of slurm.conf (SLURM_CONF) with
// CliFilterPlugins=cli_filter/lua enables it for these submissions only;
// the cluster's configuration is not touched. Jobs are submitted held and
// cancelled at the end.
func TestCLIFilterOnSlurm(t *testing.T) {
	if os.Getenv("CKPT_SLURM_CLI_FILTER") != "1" {
		slurmtest.Need(t)
	}
	for _, c := range []string{"sbatch", "scontrol", "scancel", "timeout"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	dir := t.TempDir()
	bin, lean := slurmtest.Ckpt(t), slurmtest.Binary(t, slurmtest.Module+"/cmd/ckpt-advise")
	// User 7 runs about 10 min under 4 h requests; waits cost 0.8 s per
	// second requested.
	p := advise.DefaultParams()
	p.Wait = advise.WaitModel{A: 0.8, B: 3600}
	e := advise.NewEngine(p)
	var jobs []advise.Job
	for i, t0 := 0, 0.0; i < 60; i++ {
		run := 500 + 10*float64(i%7)
		jobs = append(jobs, advise.Job{Submit: t0, Wait: 100, Run: run, Requested: 14400, Nodes: 1, Who: advise.Who{User: "7"}})
		t0 += 100 + run + 10
	}
	e.Feed(jobs, true, nil)
	model := filepath.Join(dir, "ckpt-advise.model") // the installed filter's default
	if err := e.WriteModel(model); err != nil {
		t.Fatal(err)
	}
	want, err := advise.AskRun(t.Context(), advise.AskRequest{Model: model, Query: advise.Query{Who: advise.Who{User: "7"}, Nodes: 1}})
	if err != nil || want.Keep {
		t.Fatalf("the model keeps user 7's request (%v): %+v", err, want)
	}
	conf, err := os.ReadFile(slurmConf())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?mi)^\s*PlugStackConfig`).Match(conf) {
		conf = append(conf, "\nPlugStackConfig="+filepath.Join(filepath.Dir(slurmConf()), "plugstack.conf")+"\n"...)
	}
	// The filter and the configuration line as scripts/slurm-localhost.sh
	// --cli-filter respect installs them, in the private folder.
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf.new"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cliFilterInstall("respect", filepath.Join(dir, "cli_filter.lua"), filepath.Join(dir, "slurm.conf.new")); err != nil {
		t.Fatalf("cli_filter_install: %v\n%s", err, out)
	}
	if err := os.Rename(filepath.Join(dir, "slurm.conf.new"), filepath.Join(dir, "slurm.conf")); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken")
	os.WriteFile(broken, []byte("#!/bin/sh\necho '{\"keep_user_request\": false, \"slurm_time\": \"rm -rf\"'\n"), 0o755)
	slow := filepath.Join(dir, "slow")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 30\n"), 0o755)

	submit := func(env []string, args ...string) (limit, comment string, took time.Duration) {
		t.Helper()
		cmd := exec.Command("sbatch", append([]string{"--parsable", "--hold", "--job-name", "ckpt-cli-filter-test", "--wrap", "true"}, args...)...)
		cmd.Env = append(os.Environ(), append([]string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf"), "USER=7",
			"CKPT_ADVISE_BIN=" + lean, "CKPT_BIN=" + bin, "CKPT_ADVISE_TIMEOUT=5"}, env...)...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took = time.Since(start)
		if err != nil {
			t.Fatalf("sbatch %v: %v\n%s", args, err, out)
		}
		id := strings.TrimSpace(string(out))
		id = id[strings.LastIndexByte(id, '\n')+1:]
		t.Cleanup(func() { exec.Command("scancel", id).Run() })
		show, err := exec.Command("scontrol", "show", "job", id).CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol show job %s: %v\n%s", id, err, show)
		}
		if m := regexp.MustCompile(`TimeLimit=(\S+)`).FindSubmatch(show); m != nil {
			limit = string(m[1])
		}
		if m := regexp.MustCompile(`Comment=(\S+)`).FindSubmatch(show); m != nil {
			comment = string(m[1])
		}
		return limit, comment, took
	}
	norm := func(s string) string { return strings.TrimPrefix(s, "0-") }
	if limit, comment, _ := submit(nil); norm(limit) != norm(want.SlurmTime) || comment != want.Comment {
		t.Errorf("plain sbatch: TimeLimit=%s Comment=%s, want %s and %s", limit, comment, want.SlurmTime, want.Comment)
	}
	if limit, comment, _ := submit(nil, "--time=04:00:00"); limit != "04:00:00" || strings.Contains(comment, "ckpt") {
		t.Errorf("--time under the respect policy: TimeLimit=%s Comment=%s, want 04:00:00 untouched", limit, comment)
	}
	if limit, _, _ := submit([]string{"CKPT_ADVISE_POLICY=within"}, "--time=04:00:00"); norm(limit) != norm(want.SlurmTime) {
		t.Errorf("--time under the within policy: TimeLimit=%s, want %s", limit, want.SlurmTime)
	}
	if _, comment, _ := submit([]string{"CKPT_ADVISE_POLICY=within"}, "--time=04:00:00", "--time-min=03:00:00"); strings.Contains(comment, "ckpt") {
		t.Errorf("a job with its own --time-min: Comment=%s, want it left alone", comment)
	}
	if limit, comment, _ := submit([]string{"CKPT_ADVISE_POLICY=within"}, "--time=04:00:00", "--comment=ckpt:chain=c7"); limit != "04:00:00" || comment != "ckpt:chain=c7" {
		t.Errorf("a ckpt chain's reservation: TimeLimit=%s Comment=%s, want its plan's 04:00:00 untouched", limit, comment)
	}
	// Without ckpt-advise, the filter asks ckpt advise.
	if limit, comment, _ := submit([]string{"CKPT_ADVISE_BIN=" + filepath.Join(dir, "nonexistent")}); norm(limit) != norm(want.SlurmTime) || comment != want.Comment {
		t.Errorf("no ckpt-advise, ckpt advise instead: TimeLimit=%s Comment=%s, want %s and %s", limit, comment, want.SlurmTime, want.Comment)
	}
	// Nor when it cannot be run (timeout's 126): a file without the
	// execute bit.
	notExec := filepath.Join(dir, "not-executable")
	os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644)
	if limit, comment, _ := submit([]string{"CKPT_ADVISE_BIN=" + notExec}); norm(limit) != norm(want.SlurmTime) || comment != want.Comment {
		t.Errorf("ckpt-advise not executable, ckpt advise instead: TimeLimit=%s Comment=%s, want %s and %s", limit, comment, want.SlurmTime, want.Comment)
	}
	none := filepath.Join(dir, "nonexistent")
	for name, b := range map[string][2]string{"missing": {none, none}, "broken": {broken, bin}, "slow": {slow, bin}} {
		limit, comment, took := submit([]string{"CKPT_ADVISE_BIN=" + b[0], "CKPT_BIN=" + b[1], "CKPT_ADVISE_TIMEOUT=1"})
		if strings.Contains(comment, "ckpt") || limit == want.SlurmTime || took > 10*time.Second {
			t.Errorf("%s advisor: TimeLimit=%s Comment=%s after %v; want the submission through unchanged, quickly", name, limit, comment, took)
		}
	}
}

// slurmConf is the slurm.conf the cluster's clients read.
func slurmConf() string {
	if c := os.Getenv("SLURM_CONF"); c != "" {
		return c
	}
	return "/etc/slurm/slurm.conf"
}

// cliFilterInstall runs scripts/slurm-localhost.sh's cli_filter_install
// alone (the script's other steps start daemons as root): POLICY, the
// cli_filter.lua to write, the slurm.conf.new to complete.
func cliFilterInstall(policy, lua, confNew string) ([]byte, error) {
	script, err := filepath.Abs("../../scripts/slurm-localhost.sh")
	if err != nil {
		return nil, err
	}
	src, _ := filepath.Abs("../../contrib/slurm/cli_filter.lua")
	funcs := `eval "$(sed -n -e '/^marker=/p' -e '/^cli_filter_check()/,/^}/p' -e '/^cli_filter_install()/,/^}/p' "$0")"; cli_filter_install "$@"`
	return exec.Command("bash", "-c", funcs, script, policy, lua, confNew, src).CombinedOutput()
}

// scripts/slurm-localhost.sh --cli-filter POLICY, on a temporary folder:
// it writes cli_filter.lua (marked as its own, with POLICY and the model
// beside slurm.conf as defaults) and one CliFilterPlugins line; it
// refuses a bad policy and a cli_filter.lua it did not write (left as it
// was); without --cli-filter it removes only its own file.
func TestSlurmLocalhostCLIFilter(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	lua, conf := filepath.Join(dir, "cli_filter.lua"), filepath.Join(dir, "slurm.conf.new")
	write := func() { os.WriteFile(conf, []byte("ClusterName=x\n"), 0o644) }
	for _, policy := range []string{"within", "respect"} { // a re-run replaces its own file
		write()
		if out, err := cliFilterInstall(policy, lua, conf); err != nil {
			t.Fatalf("%s: %v\n%s", policy, err, out)
		}
		b, _ := os.ReadFile(lua)
		c, _ := os.ReadFile(conf)
		if !strings.HasPrefix(string(b), "-- # Written by ckpt scripts/slurm-localhost.sh") ||
			!strings.Contains(string(b), `os.getenv("CKPT_ADVISE_POLICY") or "`+policy+`"`) ||
			!strings.Contains(string(b), `os.getenv("CKPT_ADVISE_MODEL") or "`+dir+`/ckpt-advise.model"`) ||
			string(c) != "ClusterName=x\nCliFilterPlugins=cli_filter/lua\n" {
			t.Errorf("%s: slurm.conf %q, cli_filter.lua:\n%.400s", policy, c, b)
		}
	}
	write()
	if out, err := cliFilterInstall("sometimes", lua, conf); err == nil || !strings.Contains(string(out), "want respect or within") {
		t.Errorf("a bad policy: %v %s", err, out)
	}
	if out, err := cliFilterInstall("none", lua, conf); err != nil {
		t.Errorf("none: %v %s", err, out)
	}
	if _, err := os.Stat(lua); !os.IsNotExist(err) {
		t.Errorf("without --cli-filter its own cli_filter.lua stays: %v", err)
	}
	os.WriteFile(lua, []byte("-- the site's own filter\n"), 0o644)
	for _, policy := range []string{"respect", "none"} {
		out, err := cliFilterInstall(policy, lua, conf)
		b, _ := os.ReadFile(lua)
		c, _ := os.ReadFile(conf)
		if string(b) != "-- the site's own filter\n" || string(c) != "ClusterName=x\n" || (policy == "respect") != (err != nil) {
			t.Errorf("%s over the site's own filter: %v %s; left %q and %q", policy, err, out, b, c)
		}
	}
}
