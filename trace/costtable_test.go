package trace

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

var (
	blcrFormat = CostFormat{Columns: []string{"index", "memoryMB", "seconds"}}
	criuFormat = CostFormat{Columns: []string{"size", "checkpoint", "restart"}, MoreColumns: true, Header: true}
)

func TestReadCostTable(t *testing.T) {
	in := "\uFEFF# BLCR\n1 10 1\n\n2\t20  3.5\n# end\n"
	ct, err := ReadCostTable(strings.NewReader(in), "t.cost", blcrFormat)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 10, 1}, {2, 20, 3.5}}
	if len(ct.Rows) != 2 || ct.Header != nil || ct.Lines[0] != 2 || ct.Lines[1] != 4 {
		t.Fatalf("got %+v", ct)
	}
	for i := range want {
		for j := range want[i] {
			if ct.Rows[i][j] != want[i][j] {
				t.Fatalf("row %d = %v, want %v", i, ct.Rows[i], want[i])
			}
		}
	}
	if got := ct.Column(1); got[0] != 10 || got[1] != 20 {
		t.Fatalf("Column(1) = %v", got)
	}
	var pe *ParseError
	if err := ct.Errorf(1, "memory %v too small", 20); !errors.As(err, &pe) || err.Error() != "t.cost:4: memory 20 too small" {
		t.Fatalf("Errorf = %v", err)
	}

	ct, err = ReadCostTable(strings.NewReader("Size\tCheckpoint time\tRestart time\tWBW\n0.3\t4.47\t2.139\t68.7\n"), "c.tsv", criuFormat)
	if err != nil || len(ct.Header) != 6 || ct.Header[0] != "Size" || len(ct.Rows) != 1 || ct.Rows[0][2] != 2.139 || len(ct.Rows[0]) != 3 {
		t.Fatalf("CRIU layout: %+v, %v", ct, err)
	}
}

func TestReadCostTableErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		f    CostFormat
		want string
	}{
		{"", blcrFormat, `t: no measurement (want lines of "index memoryMB seconds")`},
		{"# only\n\n", blcrFormat, "t: no measurement"},
		{"1 2\n", blcrFormat, `t:1: want 3 fields "index memoryMB seconds", got 2`},
		{"1 2 3 4\n", blcrFormat, "t:1: want 3 fields"},
		{"1 10 1\n2 x 3\n", blcrFormat, `t:2: field 2 (memoryMB) "x" is not a number >= 0`},
		{"1 10 -1\n", blcrFormat, `t:1: field 3 (seconds) "-1" is not a number >= 0`},
		{"1 NaN 1\n", blcrFormat, "(memoryMB) \"NaN\""},
		{"1 1e999 1\n", blcrFormat, "(memoryMB) \"1e999\""},
		{"Size C R\n", blcrFormat, `t:1: field 1 (index) "Size"`}, // no header allowed
		{"Size C R\nAgain C R\n", criuFormat, `t:2: field 1 (size) "Again"`},
		{"Size C R\n", criuFormat, "t: no measurement"},
		{"1 2 3\n", CostFormat{}, "names no column"},
		{"1 1 " + strings.Repeat("9", maxLine) + "\n", blcrFormat, "t:1: line longer than"},
	} {
		_, err := ReadCostTable(strings.NewReader(c.in), "t", c.f)
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: error %v, want a one-line *ParseError containing %q", c.in, err, c.want)
		}
	}
}

// TestReadCostTableData reads the shared tables: every non-comment line of
// a BLCR table is a measurement, and the CRIU table has a header and the 13
// measurements the data manifest lists (0.3 to 46.95 GB).
func TestReadCostTableData(t *testing.T) {
	p := datadirtest.ForTest(t, "checkpoint-costs", "blcr", "nfs-cp.cost")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := ReadCostTable(strings.NewReader(string(b)), p, blcrFormat)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(string(b)), "\n") + 1; len(ct.Rows) != n {
		t.Errorf("%d rows of %d lines", len(ct.Rows), n)
	}
	p = datadirtest.ForTest(t, "checkpoint-costs", "criu-podman-bandwidth.tsv")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ct, err = ReadCostTable(f, p, criuFormat)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Rows) != 13 || ct.Header == nil || ct.Rows[0][0] != 0.3 || ct.Rows[12][0] < 46 || ct.Rows[12][0] > 48 {
		t.Errorf("CRIU table: header %v, %d rows, first %v, last %v", ct.Header, len(ct.Rows), ct.Rows[0], ct.Rows[len(ct.Rows)-1])
	}
}

// FuzzReadCostTable: an accepted table has rows of finite values >= 0 on
// increasing lines, and printing its rows back gives the same table; a
// refusal is a one-line *ParseError whose line lies within the input.
func FuzzReadCostTable(f *testing.F) {
	f.Add("1 10.266197 0.63997954\n2 22.31324 0.74037933\n", false)
	f.Add("Size\tCheckpoint time\tRestart time\tWBW\tRBW\n0.3\t4.47\t2.139\t68.7\t143.6\n", true)
	f.Add("# x\n\n1 1 1\n", false)
	f.Add("1 1e308 1e308\n", false)
	f.Add("1 0x1p-3 +5\n", true)
	f.Fuzz(func(t *testing.T, in string, criu bool) {
		format := blcrFormat
		if criu {
			format = criuFormat
		}
		ct, err := ReadCostTable(strings.NewReader(in), "f", format)
		lines := strings.Count(in, "\n") + 1
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || strings.ContainsAny(err.Error(), "\n\r") || pe.Line < 0 || pe.Line > lines+1 {
				t.Fatalf("error %q (line %d of %d)", err, pe.Line, lines)
			}
			return
		}
		if len(ct.Rows) == 0 || len(ct.Rows) != len(ct.Lines) {
			t.Fatalf("%d rows, %d lines", len(ct.Rows), len(ct.Lines))
		}
		var b strings.Builder
		for i, r := range ct.Rows {
			if len(r) != len(format.Columns) || ct.Lines[i] < 1 || ct.Lines[i] > lines || (i > 0 && ct.Lines[i] <= ct.Lines[i-1]) {
				t.Fatalf("row %d = %v at line %d", i, r, ct.Lines[i])
			}
			for j, x := range r {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("row %d = %v", i, r)
				}
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			}
			b.WriteByte('\n')
		}
		again, err := ReadCostTable(strings.NewReader(b.String()), "f", format)
		if err != nil {
			t.Fatalf("re-reading %q: %v", b.String(), err)
		}
		for i := range ct.Rows {
			for j := range ct.Rows[i] {
				if again.Rows[i][j] != ct.Rows[i][j] {
					t.Fatalf("round trip: row %d %v became %v", i, ct.Rows[i], again.Rows[i])
				}
			}
		}
	})
}
