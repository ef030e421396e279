package report

import (
	"github.com/ckpt-hpc/ckpt/usage"

	"encoding/csv"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
)

// Tolerance says when our value is close enough to the paper's: the row
// is within tolerance when |ours − paper| ≤ max(Abs, Rel·|paper|). Rows
// without a published number are never flagged.
type Tolerance struct {
	Rel float64 // relative to |paper|, e.g. 0.10 for 10 %
	Abs float64 // absolute floor, for numbers at or near 0
}

// Within reports whether ours is within t of paper.
func (t Tolerance) Within(paper, ours float64) bool {
	return math.Abs(ours-paper) <= math.Max(t.Abs, t.Rel*math.Abs(paper))
}

func (t Tolerance) String() string {
	s := strconv.FormatFloat(100*t.Rel, 'g', 3, 64) + " %"
	if t.Abs >= 1e-6 {
		s += " (at least ±" + strconv.FormatFloat(t.Abs, 'g', 3, 64) + ")"
	}
	return s
}

// DefaultTolerance applies to a reproduction that Options does not name.
var DefaultTolerance = Tolerance{Rel: 0.10, Abs: 1e-9}

// Paper describes one reproduction for the report: its title, its
// FINDINGS.md text (used when the results folder has no FINDINGS.md of its
// own) and the tolerance of its comparison rows.
type Paper struct {
	Title     string
	Findings  string
	Tolerance Tolerance
}

// Options are what the report knows beyond the results folder.
type Options struct {
	// Title heads the page; empty means "ckpt reproductions".
	Title string
	// Papers maps a reproduction's folder name (e.g. "reservation") to its
	// description.
	Papers map[string]Paper
}

// Row is one line of a comparisons.csv.
type Row struct {
	Experiment, Quantity string
	Paper, Ours          float64 // Paper is NaN when the paper gives no number
	Note                 string
	Tolerance            Tolerance
}

// Exceeds reports whether the row has a published number and ours is
// beyond its tolerance.
func (r Row) Exceeds() bool {
	return !math.IsNaN(r.Paper) && !math.IsNaN(r.Ours) && !r.Tolerance.Within(r.Paper, r.Ours)
}

// Reproduction is one results sub-folder.
type Reproduction struct {
	Name, Title string
	Tolerance   Tolerance
	Rows        []Row
	Figures     []Figure
	Findings    string // Markdown
	// Incomplete says the folder has no comparisons.csv: the run stopped
	// before its end (an error or Ctrl-C); its figures are shown.
	Incomplete bool
}

// Exceeding counts the rows beyond tolerance; Compared counts the rows
// with a published number.
func (r Reproduction) Exceeding() (exceeding, compared int) {
	for _, row := range r.Rows {
		if !math.IsNaN(row.Paper) {
			compared++
		}
		if row.Exceeds() {
			exceeding++
		}
	}
	return exceeding, compared
}

// Report is every reproduction found in a results folder.
type Report struct {
	Title  string
	Repros []Reproduction
}

// Load reads a results folder written by `ckpt repro`: either one
// reproduction's folder (it holds comparisons.csv) or a folder of them
// (`ckpt repro NAME --out DIR` writes DIR/NAME), in name order; a
// sub-folder with figures but no comparisons.csv is a run that stopped
// early, reported as incomplete. It is an error when no reproduction is
// found. Loading reads every .svg (and a
// .png only where no .svg of the same name exists) and is O(total bytes).
func Load(dir string, opt Options) (*Report, error) {
	r := &Report{Title: opt.Title}
	if r.Title == "" {
		r.Title = "ckpt reproductions"
	}
	if _, err := os.Stat(filepath.Join(dir, "comparisons.csv")); err == nil {
		rep, err := loadOne(dir, opt)
		if err != nil {
			return nil, err
		}
		r.Repros = append(r.Repros, rep)
		return r, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, usage.Wrap(err) // a missing folder, or a file where a folder is wanted
	}
	for _, e := range entries { // ReadDir sorts by name
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if !isReproduction(sub) {
			continue
		}
		rep, err := loadOne(sub, opt)
		if err != nil {
			return nil, err
		}
		r.Repros = append(r.Repros, rep)
	}
	if len(r.Repros) == 0 {
		return nil, fmt.Errorf("report: %s holds no reproduction (no comparisons.csv in it or in its sub-folders)", dir)
	}
	return r, nil
}

