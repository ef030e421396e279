// Package report writes ckpt's results as self-contained HTML: one file
// with its style sheet and figures inlined (SVG as markup, PNG as data
// URIs), no script, no network access and no external file, readable
// offline and printable.
//
// Load reads a results folder written by `ckpt repro` (the outputs of the
// reproductions of the five papers: comparisons.csv, the figures as SVG
// beside PNG, and optionally FINDINGS.md) and Report.WriteHTML writes a
// summary of every reproduction, then per paper its comparison table (our
// value, the paper's, the delta, highlighted beyond the reproduction's
// Tolerance: |ours − paper| > max(Abs, Rel·|paper|); a comparisons.csv
// column "tolerance" may give a row its own relative tolerance), every
// figure, and FINDINGS.md rendered by Markdown, a small renderer of the
// subset the findings use (headings, paragraphs, nested lists, code,
// tables, emphasis, links), which escapes everything else. Page is the
// single-result page of `ckpt reserve --html` and `ckpt capacity simulate
// --html`.
//
// SVG is inlined only when Sanitize finds nothing active in it (scripts,
// event attributes, foreign objects, external references); any other SVG
// goes in an <img>, where browsers run nothing.
//
// # Complexity
//
// Loading and writing are O(total bytes of the folder's figures and
// tables); the Markdown renderer is O(n) in the text's length for each
// level of list nesting. Memory holds the figures of the whole report.
package report
