package iosim

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
)

// The recorder leaves the run unchanged (the same Run, every float), and
// what it records obeys the model: under Token sharing at most one
// transfer at a time; every wait that ends normally ends when the same
// job's transfer of the same kind starts; segments overlap the window and
// have End ≥ Start.
func TestTimelineRecorder(t *testing.T) {
	c := small()
	ctx := context.Background()
	// The authors' model hands a failed job's reservations to a phantom:
	// drawn in that job's lane, still one holder at a time.
	keep := AuthorsModel{KeepReservations: true, SkipLateCheckpoints: true}
	for _, n := range []string{"oblivious-daly", "ordered-daly", "ordered-nb-daly", "least-waste", "interference-free", "ordered-daly+keep", "ordered-nb-daly+keep"} {
		name, authors, _ := strings.Cut(n, "+")
		st, err := Lookup(name, 3600)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Span: 6 * Day, Skip: Day / 2, Seed: 3}
		c := c
		if authors != "" {
			c.Platform.NodeMTBF = Seconds(4 * Day) // failures during transfers and waits
			opt.Authors = keep
			without, _ := Simulate(&c, st, Options{Span: opt.Span, Skip: opt.Skip, Seed: opt.Seed})
			if with, _ := Simulate(&c, st, opt); reflect.DeepEqual(with, without) {
				t.Fatalf("%s: the authors' model changed nothing: no phantom exercised", n)
			}
		}
		plain, err := Simulate(&c, st, opt)
		if err != nil {
			t.Fatal(err)
		}
		from, to := 1.0*Day, 3.0*Day
		rec, tl, err := SimulateTimeline(ctx, &c, st, opt, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(plain, rec) {
			t.Fatalf("%s: the recorder changed the run:\n%+v\n%+v", n, plain, rec)
		}
		var transfers []Segment
		starts := map[[2]int][]float64{} // job, kind → transfer starts
		for _, sg := range tl.Segments {
			if !(sg.End >= sg.Start) || sg.End < from || sg.Start > to || sg.Job < 0 {
				t.Fatalf("%s: segment %+v outside [%g, %g] or reversed", n, sg, from, to)
			}
			if !sg.Wait {
				transfers = append(transfers, sg)
				starts[[2]int{sg.Job, int(sg.Kind)}] = append(starts[[2]int{sg.Job, int(sg.Kind)}], sg.Start)
			}
		}
		if len(transfers) < 10 {
			t.Fatalf("%s: only %d transfers recorded: the test exercises nothing", n, len(transfers))
		}
		if st.Sharing != Token {
			continue
		}
		slices.SortFunc(transfers, func(a, b Segment) int { return int(math.Copysign(1, a.Start-b.Start)) })
		for i := 1; i < len(transfers); i++ {
			if transfers[i].Start < transfers[i-1].End {
				t.Fatalf("%s: two transfers hold the token at once: %+v and %+v", n, transfers[i-1], transfers[i])
			}
		}
		waits := 0
		for _, sg := range tl.Segments {
			if sg.Wait && !sg.Cut && sg.End < to {
				waits++
				if !slices.Contains(starts[[2]int{sg.Job, int(sg.Kind)}], sg.End) {
					t.Fatalf("%s: wait %+v does not end at a transfer's start", n, sg)
				}
			}
		}
		if waits == 0 {
			t.Fatalf("%s: no wait recorded", n)
		}
	}
	if _, _, err := SimulateTimeline(ctx, &c, Baseline(), Options{Span: Day}, 5, 5); err == nil {
		t.Error("an empty window was accepted")
	}
}

func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in       string
		from, to float64
		ok       bool
	}{
		{"6h", Day, Day + 6*3600, true},
		{"10d:10.25d", 10 * Day, 10.25 * Day, true},
		{"86400:93600", 86400, 93600, true},
		{"1:30", Day, Day + 90, true}, // Slurm's MM:SS: a length
		{"2d:1d", 0, 0, false},
		{"0", 0, 0, false},
		{"x:y", 0, 0, false},
		{"", 0, 0, false},
	} {
		from, to, err := ParseWindow(tc.in, Day)
		if (err == nil) != tc.ok || (tc.ok && (from != tc.from || to != tc.to)) {
			t.Errorf("ParseWindow(%q) = %g, %g, %v; want %g, %g (ok %v)", tc.in, from, to, err, tc.from, tc.to, tc.ok)
		}
	}
}

// FuzzParseWindow: an accepted window is finite with 0 ≤ from < to, and
// its error names the value.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"6h", "10d:10.25d", "1:30", "1:2:3:4", "-1h:2h", "inf", "1e308d:1e309d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseWindow(s, 3600)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q does not name %q", err, s)
			}
			return
		}
		if !(from >= 0 && to > from) || math.IsInf(to, 0) || math.IsNaN(from) {
			t.Fatalf("ParseWindow(%q) = [%g, %g]", s, from, to)
		}
	})
}

// reportForPicture is a small run report with its timelines.
func reportForPicture(t *testing.T) (RunReport, []Timeline) {
	t.Helper()
	c := small()
	sts, err := LookupList("oblivious-daly,ordered-daly,least-waste", 3600)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Span: 6 * Day, Skip: Day / 2}
	var rs []TrialResult
	for seed := range uint64(3) {
		o := opt
		o.Seed = seed
		out, err := Trial(&c, sts, o)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, TrialResult{Param: "bandwidth", Value: 1, Seed: seed, Strategies: []string{sts[0].Name, sts[1].Name, sts[2].Name}, Outcome: out})
	}
	rep, err := Report(c, rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	tls, err := Timelines(context.Background(), &c, sts, opt, Day, Day+8*3600)
	if err != nil {
		t.Fatal(err)
	}
	return rep, tls
}

