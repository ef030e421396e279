package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/rng"
)

const ftaHeader = "# event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason\n"

func ftaLine(id int, node int, name string, typ int, start, stop float64) string {
	return fmt.Sprintf("%6d\t%5d\t%5d\t%5d\t%18s\t%5d\t%12g\t%12g\t%8s\n", id, 0, node, 5, name, typ, start, stop, "NULL")
}

func TestFTAByHand(t *testing.T) {
	// Node 1: down [0,10), up [10,110), down [110,120), up [120,170), up [170,200).
	// Node 2: up [0,50), down [50,60), up [60,260).
	in := ftaHeader + ftaLine(0, 1, "G/s/c1/n1", 0, 0, 10) + ftaLine(1, 1, "G/s/c1/n1", 1, 10, 110) +
		ftaLine(5, 2, "G/s/c2/n2", 1, 0, 50) + ftaLine(2, 1, "G/s/c1/n1", 0, 110, 120) +
		ftaLine(3, 1, "G/s/c1/n1", 1, 120, 170) + ftaLine(4, 1, "G/s/c1/n1", 1, 170, 200) +
		ftaLine(6, 2, "G/s/c2/n2", 0, 50, 60) + ftaLine(7, 2, "G/s/c2/n2", 1, 60, 260)
	s, err := EstimateFTA(strings.NewReader(in), "t.tab", FTAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Failures: node 1 once (at 110, after 100 s up), node 2 once (at 50,
	// after 50 s up). Up: 100+80 = 180 and 50+200 = 250. Span 0..260.
	want := []FTANode{{ID: 1, Name: "G/s/c1/n1", System: "G/s/c1", Failures: 1, Up: 180, Down: 20, MTBF: 180},
		{ID: 2, Name: "G/s/c2/n2", System: "G/s/c2", Failures: 1, Up: 250, Down: 10, MTBF: 250}}
	if fmt.Sprint(s.Nodes) != fmt.Sprint(want) || s.Failures != 2 || s.Events != 8 || s.Span != 260 || s.NodeMTBF != 215 || s.MTBF != 130 {
		t.Fatalf("%+v", s)
	}
	if s.Intervals != 2 || s.Sampled != 2 || len(s.Systems) != 2 || s.Systems[0].MTBF != 200 || s.Systems[1].Span != 260 {
		t.Errorf("%+v", s)
	}
	// E(Y) on both nodes for 1000 s: 1000·(1/180 + 1/250).
	ey, err := s.ExpectedFailures(1000, []string{"G/s/c1/n1", "2"})
	if err != nil || math.Abs(ey-1000*(1.0/180+1.0/250)) > 1e-12 {
		t.Errorf("E(Y) = %v, %v", ey, err)
	}
	if _, err := s.ExpectedFailures(1000, []string{"n9"}); err == nil {
		t.Error("unknown node accepted")
	}
	if got := s.ExpectedFailuresOn(430, 2); got != 4 {
		t.Errorf("E(Y) on 2 typical nodes = %v, want 2·430/215", got)
	}
}

func TestFTARefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{ftaHeader + "1\t2\n", "f:2: 2 tab-separated fields"},
		{ftaLine(0, 1, "n", 2, 0, 1), "f:1: invalid event_type \"2\""},
		{ftaLine(0, 1, "n", 1, 5, 1), "f:1: event_stop_time 1 before event_start_time 5"},
		{"0\t0\tx\t5\tn\t1\t0\t1\tNULL\n", "f:1: invalid node_id \"x\""},
		{strings.Replace(ftaLine(0, 1, "n", 1, 0, 1), "           1\t", "         NaN\t", 1), "f:1: invalid event_stop_time \"NaN\""},
		{ftaLine(0, 1, "n", 1, 10, 20) + "\n" + ftaLine(1, 1, "n", 0, 5, 6), "f:3: node 1: event 1 starts at 5"},
	} {
		_, err := EstimateFTA(strings.NewReader(c.in), "f", FTAOptions{})
		var pe *ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// ftaGen writes an event trace on the fly: nodes alternate available
// periods drawn from law and unavailable periods of 100 s, round-robin
// over the nodes, until n events; it records the peak live heap every
// 100 000 lines.
type ftaGen struct {
	n, nodes, i int
	law         distribution.Distribution
	t           []float64
	buf         bytes.Buffer
	peak        uint64
	up          []bool
	r           func() float64
}

func newFTAGen(n, nodes int, law distribution.Distribution) *ftaGen {
	g := &ftaGen{n: n, nodes: nodes, law: law, t: make([]float64, nodes), up: make([]bool, nodes)}
	rnd := rng.New(7)
	g.r = rnd.Float64
	return g
}

func (g *ftaGen) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.i < g.n {
		node := g.i % g.nodes
		d, typ := 100.0, 0
		if g.up[node] = !g.up[node]; g.up[node] {
			d, typ = g.law.Quantile(g.r()), 1
		}
		g.buf.WriteString(ftaLine(g.i, node, fmt.Sprintf("G/s/c%d/n%d", node%3, node), typ, g.t[node], g.t[node]+d))
		g.t[node] += d
		g.i++
		if g.i%100_000 == 0 {
			runtime.GC() // live heap, not garbage awaiting collection
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			g.peak = max(g.peak, m.HeapAlloc)
		}
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

// With CKPT_FTA_MEMORY=full (.ci/run) 200 000 events against 2 million; in
// plain go test 100 000 against 1 million (the suite's time), which still
// fails on any state kept per event: the 1 MiB allowance is 1.2 bytes per
// extra event, less than one pointer.
func TestFTAStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a million events")
	}
	n := 100_000
	if os.Getenv("CKPT_FTA_MEMORY") == "full" {
		n = 200_000
	}
	law := distribution.Exponential{Rate: 1e-4}
	peak := func(n int) uint64 {
		runtime.GC()
		g := newFTAGen(n, 500, law)
		s, err := EstimateFTA(g, "gen", FTAOptions{Reservoir: 4096})
		if err != nil || s.Events != n {
			t.Fatal(err, s.Events)
		}
		return g.peak
	}
	small, large := peak(n), peak(10*n)
	t.Logf("peak heap: %d KiB for %d events, %d KiB for %d", small>>10, n, large>>10, 10*n)
	// Ten times the events (about 60 MB of text, 120 MB in full) must not
	// need more memory: allow 1 MiB of noise.
	if large > small+1<<20 {
		t.Errorf("peak heap grows with the input: %d KiB → %d KiB", small>>10, large>>10)
	}
}

func TestFTASampleKeepsLaw(t *testing.T) {
	// Available periods drawn from a Weibull of shape 0.5 (the shape
	// reported for Grid'5000-like availability): the reservoir keeps a
	// uniform sample of them (interval.FitFTA fits it).
	law := distribution.Weibull{K: 0.5, Lambda: 40000}
	s, err := EstimateFTA(newFTAGen(400_000, 200, law), "gen", FTAOptions{Reservoir: 50_000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.Intervals < 199_000 || s.Sampled != 50_000 {
		t.Fatalf("%d intervals, %d sampled", s.Intervals, s.Sampled)
	}
	// The sample is the reservoir: Sampled times, of the law's mean 2λ.
	sum := 0.0
	for _, x := range s.Sample {
		sum += x
	}
	if len(s.Sample) != s.Sampled || math.Abs(sum/float64(len(s.Sample))/80000-1) > 0.03 {
		t.Fatalf("sample of %d, mean %v; want %d of mean about 80000", len(s.Sample), sum/float64(len(s.Sample)), s.Sampled)
	}
	// Node MTBF: the mean available period, Γ(1+1/k)·λ = 2λ, within 3%.
	if math.Abs(float64(s.NodeMTBF)/80000-1) > 0.03 {
		t.Errorf("node MTBF %v, want about 80000", s.NodeMTBF)
	}
}

func TestFTAGrid5000(t *testing.T) {
	s, err := ReadFTAFile(datadirtest.ForTest(t, "failures"), FTAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Counted independently with awk over the decompressed table (a
	// failure is a type-0 row following a type-1 row of the same node):
	// 1288 nodes, 293 416 failures, 34 335 688 549 s available.
	if s.Events != 588463 || len(s.Nodes) != 1288 || s.Failures != 293416 || s.Up != 34335688549 {
		t.Fatalf("events %d, nodes %d, failures %d, up %.0f", s.Events, len(s.Nodes), s.Failures, s.Up)
	}
	if math.Abs(float64(s.NodeMTBF)-117020.505184) > 1e-3 || len(s.Systems) != 15 {
		t.Errorf("node MTBF %v, %d systems", s.NodeMTBF, len(s.Systems))
	}
}

func FuzzFTA(f *testing.F) {
	f.Add([]byte(ftaHeader + ftaLine(0, 1, "G/s/c/n", 1, 0, 10) + ftaLine(1, 1, "G/s/c/n", 0, 10, 12)))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := EstimateFTA(bytes.NewReader(in), "f", FTAOptions{Reservoir: 8})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Source != "f" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v", err)
			}
			return
		}
		if s.Failures > s.Events || s.Up < 0 || s.Down < 0 || s.Sampled > 8 || s.Failures > 0 && !(s.NodeMTBF >= 0) {
			t.Fatalf("stats %+v", s)
		}
	})
}
