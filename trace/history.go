package trace

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ckpt-hpc/ckpt/units"
)

// HistoryFormat names a layout of walltime history file.
type HistoryFormat string

// The layouts ReadWalltimes understands.
const (
	// HistoryAuto asks ReadWalltimes to detect the layout (the default).
	HistoryAuto HistoryFormat = ""
	// HistoryPlain is one value per line: seconds ("7013",
	// "3.5492e+04"), a duration accepted by units.ParseSeconds ("2h",
	// "90m", "1.5d") or a Slurm clock ("1-02:03:04", "02:03:04", "03:04").
	// Blank lines and "#" comments (whole-line or trailing) are skipped.
	HistoryPlain HistoryFormat = "plain"
	// HistoryCSV is a table with a header line, separated by commas (or
	// tabs, or semicolons, whichever the header uses). Values are read
	// like HistoryPlain values. Blank lines, "#" comment lines and repeats
	// of the header line are skipped.
	HistoryCSV HistoryFormat = "csv"
	// HistorySacct is the output of "sacct --parsable2", detected by the
	// "|" of its header. It is read by slurm.ReadSacct (the one sacct
	// reader: it groups the reservations of a chain into one run and keeps
	// runs that never finished as censored ones), through
	// slurm.ReadHistory; ReadWalltimes refuses it with that pointer.
	HistorySacct HistoryFormat = "sacct"
)

// Reasons under which Walltimes.Skipped counts the lines it did not use.
const (
	SkipBlank   = "blank"   // empty or all-blank line
	SkipComment = "comment" // line starting with "#"
	SkipHeader  = "header"  // a repeat of the header line (concatenated outputs)
)

// WalltimesOptions tunes ReadWalltimes. The zero value auto-detects everything.
type WalltimesOptions struct {
	// Format forces a layout; HistoryAuto (empty) detects it from the first
	// line that is neither blank nor a comment: a line containing "|" is
	// sacct output (refused: see HistorySacct), a line holding one valid
	// value is a plain list, and anything else is a CSV header.
	Format HistoryFormat
	// Column selects the column to read, by case-insensitive name. For CSV,
	// when empty, the column is the only one whose name looks like a
	// duration (makespan, walltime, wallclock, elapsed, runtime, duration,
	// time), else the only numeric column of the first data row that is
	// not an index (run, id, index, …); anything else is an error listing
	// the candidates. Ignored for plain lists.
	Column string
}

// Walltimes is a job's past walltimes, as read by ReadWalltimes.
type Walltimes struct {
	// Values are the walltimes in seconds, each finite and > 0, in file
	// order: the last runs of the file are the last values.
	Values []float64
	// Format is the layout read (detected or forced).
	Format HistoryFormat
	// Column is the header name of the column read (CSV only).
	Column string
	// Skipped counts the lines not used, by reason (SkipBlank,
	// SkipComment, SkipHeader). It is never nil.
	Skipped map[string]int
}

// ReadWalltimes reads the past walltimes of a job from a plain list or a
// CSV column: the generic part of a walltime history. slurm.ReadHistory is
// the one history reader of ckpt (it also reads sacct output, with its
// censored runs) and calls this one for the other layouts. The name is
// used in error messages only ("history.csv:12: invalid walltime \"abc\"").
//
// See HistoryFormat for the layouts and WalltimesOptions for the choice of
// column; sacct output is refused (slurm.ReadHistory reads it). Every
// value must be finite and > 0: a zero,
// negative or unparsable value is an error naming its line, as is a line
// with the wrong number of fields; a history with no value is an error that
// lists what was skipped. The input is read once, line by line; memory is
// one float64 per value.
func ReadWalltimes(r io.Reader, name string, opt WalltimesOptions) (Walltimes, error) {
	h := Walltimes{Skipped: map[string]int{}}
	ls := newLineScanner(r, name)
	// Find the first meaningful line, counting what is skipped before it.
	var first string
	found := false
	for ls.scan() {
		t := strings.TrimSpace(ls.text)
		switch {
		case t == "":
			h.Skipped[SkipBlank]++
		case strings.HasPrefix(t, "#"):
			h.Skipped[SkipComment]++
		default:
			first, found = t, true
		}
		if found {
			break
		}
	}
	if err := ls.err(); err != nil {
		return h, err
	}
	if !found {
		return h, emptyHistory(name, h)
	}
	if err := checkText(ls, first); err != nil {
		return h, err
	}
	format := opt.Format
	if format == HistoryAuto {
		var err error
		if format, err = detectHistory(ls, first, opt); err != nil {
			return h, err
		}
	}
	h.Format = format
	var err error
	switch format {
	case HistoryPlain:
		err = readPlain(ls, first, &h)
	case HistoryCSV:
		err = readCSV(ls, first, opt, &h)
	case HistorySacct:
		err = ls.errorf("sacct output is read by slurm.ReadHistory, which groups chains and censors unfinished runs")
	default:
		return h, errorf(name, 0, "unknown history format %s", quote(string(format)))
	}
	if err != nil {
		return h, err
	}
	if len(h.Values) == 0 {
		return h, emptyHistory(name, h)
	}
	return h, nil
}