// isReproduction reports whether dir holds comparisons.csv or a figure.
func isReproduction(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "comparisons.csv")); err == nil {
		return true
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	return len(svgs)+len(pngs) > 0
}

func loadOne(dir string, opt Options) (Reproduction, error) {
	name := filepath.Base(filepath.Clean(dir))
	p, known := opt.Papers[name]
	rep := Reproduction{Name: name, Title: p.Title, Tolerance: p.Tolerance, Findings: p.Findings}
	if !known {
		rep.Tolerance = DefaultTolerance
	}
	if b, err := os.ReadFile(filepath.Join(dir, "FINDINGS.md")); err == nil {
		rep.Findings = string(b)
	}
	var err error
	cmp := filepath.Join(dir, "comparisons.csv")
	if _, serr := os.Stat(cmp); serr != nil {
		rep.Incomplete = true
	} else if rep.Rows, err = readComparisons(cmp, rep.Tolerance); err != nil {
		return rep, err
	}
	rep.Figures, err = readFigures(dir)
	return rep, err
}

// readComparisons reads a comparisons.csv by its header's column names
// (experiment, quantity, paper, ours, note; an optional "tolerance"
// column gives a row's own relative tolerance).
func readComparisons(path string, tol Tolerance) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("report: %s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"quantity", "paper", "ours"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("report: %s: no %q column", path, need)
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("report: %s: %v", path, err)
		}
		row := Row{Experiment: get(rec, "experiment"), Quantity: get(rec, "quantity"), Note: get(rec, "note"), Tolerance: tol}
		if row.Paper, err = cell(get(rec, "paper")); err == nil {
			row.Ours, err = cell(get(rec, "ours"))
		}
		if err == nil && get(rec, "tolerance") != "" {
			row.Tolerance.Rel, err = cell(get(rec, "tolerance"))
		}
		if err != nil {
			return nil, fmt.Errorf("report: %s:%d: %v", path, line, err)
		}
		rows = append(rows, row)
	}
}

// cell parses a number; an empty cell is NaN.
func cell(s string) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// readFigures reads the figures of dir in natural order (fig5 before
// fig10): every .svg, and every .png that has no .svg twin.
func readFigures(dir string) ([]Figure, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		switch strings.ToLower(filepath.Ext(n)) {
		case ".svg":
			names = append(names, n)
		case ".png":
			if !have[strings.TrimSuffix(n, filepath.Ext(n))+".svg"] {
				names = append(names, n)
			}
		}
	}
	sortNatural(names)
	figs := make([]Figure, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		f := Figure{Name: n}
		if strings.EqualFold(filepath.Ext(n), ".svg") {
			f.SVG = b
		} else {
			f.PNG = b
		}
		figs = append(figs, f)
	}
	return figs, nil
}

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// delta formats ours − paper with its relative size.
func delta(r Row) string {
	if math.IsNaN(r.Paper) || math.IsNaN(r.Ours) {
		return ""
	}
	d := r.Ours - r.Paper
	s := strconv.FormatFloat(d, 'g', 3, 64)
	if d > 0 {
		s = "+" + s
	}
	if r.Paper != 0 {
		s += fmt.Sprintf(" (%+.1f %%)", 100*d/math.Abs(r.Paper))
	}
	return s
}

// WriteHTML writes the report as one self-contained HTML document: a
// summary table of every reproduction, then per reproduction its
// comparisons (rows beyond tolerance highlighted), its figures (SVG
// inlined) and its findings. No external resource is referenced.
func (r *Report) WriteHTML(w io.Writer) error {
	ew := output.NewWriter(w)
	writeHead(ew, r.Title)
	fmt.Fprintf(ew, "<h1>%s</h1>\n", html.EscapeString(r.Title))
	r.writeSummary(ew)
	for _, rep := range r.Repros {
		writeReproduction(ew, rep)
	}
	fmt.Fprint(ew, "</body>\n</html>\n")
	return ew.Err()
}

func anchor(name string) string { return "repro-" + html.EscapeString(name) }

