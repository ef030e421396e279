package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestToleranceWithin(t *testing.T) {
	tol := Tolerance{Rel: 0.1, Abs: 0.01}
	cases := []struct {
		paper, ours float64
		want        bool
	}{
		{100, 110, true}, {100, 110.0001, false}, {100, 90, true}, {-100, -111, false},
		{0, 0.01, true}, {0, 0.0101, false}, {0.05, 0.059, true}, // Abs floor wins near 0
	}
	for _, c := range cases {
		if got := tol.Within(c.paper, c.ours); got != c.want {
			t.Errorf("Within(%g, %g) = %v, want %v", c.paper, c.ours, got, c.want)
		}
	}
	if (Row{Paper: math.NaN(), Ours: 5, Tolerance: tol}).Exceeds() {
		t.Error("a row without a published number is flagged")
	}
}

func TestNaturalSort(t *testing.T) {
	in := []string{"fig10.svg", "fig5-b.svg", "fig5-a.svg", "fig006.svg", "table2.svg", "fig15.svg"}
	sortNatural(in)
	want := "fig5-a.svg fig5-b.svg fig006.svg fig10.svg fig15.svg table2.svg"
	if got := strings.Join(in, " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

const tinySVG = `<?xml version="1.0"?>
<!-- Generated -->
<svg width="432pt" height="288pt" viewBox="0 0 432 288"
	xmlns="http://www.w3.org/2000/svg">
<path d="M0,0L10,10"/>
</svg>
`

func writeRepro(t *testing.T, dir string, csv string, figs ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comparisons.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		body := []byte(tinySVG)
		if strings.HasSuffix(f, ".png") {
			body = []byte("\x89PNG fake")
		}
		if err := os.WriteFile(filepath.Join(dir, f), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const header = "experiment,quantity,paper,ours,diff,rel_diff,note\n"

func TestLoadAndWrite(t *testing.T) {
	dir := t.TempDir()
	writeRepro(t, filepath.Join(dir, "alpha"), header+
		"Table 1,close,100,105,5,0.05,\n"+
		"Table 1,far,100,150,50,0.5,\"a note, with comma\"\n"+
		"Fig. 2,no paper number,,3,,,\n",
		"fig10.svg", "fig2.svg", "fig2.png", "only.png")
	writeRepro(t, filepath.Join(dir, "beta"), header+"Fig. 1,x,1,1,0,0,\n")
	if err := os.WriteFile(filepath.Join(dir, "beta", "FINDINGS.md"), []byte("# Own findings\n\ntext"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "not-a-repro"), 0o755); err != nil {
		t.Fatal(err)
	}
	// a run stopped early: figures, no comparisons.csv
	if err := os.MkdirAll(filepath.Join(dir, "gamma"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gamma", "fig1.svg"), []byte(tinySVG), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := Options{Papers: map[string]Paper{
		"alpha": {Title: "Alpha paper", Findings: "## Embedded\n\n- item", Tolerance: Tolerance{Rel: 0.1}},
		"beta":  {Title: "Beta paper", Findings: "# Embedded beta", Tolerance: Tolerance{Rel: 0.1}},
	}}
	r, err := Load(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Repros) != 3 || r.Repros[0].Name != "alpha" || r.Repros[1].Name != "beta" || r.Repros[2].Name != "gamma" {
		t.Fatalf("repros = %+v", r.Repros)
	}
	if r.Repros[1].Incomplete || !r.Repros[2].Incomplete {
		t.Error("incomplete flags wrong")
	}
	a := r.Repros[0]
	var names []string
	for _, f := range a.Figures {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "fig2.svg fig10.svg only.png" {
		t.Errorf("figures = %s (want the .svg of fig2 only, natural order, the lone PNG)", got)
	}
	if ex, cmp := a.Exceeding(); ex != 1 || cmp != 2 {
		t.Errorf("exceeding, compared = %d, %d; want 1, 2", ex, cmp)
	}
	if r.Repros[1].Findings != "# Own findings\n\ntext" {
		t.Errorf("the folder's own FINDINGS.md does not win: %q", r.Repros[1].Findings)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"<h2>Summary</h2>", `<a href="#repro-alpha">alpha</a>`, "<h2>alpha: Alpha paper</h2>",
		"<h5>Embedded</h5>", "<h4>Own findings</h4>", "a note, with comma", "+50 (+50.0 %)",
		`<svg role="img" aria-label="fig2.svg" viewBox="0 0 432 288"`, "data:image/png;base64,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(out, "<figure>"); n != 4 {
		t.Errorf("%d figures, want 4", n)
	}
	if n := strings.Count(out, `<tr class="flag">`); n != 3 { // the far row, alpha's and gamma's summary rows
		t.Errorf("%d flagged rows, want 3", n)
	}
	if !strings.Contains(out, "(incomplete: no comparisons.csv)") {
		t.Error("the incomplete run is not said so")
	}
	if strings.Contains(out, "<?xml") || strings.Contains(out, `width="432pt"`) {
		t.Error("SVG prolog or fixed size left in")
	}
	assertSelfContained(t, out)
}

// assertSelfContained fails on any reference that a browser would fetch.
func assertSelfContained(t *testing.T, html string) {
	t.Helper()
	re := regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"#][^"]*)"|url\(|@import|<link\b|<script\b`)
	for _, m := range re.FindAllStringSubmatch(html, -1) {
		if len(m) > 2 && strings.HasPrefix(m[2], "data:") {
			continue
		}
		if m[1] == "href" && strings.HasPrefix(m[2], "http") { // a link the reader may follow, not a load
			continue
		}
		t.Errorf("external reference %q", m[0])
	}
}

func TestLoadSingleFolderAndErrors(t *testing.T) {
	dir := t.TempDir()
	writeRepro(t, dir, header+"E,q,2,2,0,0,\n", "a.svg")
	r, err := Load(dir, Options{})
	if err != nil || len(r.Repros) != 1 || r.Repros[0].Tolerance != DefaultTolerance {
		t.Fatalf("single folder: %v %+v", err, r)
	}
	if _, err := Load(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "no reproduction") {
		t.Errorf("empty folder: err = %v", err)
	}
	bad := t.TempDir()
	writeRepro(t, bad, header+"E,q,abc,2,0,0,\n")
	if _, err := Load(bad, Options{}); err == nil || !strings.Contains(err.Error(), "comparisons.csv:2") {
		t.Errorf("bad number: err = %v, want the line", err)
	}
}

func TestSanitizeRefusesActiveSVG(t *testing.T) {
	for _, s := range []string{
		`<svg viewBox="0 0 1 1"><script>alert(1)</script></svg>`,
		`<svg viewBox="0 0 1 1" onload="x()"></svg>`,
		`<svg viewBox="0 0 1 1"><image href="http://example.org/a.png"/></svg>`,
	} {
		if _, ok := Sanitize([]byte(s), "x"); ok {
			t.Errorf("Sanitize accepted %q", s)
		}
	}
	var buf bytes.Buffer
	Page{Title: "t", Figures: []Figure{{Name: "evil.svg", SVG: []byte(`<svg viewBox="0 0 1 1"><script>alert(1)</script></svg>`)}}}.WriteHTML(&buf)
	if strings.Contains(buf.String(), "<script") {
		t.Error("script inlined")
	}
}

func TestRealReportWellFormed(t *testing.T) {
	// The real FINDINGS.md files through the whole page: balanced markup.
	dir := t.TempDir()
	writeRepro(t, filepath.Join(dir, "coop"), header+"Fig. 1,x,2,2.5,0.5,0.25,\n", "fig1.svg")
	opt := Options{Papers: map[string]Paper{"coop": {Title: "Coop", Findings: string(readFile(t, "../repro/coop/FINDINGS.md")), Tolerance: DefaultTolerance}}}
	r, err := Load(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	assertSelfContained(t, buf.String())
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteErrorReported(t *testing.T) {
	r := &Report{Title: "x", Repros: []Reproduction{{Name: "a"}}}
	if err := r.WriteHTML(failWriter{}); err == nil {
		t.Error("write error lost")
	}
	if err := (Page{Title: "x"}).WriteHTML(failWriter{}); err == nil {
		t.Error("page write error lost")
	}
}

// WriteFile on a folder with no reproduction leaves the file that was
// there untouched, and writes no DIR/report.html (its default).
func TestWriteFileDefaultAndNoPartial(t *testing.T) {
	empty := t.TempDir()
	out := filepath.Join(empty, "keep.html")
	if err := os.WriteFile(out, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(empty, out, Options{}); err == nil {
		t.Fatal("a folder with no reproduction was accepted")
	}
	if b, _ := os.ReadFile(out); string(b) != "before" {
		t.Fatalf("the existing file became %q", b)
	}
	if _, err := WriteFile(empty, "", Options{}); err == nil {
		t.Fatal("a folder with no reproduction was accepted")
	}
	if _, err := os.Stat(filepath.Join(empty, "report.html")); !os.IsNotExist(err) {
		t.Fatalf("report.html: %v, want none", err)
	}
}
