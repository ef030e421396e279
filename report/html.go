package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
)

// Figure is one picture of a page: SVG text inlined as it is (after
// Sanitize), or, when SVG is empty, a PNG embedded as a data URI.
type Figure struct {
	Name    string // the file name, shown as the caption
	Caption string // optional text after the name
	SVG     []byte
	PNG     []byte
}

// Table is a plain table of text cells.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	// Flag marks rows to highlight (same length as Rows, or nil).
	Flag []bool
}

// Page is a single-result page (`ckpt reserve --html`, `ckpt capacity
// simulate --html`): a title, a paragraph, figures and tables.
type Page struct {
	Title   string
	Intro   string
	Figures []Figure
	Tables  []Table
}

// style is the one style sheet of every page: readable from a phone's to
// a laptop's width (figures scale to the column), printable (no figure or
// table row split across pages), colours from the Okabe–Ito palette.
const style = `
:root{--ink:#1a1a1a;--muted:#555;--rule:#d0d0d0;--flag:#fbe3d6;--flagink:#8a3200;--ok:#009e73;--link:#0072b2}
*{box-sizing:border-box}
body{font:16px/1.5 "Liberation Sans",Arial,Helvetica,sans-serif;color:var(--ink);background:#fff;margin:0 auto;max-width:1100px;padding:1rem 1.5rem 3rem}
h1{font-size:1.8rem;margin:.5rem 0 1rem}
h2{font-size:1.4rem;border-bottom:2px solid var(--ink);padding-bottom:.2rem;margin-top:2.5rem}
h3{font-size:1.15rem;margin-top:1.8rem}
h4,h5,h6{font-size:1rem}
a{color:var(--link)}
table{border-collapse:collapse;margin:.8rem 0;font-size:.9rem;max-width:100%}
th,td{border:1px solid var(--rule);padding:.25rem .5rem;vertical-align:top;text-align:left}
th{background:#f2f2f2}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.flag td{background:var(--flag)}
tr.flag td.delta{color:var(--flagink);font-weight:bold}
.tablewrap{overflow-x:auto}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:1rem}
.figs.one{grid-template-columns:minmax(0,900px)}
figure{margin:0;border:1px solid var(--rule);padding:.5rem;background:#fff;break-inside:avoid;page-break-inside:avoid}
figure svg,figure img{width:100%;height:auto;display:block}
figcaption{font-size:.85rem;color:var(--muted);margin-top:.3rem}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.85rem}
code{font-family:"Liberation Mono",Consolas,monospace;font-size:.9em}
blockquote{border-left:4px solid var(--rule);margin:0;padding-left:1rem;color:var(--muted)}
.findings{max-width:52rem}
.note{color:var(--muted);font-size:.9rem}
nav ul{columns:2}
@media (max-width:700px){.figs{grid-template-columns:1fr} nav ul{columns:1}}
@media print{body{max-width:none;padding:0} h2{break-before:page} .figs{display:block} figure{margin-bottom:1rem} a{color:inherit}}
`

func writeHead(w io.Writer, title string) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", html.EscapeString(title), style)
}

var (
	svgRoot   = lazyRegexp(`(?s)<svg\b[^>]*>`)
	sizeAttr  = lazyRegexp(`\s(width|height)="[^"]*"`)
	unsafeSVG = lazyRegexp(`(?i)<script|<foreignobject|\son[a-z]+\s*=|javascript:|<iframe|<image\b|xlink:href="http|href="http`)
)

// Sanitize prepares SVG text for inlining: it drops everything before the
// root element (the XML prolog and comments), drops the root's fixed width
// and height so that the style sheet scales it to the column (the viewBox
// keeps its proportions), and labels it for screen readers. It reports
// false for SVG that could run code or load anything (scripts, event
// attributes, foreign objects, external references); such a picture is
// embedded as an <img> instead, where browsers run nothing.
func Sanitize(svg []byte, label string) (string, bool) {
	if unsafeSVG().Match(svg) {
		return "", false
	}
	loc := svgRoot().FindIndex(svg)
	if loc == nil || !bytes.Contains(svg, []byte("viewBox")) {
		return "", false
	}
	root := sizeAttr().ReplaceAllString(string(svg[loc[0]:loc[1]]), "")
	root = strings.Replace(root, "<svg", `<svg role="img" aria-label="`+html.EscapeString(label)+`"`, 1)
	return root + string(svg[loc[1]:]), true
}

func writeFigure(w io.Writer, f Figure) {
	fmt.Fprint(w, "<figure>\n")
	inline := false
	if len(f.SVG) > 0 {
		if s, ok := Sanitize(f.SVG, f.Name); ok {
			fmt.Fprint(w, s)
			inline = true
		} else {
			fmt.Fprintf(w, `<img alt="%s" src="data:image/svg+xml;base64,%s">`, html.EscapeString(f.Name), base64.StdEncoding.EncodeToString(f.SVG))
			inline = true
		}
	}
	if !inline && len(f.PNG) > 0 {
		fmt.Fprintf(w, `<img alt="%s" src="data:image/png;base64,%s">`, html.EscapeString(f.Name), base64.StdEncoding.EncodeToString(f.PNG))
	}
	fmt.Fprintf(w, "\n<figcaption>%s", html.EscapeString(f.Name))
	if f.Caption != "" {
		fmt.Fprintf(w, " — %s", html.EscapeString(f.Caption))
	}
	fmt.Fprint(w, "</figcaption>\n</figure>\n")
}

func writeTable(w io.Writer, t Table) {
	fmt.Fprint(w, "<div class=\"tablewrap\"><table>\n")
	if t.Caption != "" {
		fmt.Fprintf(w, "<caption>%s</caption>\n", html.EscapeString(t.Caption))
	}
	fmt.Fprint(w, "<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(h))
	}
	fmt.Fprint(w, "</tr></thead>\n<tbody>\n")
	for i, r := range t.Rows {
		if i < len(t.Flag) && t.Flag[i] {
			fmt.Fprint(w, `<tr class="flag">`)
		} else {
			fmt.Fprint(w, "<tr>")
		}
		for _, c := range r {
			if looksNumeric(c) {
				fmt.Fprintf(w, `<td class="num">%s</td>`, html.EscapeString(c))
			} else {
				fmt.Fprintf(w, "<td>%s</td>", html.EscapeString(c))
			}
		}
		fmt.Fprint(w, "</tr>\n")
	}
	fmt.Fprint(w, "</tbody>\n</table></div>\n")
}

var numericRe = lazyRegexp(`^[-+−]?[0-9.,]+([eE][-+]?[0-9]+)?\s*(%|[a-zA-Z/]{0,6})$`)

func looksNumeric(s string) bool { return numericRe().MatchString(strings.TrimSpace(s)) }

// WriteHTML writes the page as one self-contained HTML document.
func (p Page) WriteHTML(w io.Writer) error {
	ew := output.NewWriter(w)
	writeHead(ew, p.Title)
	fmt.Fprintf(ew, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	if p.Intro != "" {
		fmt.Fprintf(ew, "<p>%s</p>\n", html.EscapeString(p.Intro))
	}
	if len(p.Figures) > 0 {
		cls := "figs"
		if len(p.Figures) == 1 {
			cls = "figs one"
		}
		fmt.Fprintf(ew, "<div class=\"%s\">\n", cls)
		for _, f := range p.Figures {
			writeFigure(ew, f)
		}
		fmt.Fprint(ew, "</div>\n")
	}
	for _, t := range p.Tables {
		writeTable(ew, t)
	}
	fmt.Fprint(ew, "</body>\n</html>\n")
	return ew.Err()
}
