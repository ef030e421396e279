package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/repro/papers"
)

// TestReportOfQuickReproduction runs the quick reservation reproduction
// and checks its report: the summary, the section with the paper's title,
// one figure per SVG written, the embedded FINDINGS.md.
func TestReportOfQuickReproduction(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if _, stderr, code := run(t, "", "repro", "reservation", "--quick", "--out", out); code != 0 {
		t.Fatalf("repro: exit %d: %s", code, stderr)
	}
	_, stderr, code := run(t, "", "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	svgs, _ := filepath.Glob(filepath.Join(out, "reservation", "*.svg"))
	if n := strings.Count(html, "<figure>"); n != len(svgs) || n == 0 {
		t.Errorf("%d figures for %d SVG files", n, len(svgs))
	}
	for _, want := range []string{"<h2>Summary</h2>", "Reservation and Checkpointing Strategies for Stochastic Jobs",
		"<h3>Findings</h3>", "<h3>Comparisons with the paper</h3>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "No FINDINGS.md") {
		t.Error("the embedded FINDINGS.md did not reach the report")
	}
}

func TestReportRefusals(t *testing.T) {
	if _, stderr, code := run(t, "", "report", t.TempDir()); code != 1 || !strings.Contains(stderr, "no reproduction") {
		t.Errorf("empty folder: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "repro", "nope"); code != 2 || !strings.Contains(stderr, "all") {
		t.Errorf("unknown reproduction: exit %d, %q (want the list with all)", code, stderr)
	}
}

func TestReproductionsHaveFindings(t *testing.T) {
	for name, p := range papers.Catalog.ReportOptions().Papers {
		if !strings.HasPrefix(p.Findings, "#") {
			t.Errorf("%s: no embedded FINDINGS.md", name)
		}
	}
}

func TestReservePlotAndHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svg, png, page := filepath.Join(dir, "plan.svg"), filepath.Join(dir, "plan.png"), filepath.Join(dir, "plan.html")
	stdout, stderr, code := run(t, "", "reserve", "--plot", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "expected cost") {
		t.Errorf("the text report is gone: %q", stdout)
	}
	if _, _, code := run(t, "", "reserve", "--plot", png, "--json"); code != 0 {
		t.Fatalf("--plot .png --json: exit %d", code)
	}
	for _, p := range []string{svg, png, page} {
		if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", p, err)
		}
	}
	b, _ := os.ReadFile(page)
	if !strings.Contains(string(b), "<figure>") || !strings.Contains(string(b), "Slurm --time") {
		t.Error("the page lacks its figure or its reservation table")
	}
	if _, stderr, code := run(t, "", "reserve", "--plot", filepath.Join(dir, "plan.pdf")); code != 2 || !strings.Contains(stderr, "plan.pdf") {
		t.Errorf("--plot .pdf: exit %d, %q", code, stderr)
	}
}

func TestReserveProfilePlotAndHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "mem.svg"), filepath.Join(dir, "mem.html")
	stdout, stderr, code := run(t, "", "reserve", "--profile", "slant", "--mem-strategy", "mem-all-ckpt-v2", "--plot", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "task5") {
		t.Errorf("the text report is gone: %q", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">slant: memory over time and the mem-all-ckpt-v2 reservations<", ">memory (GB)<", ">Phases: probability that each task runs<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	b, _ = os.ReadFile(page)
	if strings.Count(string(b), "<figure>") != 1 || !strings.Contains(string(b), "Slurm --time") {
		t.Error("the page lacks its figure or its reservation table")
	}
	if _, stderr, code := run(t, "", "reserve", "--profile", "slant", "--plot", filepath.Join(dir, "m.pdf")); code != 2 || !strings.Contains(stderr, "m.pdf") {
		t.Errorf("--profile --plot .pdf: exit %d, %q", code, stderr)
	}
}

func TestIntervalPlotAndHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "iv.svg"), filepath.Join(dir, "iv.html")
	stdout, stderr, code := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--plot", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "mnof") {
		t.Errorf("the text report is gone: %q", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">Expected wall-clock time against the number of intervals<", ">mnof: x = 3<", ">expected wall-clock time E(Tw) (s)<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(string(b), "Failure law") {
		t.Error("a failure-law panel without a trace")
	}
	b, _ = os.ReadFile(page)
	if strings.Count(string(b), "<figure>") != 1 || !strings.Contains(string(b), "exact replay (s)") {
		t.Error("the page lacks its figure or its plans table")
	}
	lanl := datadirtest.ForTest(t, "failures", "LA-UR-05-7318-failure-data-1996-2005.csv")
	if _, stderr, code := run(t, "", "interval", "--te", "1d", "--ckpt", "5m", "--lanl", lanl, "--system", "20", "--plot", svg); code != 0 {
		t.Fatalf("--lanl --plot: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(svg)
	for _, want := range []string{">Failure law: LANL system 20<", "inter-failure times<", ">exponential of mean the MTBF, 13h10m<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--lanl SVG lacks %q", want)
		}
	}
	if _, stderr, code := run(t, "", "interval", "--te", "18", "--ckpt", "2", "--failures", "2", "--plot", filepath.Join(dir, "x.gif")); code != 2 || !strings.Contains(stderr, "x.gif") {
		t.Errorf("--plot .gif: exit %d, %q", code, stderr)
	}
}

