package trace

import (
	"io"
	"math"
	"strconv"
	"strings"
)

// CostTable is a table of measured costs, one measurement per line of
// whitespace-separated numbers: the BLCR tables of GloudSim
// (checkpoint-costs/blcr/*.cost: "index memoryMB seconds") and the CRIU table
// (checkpoint-costs/criu-podman-bandwidth.tsv: a header, then "size
// checkpoint restart WBW RBW").
type CostTable struct {
	// Source is the name given to ReadCostTable, used in errors.
	Source string
	// Header holds the fields of the header line (nil when there is none).
	Header []string
	// Rows[i] holds the len(CostFormat.Columns) leading numbers of a
	// measurement, each finite and >= 0; Lines[i] is its 1-based line.
	Rows  [][]float64
	Lines []int
}

// CostFormat says what ReadCostTable expects.
type CostFormat struct {
	// Columns names the leading fields of a row, read as numbers (at least
	// one). Errors quote these names.
	Columns []string
	// MoreColumns accepts rows with fields after Columns (ignored);
	// otherwise a row has exactly len(Columns) fields.
	MoreColumns bool
	// Header accepts a header line: the first line that is not blank or a
	// comment, when its first field is not a number.
	Header bool
}

// ReadCostTable reads a cost table of format f from r; name is used in
// errors. Blank lines and lines starting with "#" are skipped, a UTF-8
// byte-order mark is ignored, and fields are separated by spaces or tabs.
// Every value must be a finite number >= 0 and at least one measurement is
// needed. Errors are *ParseError values naming the line:
// "nfs-cp.cost:3: field 2 (memoryMB) \"x\" is not a number >= 0".
// O(size of the input) time, O(rows·columns) memory.
func ReadCostTable(r io.Reader, name string, f CostFormat) (*CostTable, error) {
	k := len(f.Columns)
	if k == 0 {
		return nil, errorf(name, 0, "cost table format names no column")
	}
	want := strings.Join(f.Columns, " ")
	t := &CostTable{Source: name}
	s := newLineScanner(r, name)
	for s.scan() {
		line := strings.TrimSpace(s.text)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if f.Header && t.Header == nil && len(t.Rows) == 0 {
			if _, err := strconv.ParseFloat(fields[0], 64); err != nil {
				t.Header = fields
				continue
			}
		}
		if len(fields) < k || (!f.MoreColumns && len(fields) > k) {
			return nil, s.errorf("want %d fields %q, got %d", k, want, len(fields))
		}
		row := make([]float64, k)
		for j := range k {
			x, err := strconv.ParseFloat(fields[j], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return nil, s.errorf("field %d (%s) %s is not a number >= 0", j+1, f.Columns[j], quote(fields[j]))
			}
			row[j] = x
		}
		t.Rows = append(t.Rows, row)
		t.Lines = append(t.Lines, s.line)
	}
	if err := s.err(); err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, errorf(name, 0, "no measurement (want lines of %q)", want)
	}
	return t, nil
}

// Column returns the values of column j (0-based) over the rows.
func (t *CostTable) Column(j int) []float64 {
	out := make([]float64, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = r[j]
	}
	return out
}

// Errorf reports a problem with row i (0-based) as a *ParseError naming its
// line: for the checks a caller adds (a memory that must be > 0).
func (t *CostTable) Errorf(i int, format string, args ...any) error {
	return errorf(t.Source, t.Lines[i], format, args...)
}