// detectHistory picks the layout from the first meaningful line.
func detectHistory(ls *lineScanner, first string, opt WalltimesOptions) (HistoryFormat, error) {
	if strings.Contains(first, "|") {
		return HistorySacct, nil
	}
	if strings.EqualFold(first, "JobID") || strings.HasPrefix(strings.ToLower(first), "jobid ") || separatorLine(first) {
		return "", ls.errorf("sacct output must be --parsable2 (-P), got %s", shortQuote(first))
	}
	if _, err := parseWalltime(stripComment(first)); err == nil {
		return HistoryPlain, nil
	}
	if strings.ContainsAny(first, ",\t;") {
		return HistoryCSV, nil
	}
	// A single word: a one-column CSV header if it names a duration (or the
	// requested column), else a bad value in a plain list.
	col := unquoteField(first)
	if durationName(col) || (opt.Column != "" && strings.EqualFold(col, opt.Column)) {
		return HistoryCSV, nil
	}
	return "", ls.errorf("invalid walltime %s", quote(first))
}

func readPlain(ls *lineScanner, first string, h *Walltimes) error {
	line := first
	for {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			h.Skipped[SkipBlank]++
		case strings.HasPrefix(t, "#"):
			h.Skipped[SkipComment]++
		default:
			v, err := positiveWalltime(ls, stripComment(t))
			if err != nil {
				return err
			}
			h.Values = append(h.Values, v)
		}
		if !ls.scan() {
			return ls.err()
		}
		line = ls.text
	}
}

func readCSV(ls *lineScanner, header string, opt WalltimesOptions, h *Walltimes) error {
	sep := ","
	for _, c := range ",\t;" {
		if strings.ContainsRune(header, c) {
			sep = string(c)
			break
		}
	}
	cols, err := splitCSV(ls, header, sep)
	if err != nil {
		return err
	}
	allNumbers := true
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
		if _, err := strconv.ParseFloat(cols[i], 64); err != nil {
			allNumbers = false
		}
	}
	if allNumbers {
		return ls.errorf("CSV header expected, got numbers %s", quote(header))
	}
	col := -1
	if opt.Column != "" {
		if col = findColumn(cols, opt.Column); col < 0 {
			return ls.errorf("no column %s in header (columns: %s)", quote(opt.Column), listColumns(cols))
		}
	} else {
		var cands []int
		for i, c := range cols {
			if durationName(c) {
				cands = append(cands, i)
			}
		}
		switch len(cands) {
		case 0: // decided on the first data row
		case 1:
			col = cands[0]
		default:
			return ls.errorf("ambiguous walltime column: candidates %s; select one by name", listIndexed(cols, cands))
		}
	}
	headerLine := ls.line
	for ls.scan() {
		t := strings.TrimSpace(ls.text)
		switch {
		case t == "":
			h.Skipped[SkipBlank]++
			continue
		case strings.HasPrefix(t, "#"):
			h.Skipped[SkipComment]++
			continue
		case t == header:
			h.Skipped[SkipHeader]++
			continue
		}
		fields, err := splitCSV(ls, ls.text, sep)
		if err != nil {
			return err
		}
		if len(fields) != len(cols) {
			return ls.errorf("%d fields, header (line %d) has %d", len(fields), headerLine, len(cols))
		}
		if col < 0 {
			if col, err = numericColumn(ls, cols, fields); err != nil {
				return err
			}
		}
		v, err := positiveWalltime(ls, strings.TrimSpace(fields[col]))
		if err != nil {
			return err
		}
		h.Values = append(h.Values, v)
	}
	if col >= 0 {
		h.Column = cols[col]
	}
	return ls.err()
}

