package trace

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Snippets of the real files (walltimes/*.log, slant/makespans-312.csv).
const (
	plainSLANT = "7013\n7399\n7433\n7574\n8824\n"
	plainCTEye = "3.549200000000000000e+04\n5.605800000000000000e+04\n3.522500000000000000e+04\n"
	csvSLANT   = "run,makespan\n1,4041\n2,4338\n3,3804\n4,3735\n"
)

// sacctSample is hand-written output of
//
//	sacct --parsable2 --format=JobID,JobName,State,Elapsed,ElapsedRaw
//
// for a job run ten times, with the steps Slurm prints for each job, an
// array task, a job that hit its limit, cancelled, failed, out-of-memory and
// still-running jobs, and a heterogeneous job.
const sacctSample = `JobID|JobName|State|Elapsed|ElapsedRaw
4172901|slant|COMPLETED|02:05:13|7513
4172901.batch|batch|COMPLETED|02:05:13|7513
4172901.extern|extern|COMPLETED|02:05:13|7513
4172902|slant|TIMEOUT|02:30:02|9002
4172902.batch|batch|CANCELLED|02:30:04|9004
4172902.extern|extern|COMPLETED|02:30:02|9002
4172903|slant|CANCELLED by 51234|00:12:40|760
4172903.batch|batch|CANCELLED|00:12:41|761
4172903.extern|extern|COMPLETED|00:12:40|760
4172904|slant|FAILED|00:00:03|3
4172904.batch|batch|FAILED|00:00:03|3
4172904.extern|extern|COMPLETED|00:00:03|3
4172905_7|slant|COMPLETED|1-01:02:03|90123
4172905_7.batch|batch|COMPLETED|1-01:02:03|90123
4172905_7.0|python|COMPLETED|1-01:01:58|90118
4172906|slant|OUT_OF_MEMORY|01:10:00|4200
4172906.batch|batch|OUT_OF_MEMORY|01:10:00|4200
4172907|slant|COMPLETED|01:58:20|7100
4172907.batch|batch|COMPLETED|01:58:20|7100
4172907.extern|extern|COMPLETED|01:58:20|7100
4172908+0|slant|COMPLETED|02:00:00|7200
4172908+1|slant|COMPLETED|02:00:00|7200
4172908+0.batch|batch|COMPLETED|02:00:00|7200
4172909|slant|RUNNING|00:40:00|2400
4172909.batch|batch|RUNNING|00:40:00|2400
`

func readHist(t *testing.T, in string, opt WalltimesOptions) Walltimes {
	t.Helper()
	h, err := ReadWalltimes(strings.NewReader(in), "h", opt)
	if err != nil {
		t.Fatalf("ReadWalltimes: %v", err)
	}
	return h
}

func TestHistoryPlain(t *testing.T) {
	h := readHist(t, plainSLANT, WalltimesOptions{})
	if h.Format != HistoryPlain || !reflect.DeepEqual(h.Values, []float64{7013, 7399, 7433, 7574, 8824}) || skippedTotal(h) != 0 {
		t.Errorf("got %+v", h)
	}
	h = readHist(t, plainCTEye, WalltimesOptions{})
	if !reflect.DeepEqual(h.Values, []float64{35492, 56058, 35225}) {
		t.Errorf("got %v", h.Values)
	}
	in := "# walltimes of my job\n\n2h\n  90m  \n1.5d # long one\n\n1-00:00:00\n01:30:00\n05:00.5\n# end\n"
	h = readHist(t, in, WalltimesOptions{})
	want := []float64{7200, 5400, 129600, 86400, 5400, 300.5}
	if !reflect.DeepEqual(h.Values, want) {
		t.Errorf("got %v, want %v", h.Values, want)
	}
	if h.Skipped[SkipBlank] != 2 || h.Skipped[SkipComment] != 2 {
		t.Errorf("skipped %v", h.Skipped)
	}
	// CRLF line ends and a byte-order mark.
	h = readHist(t, "\uFEFF10\r\n20\r\n", WalltimesOptions{})
	if !reflect.DeepEqual(h.Values, []float64{10, 20}) {
		t.Errorf("CRLF: got %v", h.Values)
	}
}

func TestHistoryCSV(t *testing.T) {
	h := readHist(t, csvSLANT, WalltimesOptions{})
	if h.Format != HistoryCSV || h.Column != "makespan" || !reflect.DeepEqual(h.Values, []float64{4041, 4338, 3804, 3735}) {
		t.Errorf("got %+v", h)
	}
	cases := []struct {
		in, col, want string
		vals          []float64
	}{
		{"id,value\n1,10\n2,20\n", "", "value", []float64{10, 20}},
		{"JobID;Wall Time (s);user\n7;100;bob\n", "", "Wall Time (s)", []float64{100}},
		{"run\ttime\n1\t5\n", "", "time", []float64{5}},
		{"makespan\n300\n# note\n\n400\nmakespan\n500\n", "", "makespan", []float64{300, 400, 500}},
		{"req,elapsed,walltime\n1,2,3\n", "WALLTIME", "walltime", []float64{3}},
		{`name,"runtime"` + "\n" + `"job, big",12` + "\n" + `"say ""hi""",13` + "\n", "", "runtime", []float64{12, 13}},
		{"seconds\n4\n", "seconds", "seconds", []float64{4}},
		{"run,makespan\n1,1h\n2,00:30:00\n", "", "makespan", []float64{3600, 1800}},
	}
	for _, c := range cases {
		h := readHist(t, c.in, WalltimesOptions{Column: c.col})
		if h.Format != HistoryCSV || h.Column != c.want || !reflect.DeepEqual(h.Values, c.vals) {
			t.Errorf("%q: got %+v", c.in, h)
		}
	}
	h = readHist(t, "makespan\n300\n# note\n\n400\nmakespan\n500\n", WalltimesOptions{})
	if h.Skipped[SkipHeader] != 1 || h.Skipped[SkipComment] != 1 || h.Skipped[SkipBlank] != 1 {
		t.Errorf("skipped %v", h.Skipped)
	}
}

// sacct output is recognised and refused with a pointer to slurm's reader,
// forced or detected.
func TestHistorySacctRefused(t *testing.T) {
	for _, opt := range []WalltimesOptions{{}, {Format: HistorySacct}} {
		_, err := ReadWalltimes(strings.NewReader(sacctSample), "h.txt", opt)
		wantErr(t, "h.txt", err, 1, "slurm.ReadHistory")
	}
}

func TestHistoryErrors(t *testing.T) {
	cases := []struct {
		in   string
		opt  WalltimesOptions
		line int
		frag []string
	}{
		{"10\n20\nabc\n", WalltimesOptions{}, 3, []string{`invalid walltime "abc"`}},
		{"abc\n10\n", WalltimesOptions{}, 1, []string{`invalid walltime "abc"`}},
		{"# c\n10\n0\n", WalltimesOptions{}, 3, []string{"must be > 0", `"0"`}},
		{"10\n-5\n", WalltimesOptions{}, 2, []string{"must be > 0", `"-5"`}},
		{"10\nNaN\n", WalltimesOptions{}, 2, []string{`"NaN"`}},
		{"10\n1e999\n", WalltimesOptions{}, 2, []string{`"1e999"`}},
		{"10 20\n", WalltimesOptions{}, 1, []string{`"10 20"`}},
		{"run,makespan\n1,4041\n2,abc\n", WalltimesOptions{}, 3, []string{`invalid walltime "abc"`}},
		{"run,makespan\n1,4041\n2\n", WalltimesOptions{}, 3, []string{"1 fields", "header (line 1) has 2"}},
		{"run,makespan\n1,0\n", WalltimesOptions{}, 2, []string{"must be > 0"}},
		{"run,makespan\n1,\n", WalltimesOptions{}, 2, []string{`invalid walltime ""`}},
		{"a,b\n1,2\n", WalltimesOptions{}, 2, []string{"ambiguous", `"a", "b"`}},
		{"walltime,elapsed\n1,2\n", WalltimesOptions{}, 1, []string{"ambiguous", `"walltime", "elapsed"`}},
		{"id,user\n1,bob\n", WalltimesOptions{}, 2, []string{"no numeric walltime column"}},
		{"run,makespan\n1,2\n", WalltimesOptions{Column: "x"}, 1, []string{`no column "x"`, `"run", "makespan"`}},
		{"a,\"b\n1,2\n", WalltimesOptions{}, 1, []string{"unterminated quote"}},
		{"1,4041\n2,4338\n", WalltimesOptions{}, 1, []string{"CSV header expected", `"1,4041"`}},
		{"JobID      State      ElapsedRaw\n------------ ---------- ----------\n1 COMPLETED 100\n", WalltimesOptions{}, 1, []string{"--parsable2"}},
		{"------------ ----------\n1 COMPLETED 100\n", WalltimesOptions{}, 1, []string{"--parsable2"}},
		{"100\n------------ ----------\n", WalltimesOptions{}, 2, []string{"--parsable2"}},
		{"abc\x00\x01\xff\xfeabc\x00\x01\xff\xfeabc\x00\x01\xff\xfeabc\x00\x01\xff\xfe\n", WalltimesOptions{}, 1, []string{"binary data"}},
		{"100\n\xff\xfe\x00garbage\n", WalltimesOptions{}, 2, []string{"binary data"}},
		{"JobID    JobName  State\n------------ ---------- ----------\n", WalltimesOptions{}, 1, []string{"--parsable2"}},
		{"10\n", WalltimesOptions{Format: "xml"}, 0, []string{`unknown history format "xml"`}},
		{"", WalltimesOptions{}, 0, []string{"no walltimes", "empty"}},
		{"\n# nothing\n", WalltimesOptions{}, 0, []string{"no walltimes", "1 blank", "1 comment"}},
		{"run,makespan\n", WalltimesOptions{}, 0, []string{"no walltimes"}},
	}
	for _, c := range cases {
		_, err := ReadWalltimes(strings.NewReader(c.in), "h.txt", c.opt)
		t.Run(fmt.Sprintf("%.20q", c.in), func(t *testing.T) { wantErr(t, "h.txt", err, c.line, c.frag...) })
	}
}

// A binary file's error is one short line: the file, the line, and at most
// a 16-byte quoted prefix.
func TestHistoryBinaryShortError(t *testing.T) {
	in := strings.Repeat("abc\x00\x01\xff\xfe", 60)
	_, err := ReadWalltimes(strings.NewReader(in), "h.bin", WalltimesOptions{})
	if err == nil || len(err.Error()) > 120 || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "h.bin:1:") {
		t.Errorf("error %q", err)
	}
}

func TestHistoryOrderIsFileOrder(t *testing.T) {
	// The last five runs are the last five values, whatever their size.
	in := "50\n10\n40\n20\n30\n60\n5\n"
	h := readHist(t, in, WalltimesOptions{})
	last := h.Values[len(h.Values)-5:]
	if !reflect.DeepEqual(last, []float64{40, 20, 30, 60, 5}) {
		t.Errorf("last five %v", last)
	}
}

// TestHistoryRoundTrip writes random positive walltimes in each layout and
// reads them back exactly, in order.
func TestHistoryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(rapid.IntRange(1, 10_000_000).Draw(t, "v")) / float64(rapid.SampledFrom([]int{1, 2, 8, 1000}).Draw(t, "div"))
		}
		var plain, csv strings.Builder
		csv.WriteString("run,walltime\n")
		for i, v := range vals {
			if rapid.Bool().Draw(t, "comment") {
				plain.WriteString("# c\n\n")
			}
			plain.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + "\n")
			fmt.Fprintf(&csv, "%d,%s\n", i+1, strconv.FormatFloat(v, 'e', -1, 64))
		}
		for _, c := range []struct {
			in     string
			format HistoryFormat
			want   []float64
		}{{plain.String(), HistoryPlain, vals}, {csv.String(), HistoryCSV, vals}} {
			h, err := ReadWalltimes(strings.NewReader(c.in), "rt", WalltimesOptions{})
			if err != nil {
				t.Fatalf("%s: %v", c.format, err)
			}
			if h.Format != c.format || !reflect.DeepEqual(h.Values, c.want) {
				t.Fatalf("%s: got %s %v, want %v", c.format, h.Format, h.Values, c.want)
			}
		}
	})
}

func TestHistoryRealFiles(t *testing.T) {
	cases := []struct {
		rel      string
		format   HistoryFormat
		n        int
		min, max float64
		mean     float64
	}{
		{"walltimes/slant-drd-88.log", HistoryPlain, 88, 0, 0, 7511},
		{"walltimes/ct-eye-segmentation-300.log", HistoryPlain, 300, 0, 0, 0},
		{"slant/makespans-312.csv", HistoryCSV, 312, 3371, 9590, 0},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			h, err := ReadWalltimes(openReal(t, c.rel), c.rel, WalltimesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if h.Format != c.format || len(h.Values) != c.n {
				t.Fatalf("format %s, %d values; want %s, %d", h.Format, len(h.Values), c.format, c.n)
			}
			lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
			for _, v := range h.Values {
				lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
			}
			if c.min != 0 && (lo != c.min || hi != c.max) {
				t.Errorf("range [%v, %v], want [%v, %v]", lo, hi, c.min, c.max)
			}
			if c.mean != 0 && math.Abs(sum/float64(len(h.Values))-c.mean) > 1 {
				t.Errorf("mean %v, want about %v", sum/float64(len(h.Values)), c.mean)
			}
		})
	}
}

func FuzzReadHistory(f *testing.F) {
	for _, s := range []string{plainSLANT, plainCTEye, csvSLANT, sacctSample, "2h\n# c\n1-00:00:00\n",
		"a,b\n1,2\n", `x,"runtime"` + "\n\"a,b\",3\n", "JobID|State|Elapsed|\n1|COMPLETED|05:06|\n"} {
		f.Add(s, "")
	}
	f.Add(csvSLANT, "run")
	f.Add(sacctSample, "Elapsed")
	f.Fuzz(func(t *testing.T, in, col string) {
		h, err := ReadWalltimes(strings.NewReader(in), "fz", WalltimesOptions{Column: col})
		if err != nil {
			checkErrShape(t, "fz", err)
			return
		}
		if len(h.Values) == 0 {
			t.Fatal("no values and no error")
		}
		for _, v := range h.Values {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("bad value %v", v)
			}
		}
	})
}

// skippedTotal is the number of lines h skipped for any reason.
func skippedTotal(h Walltimes) int {
	n := 0
	for _, c := range h.Skipped {
		n += c
	}
	return n
}