// chainForPicture writes a chain folder of four reservations, two
// checkpointed and one killed (no job recorded, so no Slurm is asked).
func chainForPicture(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "toy-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	step := `{"time": 3600, "checkpoint": true, "checkpoint_time": 60, "milestone": %d}`
	plan := `{"job": "job.sh", "name": "toy", "steps": [` + fmt.Sprintf(step, 3000) + "," + fmt.Sprintf(step, 6000) + "," +
		fmt.Sprintf(step, 9000) + `, {"time": 3600, "milestone": 12000}]}`
	files := map[string]string{"chain.json": plan,
		"r1.json": `{"reservation":1,"outcome":"checkpointed","progress":3000,"start":"2026-01-01T12:00:00Z","end":"2026-01-01T13:00:00Z"}`,
		"r2.json": `{"reservation":2,"outcome":"checkpointed","progress":6000,"start":"2026-01-01T13:30:00Z","end":"2026-01-01T14:30:00Z"}`,
		"r3.json": `{"reservation":3,"outcome":"killed","progress":6000,"start":"2026-01-01T15:00:00Z","end":"2026-01-01T15:40:00Z"}`}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestChainStatusPlotAndHTML(t *testing.T) {
	dir := chainForPicture(t)
	svg, page := filepath.Join(t.TempDir(), "chain.svg"), filepath.Join(t.TempDir(), "chain.html")
	stdout, stderr, code := run(t, "", "chain", "status", dir, "--plot", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "chain toy-1 (toy)") {
		t.Errorf("the text report is gone: %q", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">Chain toy-1 (toy): 4 reservations<", ">time since the first start (h)<", ">ran: checkpointed<", ">checkpoint saved<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	b, _ = os.ReadFile(page)
	if strings.Count(string(b), "<figure>") != 1 || !strings.Contains(string(b), "2026-01-01 15:40:00Z") {
		t.Error("the page lacks its figure or its reservation table")
	}
	if _, stderr, code := run(t, "", "chain", "status", dir, "--plot", "c.bmp"); code != 2 || !strings.Contains(stderr, "c.bmp") {
		t.Errorf("--plot .bmp: exit %d, %q", code, stderr)
	}
}

func TestCapacitySimulatePlot(t *testing.T) {
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "cap.svg"), filepath.Join(dir, "cap.html")
	stdout, stderr, code := run(t, "", "capacity", "simulate", "--p-max", "60", "--sections", "30", "--strategies", "greedy-goodput,dp-goodput", "--plot", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "greedy-goodput") {
		t.Errorf("the table is gone: %q", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">greedy-goodput on uniform: first 20 of 30 sections<", ">dp-goodput on uniform: first 20 of 30 sections<", ">processors<", ">time (model units)<", ">checkpointing<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, stderr, code := run(t, "", "capacity", "simulate", "--plot", filepath.Join(dir, "x.jpg")); code != 2 {
		t.Errorf("--plot .jpg: exit %d, %q", code, stderr)
	}
}

// TestReproAllQuick runs every quick reproduction and checks that the
// report names each of them once, in the summary and as a section.
func TestReproAllQuick(t *testing.T) {
	out := quickRepro(t, "all") // gated: see reproOutEnv
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for name := range papers.Catalog {
		if n := strings.Count(html, `href="#repro-`+name+`"`); n != 1 {
			t.Errorf("%s: %d summary links, want 1", name, n)
		}
		if n := strings.Count(html, `id="repro-`+name+`"`); n != 1 {
			t.Errorf("%s: %d sections, want 1", name, n)
		}
	}
	if st, _ := os.Stat(filepath.Join(out, "report.html")); st.Size() > 10<<20 {
		t.Errorf("report of the quick reproductions weighs %d bytes", st.Size())
	}
}