func (r *Report) writeSummary(w io.Writer) {
	fmt.Fprint(w, "<section id=\"summary\">\n<h2>Summary</h2>\n")
	fmt.Fprint(w, "<p class=\"note\">One row per reproduction. A comparison is beyond tolerance when |ours − paper| exceeds the tolerance stated for its reproduction (relative to the paper's number, with an absolute floor); those rows are highlighted below.</p>\n")
	fmt.Fprint(w, "<div class=\"tablewrap\"><table>\n<thead><tr><th>reproduction</th><th>paper</th><th>figures</th><th>comparisons</th><th>with a published number</th><th>beyond tolerance</th><th>tolerance</th></tr></thead>\n<tbody>\n")
	for _, rep := range r.Repros {
		ex, cmp := rep.Exceeding()
		cls := ""
		if ex > 0 {
			cls = ` class="flag"`
		}
		title := rep.Title
		if rep.Incomplete {
			cls = ` class="flag"`
			title += " (incomplete: no comparisons.csv)"
		}
		fmt.Fprintf(w, "<tr%s><td><a href=\"#%s\">%s</a></td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num delta\">%d</td><td>%s</td></tr>\n",
			cls, anchor(rep.Name), html.EscapeString(rep.Name), html.EscapeString(title), len(rep.Figures), len(rep.Rows), cmp, ex, html.EscapeString(rep.Tolerance.String()))
	}
	fmt.Fprint(w, "</tbody>\n</table></div>\n</section>\n")
}

func writeReproduction(w io.Writer, rep Reproduction) {
	fmt.Fprintf(w, "<section class=\"repro\" id=\"%s\">\n<h2>%s", anchor(rep.Name), html.EscapeString(rep.Name))
	if rep.Title != "" {
		fmt.Fprintf(w, ": %s", html.EscapeString(rep.Title))
	}
	fmt.Fprint(w, "</h2>\n")
	ex, cmp := rep.Exceeding()
	if rep.Incomplete {
		fmt.Fprint(w, "<p class=\"note\"><strong>Incomplete:</strong> this folder has no comparisons.csv; the run stopped before its end (an error or Ctrl-C). Its figures so far are below.</p>\n")
	}
	fmt.Fprintf(w, "<h3>Comparisons with the paper</h3>\n<p class=\"note\">%d rows, %d with a published number, %d beyond the tolerance of %s (highlighted).</p>\n",
		len(rep.Rows), cmp, ex, html.EscapeString(rep.Tolerance.String()))
	fmt.Fprint(w, "<div class=\"tablewrap\"><table class=\"cmp\">\n<thead><tr><th>experiment</th><th>quantity</th><th>ours</th><th>paper</th><th>delta</th><th>note</th></tr></thead>\n<tbody>\n")
	for _, row := range rep.Rows {
		cls := ""
		if row.Exceeds() {
			cls = ` class="flag"`
		}
		fmt.Fprintf(w, "<tr%s><td>%s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num delta\">%s</td><td>%s</td></tr>\n", cls,
			html.EscapeString(row.Experiment), html.EscapeString(row.Quantity), fmtNum(row.Ours), fmtNum(row.Paper), html.EscapeString(delta(row)), html.EscapeString(row.Note))
	}
	fmt.Fprint(w, "</tbody>\n</table></div>\n")
	fmt.Fprintf(w, "<h3>Figures</h3>\n")
	if len(rep.Figures) == 0 {
		fmt.Fprint(w, "<p class=\"note\">No figure.</p>\n")
	}
	fmt.Fprint(w, "<div class=\"figs\">\n")
	for _, f := range rep.Figures {
		writeFigure(w, f)
	}
	fmt.Fprint(w, "</div>\n<h3>Findings</h3>\n<div class=\"findings\">\n")
	if rep.Findings == "" {
		fmt.Fprint(w, "<p class=\"note\">No FINDINGS.md for this reproduction.</p>\n")
	} else {
		fmt.Fprint(w, Markdown(rep.Findings, 3))
	}
	fmt.Fprint(w, "</div>\n</section>\n")
}

// WriteFile writes the report of results folder dir (Load) to the HTML
// file out ("": dir/report.html), atomically (output.WriteFile): a failed
// write leaves whatever out held before and no partial file. It returns
// the file's path.
func WriteFile(dir, out string, opt Options) (string, error) {
	if out == "" {
		out = filepath.Join(dir, "report.html")
	}
	r, err := Load(dir, opt)
	if err != nil {
		return "", err
	}
	return out, output.WriteFile(out, r.WriteHTML)
}