// The waste panels carry the report's numbers: a bar per strategy at its
// mean waste, the bound last and highlighted, and per part of the split
// the strategies' mean fractions (the five parts of a run sum to 1).
func TestWastePanels(t *testing.T) {
	rep, _ := reportForPicture(t)
	ps := WastePanels(rep)
	if len(ps) != 6 {
		t.Fatalf("%d panels, want 6", len(ps))
	}
	bars := ps[0].Bars
	if len(bars) != len(rep.Strategies)+1 || !bars[len(bars)-1].Highlight || bars[len(bars)-1].Value != float64(rep.Bound) {
		t.Fatalf("waste bars %+v: want one per strategy and the bound %v last", bars, float64(rep.Bound))
	}
	for i, s := range rep.Strategies {
		sum := 0.0
		for _, p := range ps[1:] {
			if p.Bars[i].Label != s.Name {
				t.Fatalf("panel %q: bar %d is %q, want %q", p.Title, i, p.Bars[i].Label, s.Name)
			}
			sum += p.Bars[i].Value
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: the five parts sum to %v, want 1", s.Name, sum)
		}
	}
}

var (
	textRe = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"\s*style="[^"]*font-size:([0-9.]+)px">([^<]*)</text>`)
	// a data rectangle: a filled closed path (the fill is omitted when
	// it is the previous one's), then its thin white edge
	rectRe = regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L[-0-9.e]+,([-0-9.e]+)L([-0-9.e]+),[-0-9.e]+L[-0-9.e]+,[-0-9.e]+L[-0-9.e]+,[-0-9.e]+Z"(?: style="fill:#[0-9A-F]+")?\s*/>\s*<path d="[^"]*" style="fill:none;stroke:#FFFFFF`)
)

// The pictures' SVG, checked for structure, not pixels: titles and axis
// labels with units, a legend entry per kind drawn, as many data
// rectangles as segments in the window (one lane per job, at most
// MaxLanes), and no legend entry over a data rectangle.
func TestPlotRunSVGStructure(t *testing.T) {
	rep, tls := reportForPicture(t)
	path := filepath.Join(t.TempDir(), "run.svg")
	if err := PlotRun(path, rep, tls); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"Waste of each strategy", ">lower bound (Theorem 1)<", "waste (fraction of the baseline",
		"Node-time booked as checkpoint", "lost (fraction of node-time)", "time in the run (h)", "job (one lane each)",
		"ordered-daly: the file system from", ">checkpoint transfer<", ">checkpoint: waiting for the token<"} {
		if !strings.Contains(svg, strings.ReplaceAll(want, "’", "'")) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	segs := 0
	for _, tl := range tls {
		jobs := map[int]bool{}
		for _, sg := range tl.Segments {
			jobs[sg.Job] = true
			if math.Min(sg.End, tl.To) > math.Max(sg.Start, tl.From) {
				segs++
			}
		}
		if len(jobs) > MaxLanes {
			t.Fatalf("%d jobs in a timeline: more than MaxLanes, the count below is wrong", len(jobs))
		}
	}
	rects := rectRe.FindAllStringSubmatch(svg, -1)
	if len(rects) != segs || segs < 20 {
		t.Errorf("%d data rectangles for %d segments of positive length", len(rects), segs)
	}
	legend := map[string]bool{}
	for k := Input; k <= Output; k++ {
		legend[k.String()+" transfer"], legend[k.String()+": waiting for the token"] = true, true
	}
	entries := 0
	for _, m := range textRe.FindAllStringSubmatch(svg, -1) {
		if !legend[m[4]] {
			continue
		}
		entries++
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		size, _ := strconv.ParseFloat(m[3], 64)
		// the entry: its swatch (about 2.4 em before the text) and the
		// text (at most 0.6 em per character), baseline at −y
		x0, x1, y0, y1 := x-2.6*size, x+0.6*size*float64(len(m[4])), -y-0.3*size, -y+0.8*size
		for _, r := range rects {
			rx0, _ := strconv.ParseFloat(r[1], 64)
			ry0, _ := strconv.ParseFloat(r[2], 64)
			ry1, _ := strconv.ParseFloat(r[3], 64)
			rx1, _ := strconv.ParseFloat(r[4], 64)
			if math.Min(rx0, rx1) < x1 && math.Max(rx0, rx1) > x0 && math.Min(ry0, ry1) < y1 && math.Max(ry0, ry1) > y0 {
				t.Fatalf("legend entry %q covers data (rectangle %v)", m[4], r[1:5])
			}
		}
	}
	if entries < 2*len(tls) {
		t.Errorf("%d legend entries in %d timelines", entries, len(tls))
	}
	page, err := RunPage(rep, tls)
	if err != nil || len(page.Figures) != 1+len(tls) || len(page.Tables) != 1 || len(page.Tables[0].Rows) != 3 {
		t.Fatalf("page: %v, %d figures, %d tables", err, len(page.Figures), len(page.Tables))
	}
	if err := PlotRun(filepath.Join(t.TempDir(), "run.pdf"), rep, tls); err == nil {
		t.Error("a .pdf path was accepted")
	}
}

// TestBarValue: a hair below zero is drawn as 0, an undefined value is
// passed on for plot.Bar to label, never turned into a 0 bar.
func TestBarValue(t *testing.T) {
	if got := barValue(-1e-12); got != 0 {
		t.Errorf("barValue(-1e-12) = %v, want 0", got)
	}
	if got := barValue(0.25); got != 0.25 {
		t.Errorf("barValue(0.25) = %v", got)
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := barValue(v); !(math.IsNaN(v) && math.IsNaN(got)) && got != v {
			t.Errorf("barValue(%v) = %v, want it unchanged", v, got)
		}
	}
}