// numericColumn picks, from the first data row, the only numeric column
// that is not an index.
func numericColumn(ls *lineScanner, cols, fields []string) (int, error) {
	var cands []int
	for i, f := range fields {
		if indexName(cols[i]) {
			continue
		}
		if _, err := parseWalltime(strings.TrimSpace(f)); err == nil {
			cands = append(cands, i)
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return -1, ls.errorf("no numeric walltime column (columns: %s); select one by name", listColumns(cols))
	default:
		return -1, ls.errorf("ambiguous walltime column: candidates %s; select one by name", listIndexed(cols, cands))
	}
}

// positiveWalltime parses a value and checks it is > 0.
func positiveWalltime(ls *lineScanner, s string) (float64, error) {
	v, err := parseWalltime(s)
	if err != nil {
		if separatorLine(s) {
			return 0, ls.errorf("a line of dashes is sacct's fixed-width layout: use sacct --parsable2 (-P)")
		}
		if err := checkText(ls, s); err != nil {
			return 0, err
		}
		return 0, ls.errorf("invalid walltime %s", quote(s))
	}
	if !(v > 0) {
		return 0, ls.errorf("walltime must be > 0, got %s", quote(s))
	}
	return v, nil
}

// parseWalltime reads seconds, a duration or a Slurm clock (sacct's
// Elapsed, with a fraction of a second in TotalCPU's style): the one
// grammar of units.ParseSeconds; the result is finite but may be ≤ 0.
func parseWalltime(s string) (float64, error) { return units.ParseSeconds(s) }

// separatorLine reports whether s is made of dashes and blanks only, with
// at least three dashes: the rule under the header of sacct's default,
// fixed-width output.
func separatorLine(s string) bool {
	return strings.Count(s, "-") >= 3 && strings.Trim(s, "- \t") == ""
}

// checkText refuses a line that is not text (a NUL, another control
// character, or bytes that are not UTF-8): the file is binary, and the
// error shows at most a short quoted prefix of it.
func checkText(ls *lineScanner, line string) error {
	binary := !utf8.ValidString(line)
	for _, r := range line {
		binary = binary || (r < ' ' && r != '\t') || r == 0x7f
	}
	if binary {
		return ls.errorf("not a text file of walltimes (binary data, starting %s)", shortQuote(line))
	}
	return nil
}

// shortQuote quotes at most the first 16 bytes of s.
func shortQuote(s string) string {
	if len(s) <= 16 {
		return strconv.Quote(s)
	}
	cut := 16
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// stripComment removes a trailing "# comment".
func stripComment(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// splitCSV splits one line; fields may be double-quoted ("a,b" and "" for
// a quote). Quoted fields cannot span lines.
func splitCSV(ls *lineScanner, line, sep string) ([]string, error) {
	if !strings.Contains(line, `"`) {
		return strings.Split(line, sep), nil
	}
	var out []string
	var b strings.Builder
	inQuote, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuote && c == '"':
			if i+1 < len(line) && line[i+1] == '"' {
				b.WriteByte('"')
				i++
			} else {
				inQuote = false
			}
		case inQuote:
			b.WriteByte(c)
		case c == '"' && strings.TrimSpace(b.String()) == "" && !quoted:
			b.Reset()
			inQuote, quoted = true, true
		case c == '"':
			return nil, ls.errorf("stray quote in field %d", len(out)+1)
		case strings.HasPrefix(line[i:], sep):
			out = append(out, b.String())
			b.Reset()
			quoted = false
		default:
			if quoted && c != ' ' && c != '\t' {
				return nil, ls.errorf("text after closing quote in field %d", len(out)+1)
			}
			b.WriteByte(c)
		}
	}
	if inQuote {
		return nil, ls.errorf("unterminated quote in field %d", len(out)+1)
	}
	return append(out, b.String()), nil
}

func unquoteField(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// normName lower-cases a column name and drops everything but letters and
// digits: "Wall Time (s)" → "walltimes".
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// durationName reports whether a column name looks like a job duration.
func durationName(s string) bool {
	n := normName(s)
	for _, w := range []string{"makespan", "walltime", "wallclock", "elapsed", "runtime", "duration"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	switch strings.TrimPrefix(n, "time") {
	case "", "s", "sec", "secs", "seconds":
		return strings.HasPrefix(n, "time")
	}
	return false
}

// indexName reports whether a column name looks like a row or job index.
func indexName(s string) bool {
	n := normName(s)
	switch n {
	case "", "run", "runs", "id", "index", "idx", "i", "n", "no", "num", "number",
		"job", "jobs", "rank", "row", "sample", "trial", "rep", "seed", "input", "file":
		return true
	}
	return strings.HasSuffix(n, "id")
}

func findColumn(cols []string, name string) int {
	for i, c := range cols {
		if strings.EqualFold(strings.TrimSpace(c), strings.TrimSpace(name)) {
			return i
		}
	}
	return -1
}

func listColumns(cols []string) string {
	idx := make([]int, len(cols))
	for i := range idx {
		idx[i] = i
	}
	return listIndexed(cols, idx)
}

func listIndexed(cols []string, idx []int) string {
	var b strings.Builder
	for k, i := range idx {
		if k == 12 {
			fmt.Fprintf(&b, ", … (%d more)", len(idx)-k)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(cols[i]))
	}
	return b.String()
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// emptyHistory is the error for a history without values; it says what was
// skipped, which is usually the explanation.
func emptyHistory(name string, h Walltimes) error {
	if len(h.Skipped) == 0 {
		return errorf(name, 0, "%s: input is empty", "no walltimes")
	}
	reasons := make([]string, 0, len(h.Skipped))
	for r := range h.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", h.Skipped[r], r)
	}
	return errorf(name, 0, "%s: all lines skipped (%s)", "no walltimes", strings.Join(parts, ", "))
}
