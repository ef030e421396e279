package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/trace"
)

type intervalOut struct {
	ExpectedFailures float64 `json:"expected_failures"`
	MTBF             float64 `json:"mtbf_s"`
	Methods          map[string]struct {
		Intervals         int     `json:"intervals"`
		Period            float64 `json:"period_s"`
		ExpectedWallclock float64 `json:"expected_wallclock_eq4_s"`
	}
	StorageChoice string `json:"storage_choice"`
}

func decodeInterval(t *testing.T, s string) intervalOut {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
	var o intervalOut
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatal(err)
	}
	o.Methods = map[string]struct {
		Intervals         int     `json:"intervals"`
		Period            float64 `json:"period_s"`
		ExpectedWallclock float64 `json:"expected_wallclock_eq4_s"`
	}{}
	for _, m := range []string{"young", "daly", "mnof"} {
		v := o.Methods[m]
		if err := json.Unmarshal(raw[m], &v); err != nil {
			t.Fatalf("method %s: %v\n%s", m, err, s)
		}
		o.Methods[m] = v
	}
	return o
}

// The paper's worked examples: Te = 18 s, C = 2 s, E(Y) = 2 → 3 intervals
// of 6 s; Te = 441 s, C = 1 s, E(Y) = 2 → 21 intervals.
func TestIntervalWorkedExamples(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	o := decodeInterval(t, out)
	if m := o.Methods["mnof"]; m.Intervals != 3 || m.Period != 6 || m.ExpectedWallclock != 28 {
		t.Errorf("mnof = %+v, want 3 intervals of 6 s, E(Tw) = 18+4+6 = 28", m)
	}
	out, _, code = run(t, "", "interval", "--te", "441", "--ckpt", "1", "--failures", "2", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	o = decodeInterval(t, out)
	if m := o.Methods["mnof"]; m.Intervals != 21 || m.Period != 21 {
		t.Errorf("mnof = %+v, want 21 intervals", m)
	}
	// Corollary 1: MTBF = 441/2 and Young's period √(2·220.5) = 21.
	if m := o.Methods["young"]; m.Period != 21 || m.Intervals != 21 {
		t.Errorf("young = %+v", m)
	}
	if o.MTBF != 220.5 {
		t.Errorf("mtbf = %v", o.MTBF)
	}
}

func TestIntervalTextAndSources(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "2h", "--ckpt", "30s", "--restart", "1m", "--mtbf", "6h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"young", "daly", "mnof", "E(Tw) Eq. (4)", "exact exp.", "exact replay"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Table 7 of the paper: mix trace, priority 2 (file 1), tasks < 1000 s:
	// MNOF 1.06, MTBF 179.
	mix := datadirtest.ForTest(t, trace.GloudSimData("mix")...)
	out, errOut, code = run(t, "", "interval", "--te", "900", "--ckpt", "2", "--json", "--priority", "1", "--max-length", "1000", "--trace", mix)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	o := decodeInterval(t, out)
	if o.ExpectedFailures < 1.055 || o.ExpectedFailures > 1.065 || o.MTBF < 178.5 || o.MTBF > 179.5 {
		t.Errorf("estimated E(Y) %v MTBF %v, paper 1.06 and 179", o.ExpectedFailures, o.MTBF)
	}
	out, errOut, code = run(t, "", "interval", "--te", "200", "--failures", "2", "--memory", "160", "--json",
		"--blcr", datadirtest.ForTest(t, interval.BLCRDir...))
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if o := decodeInterval(t, out); o.StorageChoice != "local" {
		t.Errorf("storage choice %q, want local", o.StorageChoice)
	}
}

func TestIntervalBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--te", "0", "--ckpt", "1", "--failures", "1"},
		{"--te", "-5", "--ckpt", "1", "--failures", "1"},
		{"--te", "10", "--ckpt", "0", "--failures", "1"},
		{"--te", "10", "--ckpt", "-1", "--failures", "1"},
		{"--te", "10", "--ckpt", "1", "--failures", "-1"},
		{"--te", "10", "--ckpt", "1", "--failures", "NaN"},
		{"--te", "10", "--ckpt", "1", "--mtbf", "0"},
		{"--te", "10", "--ckpt", "1"},
		{"--ckpt", "1", "--failures", "1"},
		{"--te", "abc", "--ckpt", "1", "--failures", "1"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--restart", "-1"},
		{"--te", "10", "--ckpt", "1", "--trace", "nonexistent.dat"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--memory", "-3"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--system", "2"},
		{"--te", "10", "--ckpt", "1", "--failures", "1", "--blcr", "somedir"},
	} {
		out, errOut, code := run(t, "", append([]string{"interval"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stdout %q)", args, code, out)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || errOut == "" {
			t.Errorf("%v: want a one-line error, got %q", args, errOut)
		}
	}
}

// A GloudSim trace with segments out of order is an input error (exit 2).
func TestIntervalBadTrace(t *testing.T) {
	dir := t.TempDir()
	bad := "jtMeanLength=1\n  pjcMeanLength=1  priority=0\n    jobID:1 jobMeanLength=1  mkspan=3  start=0  s=2  vs=2\n" +
		"      btMeanLength=1  sTime=0  totalTaskLength=3  wclockLength=5\n        0 2.0 4.0 2.0\n        0 0.0 1.0 1.0\n"
	path := dir + "/bad.dat"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "", "interval", "--te", "10", "--ckpt", "1", "--trace", path)
	if code != 2 || !strings.Contains(errOut, "bad.dat:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

type storageOut struct {
	Storage []struct {
		Name      string  `json:"name"`
		C         float64 `json:"c_s"`
		R         float64 `json:"r_s"`
		Intervals float64 `json:"intervals"`
		Cost      float64 `json:"cost_s"`
		XReal     float64 `json:"x_real"`
		CostReal  float64 `json:"cost_real_s"`
	} `json:"storage"`
	StorageChoice string  `json:"storage_choice"`
	C             float64 `json:"c_s"`
	R             float64 `json:"r_s"`
}

// Section 4.2.2 from the command line: Te = 200 s, E(Y) = 2, local ramdisk
// C = 0.632 s with restart (migration A) 3.22 s, NFS C = 1.67 s with
// restart 1.45 s. The paper: x* = 17.79 and 10.94, costs 28.29 and 37.78.
// At the integer x (18 and 11) the costs are 28.30 and 37.78.
func TestIntervalStorageExample(t *testing.T) {
	args := []string{"interval", "--te", "200", "--failures", "2", "--local", "0.632,3.22", "--shared", "1.67,1.45"}
	out, errOut, code := run(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o storageOut
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Storage) != 2 || o.StorageChoice != "local" {
		t.Fatalf("storage %+v, choice %q", o.Storage, o.StorageChoice)
	}
	near := func(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }
	for i, w := range []struct{ x, cost, xr, costr float64 }{{18, 28.30, 17.79, 28.29}, {11, 37.78, 10.94, 37.78}} {
		s := o.Storage[i]
		if s.Intervals != w.x || !near(s.Cost, w.cost, 0.005) || !near(s.XReal, w.xr, 0.005) || !near(s.CostReal, w.costr, 0.005) {
			t.Errorf("%s: %+v, want x=%v cost %v, x*=%v cost %v", s.Name, s, w.x, w.cost, w.xr, w.costr)
		}
	}
	if o.C != 0.632 || o.R != 3.22 {
		t.Errorf("plan uses C=%v R=%v, want the local storage's 0.632 and 3.22", o.C, o.R)
	}
	out, errOut, code = run(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"28.29", "37.78", "best"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{
		{"--local", "0.632,3.22"},
		{"--local", "0,1", "--shared", "1,1"},
		{"--local", "1", "--shared", "1,1"},
		{"--local", "1,-1", "--shared", "1,1"},
		{"--local", "1,1", "--shared", "1,1", "--memory", "160"},
	} {
		_, errOut, code := run(t, "", append([]string{"interval", "--te", "200", "--failures", "2"}, bad...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

// --memory finds the BLCR tables from any working directory through
// $CKPT_DATA or --data, and says how to fix it when they are absent.
func TestIntervalBLCRFromAnyDirectory(t *testing.T) {
	datadirtest.ForTest(t, interval.BLCRDir...)
	data, err := datadir.Find("")
	if err != nil {
		t.Fatal(err)
	}
	if data, err = filepath.Abs(data); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, env := range []struct{ env, flag string }{{data, ""}, {t.TempDir(), data}} {
		t.Setenv(datadir.Env, env.env)
		args := []string{"interval", "--te", "200", "--failures", "2", "--memory", "160", "--json"}
		if env.flag != "" {
			args = append(args, "--data", env.flag)
		}
		out, errOut, code := run(t, "", args...)
		var o storageOut
		if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil || o.StorageChoice != "local" {
			t.Fatalf("%v: exit %d, choice %q, err %v: %s", args, code, o.StorageChoice, err, errOut)
		}
	}
	t.Setenv(datadir.Env, t.TempDir())
	_, errOut, code := run(t, "", "interval", "--te", "200", "--failures", "2", "--memory", "160")
	if code != 2 || !strings.Contains(errOut, "checkpoint-costs") || !strings.Contains(errOut, "--blcr DIR") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("missing tables: exit %d, stderr %q", code, errOut)
	}
}

// --lanl without --system (or with a system not in the log) is a one-line
// usage error that lists the systems.
func TestIntervalLANLNeedsSystem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lanl.csv")
	csv := "System,machine type,nodes,procstot,procsinnode,nodenum,nodenumz,node install,node prod,node decom,fru type,mem,cputype,memtype,num intercon,purpose,Prob Started,Prob Fixed,Down Time,Facilities,Hardware,Human Error,Network,Undetermined,Software,Same Event\n" +
		"2,cluster,49,6152,128,1,1,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,4/19/2001 3:27,4/19/2001 3:48,21,,,,,,Other Software,No\n" +
		"2,cluster,49,6152,128,3,3,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,10/31/2004 0:16,10/31/2004 2:35,199,,Fan Assembly,,,,,No\n" +
		"17,,,,,,,,,,,,,,,,1/8/1997 8:40,1/8/1997 8:50,10,,Other,,,,,No\n" +
		"17,,,,,,,,,,,,,,,,3/17/1997 8:25,3/17/1997 9:05,40,,,,,Unresolvable,,No\n" +
		"7,smp,1,8,8,0,0,before tracking,before tracking,Dec-99,part,16,3,3,0,compute,5/19/1995 21:55,5/19/1995 22:58,63,,,,,,,No\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--system", "7"}, {"--system", "99"}} {
		_, errOut, code := run(t, "", append([]string{"interval", "--te", "1d", "--ckpt", "5m", "--lanl", path}, extra...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "systems: 2, 17)") {
			t.Errorf("%v: exit %d, stderr %q", extra, code, errOut)
		}
	}
	out, errOut, code := run(t, "", "interval", "--te", "1d", "--ckpt", "5m", "--lanl", path, "--system", "17", "--json")
	if code != 0 {
		t.Fatalf("--system 17: exit %d: %s", code, errOut)
	}
	if o := decodeInterval(t, out); o.MTBF <= 0 {
		t.Errorf("MTBF %v", o.MTBF)
	}
}

// failingWriter fails every write, as a full disk or a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Lost output is an error: when stdout cannot be written, interval exits 1
// and says why, in text and in JSON.
func TestIntervalLostOutput(t *testing.T) {
	for _, extra := range [][]string{nil, {"--json"}, {"--local", "1,2", "--shared", "2,1"}} {
		var errb strings.Builder
		args := append([]string{"interval", "--te", "18", "--ckpt", "2", "--failures", "2"}, extra...)
		code := execute(context.Background(), args, strings.NewReader(""), failingWriter{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", extra, code, errb.String())
		}
	}
}

// Every duration flag takes the shared grammar, Slurm's HH:MM:SS included.
func TestIntervalDurationGrammar(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "01:30:00", "--ckpt", "00:30", "--restart", "1m", "--mtbf", "0-06", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o struct {
		Te   float64 `json:"te_s"`
		C    float64 `json:"c_s"`
		R    float64 `json:"r_s"`
		MTBF float64 `json:"mtbf_s"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Te != 5400 || o.C != 30 || o.R != 60 || o.MTBF != 6*3600 {
		t.Errorf("te %v c %v r %v mtbf %v (%v)", o.Te, o.C, o.R, o.MTBF, err)
	}
	out, errOut, code = run(t, "", "interval", "--te", "200", "--failures", "2", "--local", "00:00:01,1.5m", "--shared", "2s,3", "--json")
	var st storageOut
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Storage[0].C != 1 || st.Storage[0].R != 90 {
		t.Errorf("exit %d, %+v, %v: %s", code, st, err, errOut)
	}
}

// --memory outside the measured BLCR range (10-248 MB) warns on stderr
// with the range and says so in the JSON; inside it, no warning.
func TestIntervalMemoryExtrapolation(t *testing.T) {
	blcr := datadirtest.ForTest(t, interval.BLCRDir...)
	type memOut struct {
		Memory struct {
			MB           float64    `json:"mb"`
			MeasuredMB   [2]float64 `json:"measured_mb"`
			Extrapolated bool       `json:"extrapolated"`
		} `json:"memory"`
	}
	for _, c := range []struct {
		mb   string
		warn bool
	}{{"160", false}, {"1e4", true}, {"5", true}} { // 1e9 MB (a restart of 8e6 s) is refused: its exact expectation overflows
		out, errOut, code := run(t, "", "interval", "--te", "200", "--failures", "2", "--memory", c.mb, "--blcr", blcr, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.mb, code, errOut)
		}
		var o memOut
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(errOut, "warning") && strings.Contains(errOut, "10.27-248.3 MB")
		if o.Memory.Extrapolated != c.warn || warned != c.warn || (errOut != "") != c.warn {
			t.Errorf("--memory %s: extrapolated %v, stderr %q", c.mb, o.Memory.Extrapolated, errOut)
		}
		if o.Memory.MeasuredMB[0] < 10 || o.Memory.MeasuredMB[1] > 250 {
			t.Errorf("measured range %v", o.Memory.MeasuredMB)
		}
	}
}

// Flags that do not apply are refused, not ignored.
func TestIntervalIgnoredFlags(t *testing.T) {
	base := []string{"interval", "--te", "100", "--ckpt", "1", "--failures", "1"}
	for _, extra := range [][]string{
		{"--priority", "1"},
		{"--max-length", "1000"},
		{"--system", "2"},
		{"--blcr", "somedir"},
		{"--data", "somedir"},
		{"--local", "1,1"},
		{"--shared", "1,1"},
		{"--trace", "x.dat", "--priority", "-2"},
		{"--lanl", "x.csv", "--system", "-2"}, // -1: none chosen (the error lists the systems)
	} {
		args := append(base, extra...)
		if extra[0] == "--trace" {
			args = append([]string{"interval", "--te", "100", "--ckpt", "1"}, extra...)
		}
		_, errOut, code := run(t, "", args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, extra[len(extra)-2]) {
			t.Errorf("%v: exit %d, stderr %q", extra, code, errOut)
		}
	}
}

// JSON carries no NaN or Inf: with E(Y) = 0 the MTBF is infinite and
// prints as null; the overhead is in percent, as in the text table.
func TestIntervalJSONNonFinite(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "100", "--ckpt", "1", "--failures", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["mtbf_s"]) != "null" {
		t.Errorf("mtbf = %s, want null", raw["mtbf_s"])
	}
	// E(Y) = 2, Te = 18, C = 2: E(Tw) = 28, overhead 10/18 = 55.556 %.
	out, _, _ = run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--json")
	var o struct {
		MNOF map[string]any `json:"mnof"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if v, ok := o.MNOF["overhead_percent"].(float64); !ok || math.Abs(v-1000.0/18) > 1e-9 {
		t.Errorf("mnof overhead_percent %v", o.MNOF["overhead_percent"])
	}
	if _, old := o.MNOF["overhead"]; old {
		t.Error("old key overhead still present")
	}
}

// The paper's first example (Te = 18 s, C = 2 s, E(Y) = 2, MTBF 9 s): Eq. (4)
// says 28 s for three intervals; the exact expectation for exponential
// failures is 9·[2(e^{8/9} − 1) + e^{2/3} − 1] = 34.313 s, so the text warns
// and the JSON carries both, in seconds, with the gap in percent.
func TestIntervalExactExpectation(t *testing.T) {
	out, errOut, code := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o struct {
		MNOF map[string]float64 `json:"mnof"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	want := 9 * (2*(math.Exp(8.0/9)-1) + math.Exp(2.0/3) - 1)
	if got := o.MNOF["expected_wallclock_exact_exp_s"]; math.Abs(got-want) > 1e-9 {
		t.Errorf("exact exp %v, want %v", got, want)
	}
	if got := o.MNOF["expected_wallclock_exact_replay_s"]; math.Abs(got-want) > 1e-9 { // R = 0: the models agree
		t.Errorf("exact replay %v, want %v", got, want)
	}
	if got := o.MNOF["eq4_gap_percent"]; math.Abs(got-100*(want-28)/want) > 1e-9 {
		t.Errorf("gap %v%%", got)
	}
	text, _, _ := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2")
	if !strings.Contains(text, "note: for mnof, Eq. (4) is 18.4% off the exact expectation") {
		t.Errorf("no gap note:\n%s", text)
	}
	// A rare failure: first order is within a percent, no note.
	text, _, _ = run(t, "", "interval", "--te", "1h", "--ckpt", "1", "--mtbf", "1y")
	if strings.Contains(text, "note:") {
		t.Errorf("unexpected note:\n%s", text)
	}
}

// Issue 22: durations beyond interval.MaxDuration and plans whose expected
// wall-clock time is not finite are refused (exit 2, one line naming the
// flag), not printed as NaN or +Inf.
func TestIntervalRefusesNonFinitePlans(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--te", "1e308", "--ckpt", "1", "--failures", "2"}, "--te"},
		{[]string{"--te", "100", "--ckpt", "1", "--failures", "1e308"}, "--failures: no finite plan"},
		// 2⁵³ intervals of 2e-150 s and +Inf exact expectations were printed.
		{[]string{"--te", "18", "--ckpt", "2", "--mtbf", "1e-300"}, "--mtbf: no finite plan for Te = 18 s, C = 2 s, E(Y) = 1.8e+301, MTBF = 1e-300 s: the young plan needs 9007199254740992 intervals or more"},
		{[]string{"--te", "18", "--ckpt", "2", "--mtbf", "1e-3"}, "--mtbf: no finite plan for Te = 18 s, C = 2 s, E(Y) = 1.8e+04, MTBF = 0.001 s: the young plan's exact expected wall-clock time overflows (+Inf)"},
		{[]string{"--te", "5e-324", "--ckpt", "1", "--failures", "2"}, "--te"},
		{[]string{"--te", "100", "--ckpt", "1", "--restart", "1", "--mtbf", "5e-324"}, "--mtbf"},
		{[]string{"--te", "100", "--ckpt", "1e11", "--failures", "1"}, "--ckpt"},
		{[]string{"--te", "100", "--ckpt", "1", "--mtbf", "1e300"}, "--mtbf"},
	} {
		out, errOut, code := run(t, "", append([]string{"interval"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, errOut, c.flag)
		}
	}
}

// --help shows no "(default NaN)".
func TestIntervalHelpHasNoNaN(t *testing.T) {
	out, _, code := run(t, "", "interval", "--help")
	if code != 0 || strings.Contains(out, "NaN") {
		t.Errorf("exit %d, help shows NaN:\n%s", code, out)
	}
}
