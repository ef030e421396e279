package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// tb is what the helpers need of *testing.T, *testing.F and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

type param struct {
	Rate float64
	Name string
}

type outcome struct {
	Rate  float64 `row:"rate"`
	Name  string  `row:"name"`
	Draw  float64 `row:"draw"`
	Count int     `row:"count"`
	skip  int     // unexported: never a column (sweepFn sets it to K)
}

// sweepFn draws from the item's generator and, to scramble completion
// order across workers, sleeps a pseudo-random few microseconds.
func sweepFn(_ context.Context, it Item[param]) (outcome, error) {
	if it.K%3 == 0 {
		time.Sleep(time.Duration(it.Seed%50) * time.Microsecond)
	}
	return outcome{Rate: it.Param.Rate, Name: it.Param.Name, Draw: it.Rand.ExpFloat64() / it.Param.Rate, Count: it.Rand.IntN(1000), skip: it.K}, nil
}

func testPoints(n int) []param {
	ps := make([]param, n)
	for i := range ps {
		ps[i] = param{Rate: 0.5 + float64(i), Name: fmt.Sprintf("p,%d", i)}
	}
	return ps
}

func runToBytes(t tb, opts Options, points []param, reps int) (csvOut, jsonOut []byte) {
	t.Helper()
	var c, j bytes.Buffer
	if err := Run(context.Background(), opts, points, reps, sweepFn, Tee(NewCSV[outcome](&c), NewJSONL[outcome](&j))); err != nil {
		t.Fatalf("Run(%+v): %v", opts, err)
	}
	return c.Bytes(), j.Bytes()
}

func TestIdenticalBytesAcrossWorkerCounts(t *testing.T) {
	points := testPoints(13)
	c1, j1 := runToBytes(t, Options{Seed: 5, Workers: 1}, points, 7)
	for _, w := range []int{2, 7, 0} {
		c, j := runToBytes(t, Options{Seed: 5, Workers: w}, points, 7)
		if !bytes.Equal(c, c1) || !bytes.Equal(j, j1) {
			t.Fatalf("workers=%d output differs from workers=1", w)
		}
	}
	if lines := bytes.Count(c1, []byte("\n")); lines != 13*7+1 {
		t.Fatalf("CSV has %d lines, want %d", lines, 13*7+1)
	}
}

// TestOutputAgainstIndependentDecode reads the CSV and JSONL back with
// encoding/csv and encoding/json and checks every cell against values
// recomputed here from the documented seed chain.
func TestOutputAgainstIndependentDecode(t *testing.T) {
	points := testPoints(4)
	const reps = 3
	c, j := runToBytes(t, Options{Seed: 11, Workers: 3}, points, reps)
	recs, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], "|"); got != "item|point|rep|seed|rate|name|draw|count" {
		t.Fatalf("header %q", got)
	}
	lines := strings.Split(strings.TrimSuffix(string(j), "\n"), "\n")
	if len(recs) != 1+len(points)*reps || len(lines) != len(points)*reps {
		t.Fatalf("%d CSV records, %d JSON lines", len(recs), len(lines))
	}
	for k := 0; k < len(points)*reps; k++ {
		p, r := k/reps, k%reps
		seed := refSeed(11, p, r)
		s0 := (&refSplitMix{seed}).nth(1)
		rng := rand.New(rand.NewPCG(seed, s0))
		draw := rng.ExpFloat64() / points[p].Rate
		count := rng.IntN(1000)
		want := []string{fmt.Sprint(k), fmt.Sprint(p), fmt.Sprint(r), fmt.Sprint(seed),
			fmt.Sprint(points[p].Rate), points[p].Name, fmt.Sprint(draw), fmt.Sprint(count)}
		if got := recs[k+1]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("CSV row %d = %q, want %q", k, got, want)
		}
		var obj struct {
			Item  int     `json:"item"`
			Point int     `json:"point"`
			Rep   int     `json:"rep"`
			Seed  uint64  `json:"seed"`
			Rate  float64 `json:"rate"`
			Name  string  `json:"name"`
			Draw  float64 `json:"draw"`
			Count int     `json:"count"`
		}
		dec := json.NewDecoder(strings.NewReader(lines[k]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("JSON line %d: %v", k, err)
		}
		if obj.Item != k || obj.Point != p || obj.Rep != r || obj.Seed != seed || obj.Rate != points[p].Rate ||
			obj.Name != points[p].Name || obj.Draw != draw || obj.Count != count {
			t.Fatalf("JSON line %d = %+v", k, obj)
		}
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return "S(" + s.s + ")" }

type allKinds struct{}

func (allKinds) Row() []Field {
	return []Field{
		{"nan", math.NaN()}, {"pinf", math.Inf(1)}, {"ninf", math.Inf(-1)},
		{"f32", float32(0.1)}, {"tiny", 5e-324}, {"big", 1e21}, {"negzero", math.Copysign(0, -1)},
		{"u", uint64(math.MaxUint64)}, {"i", int8(-7)}, {"b", true}, {"dur", time.Duration(1500)},
		{"str", "a,\"b\"\nc <&>"}, {"stringer", stringer{"x"}}, {"err", errors.New("boom")}, {"nil", nil},
	}
}

func TestFieldFormatting(t *testing.T) {
	var c, j bytes.Buffer
	err := Run(context.Background(), Options{Workers: 1}, []int{0}, 1,
		func(context.Context, Item[int]) (allKinds, error) { return allKinds{}, nil },
		Tee(NewCSV[allKinds](&c), NewJSONL[allKinds](&j)))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"NaN", "+Inf", "-Inf", "0.1", "5e-324", "1e+21", "-0", "18446744073709551615", "-7", "true", "1500",
		"a,\"b\"\nc <&>", "S(x)", "boom", ""}
	if got := recs[1][4:]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("CSV cells %q\nwant %q", got, want)
	}
	var m map[string]any
	d := json.NewDecoder(&j)
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("JSONL not valid JSON: %v", err)
	}
	for k, v := range map[string]any{"nan": "NaN", "pinf": "+Inf", "ninf": "-Inf", "f32": json.Number("0.1"),
		"big": json.Number("1e+21"), "u": json.Number("18446744073709551615"), "b": true,
		"str": "a,\"b\"\nc <&>", "stringer": "S(x)", "err": "boom", "nil": nil} {
		if m[k] != v {
			t.Errorf("JSON %s = %#v, want %#v", k, m[k], v)
		}
	}
}

func TestScalarAndRowErrors(t *testing.T) {
	var c bytes.Buffer
	err := Run(context.Background(), Options{}, []int{1, 2}, 1,
		func(_ context.Context, it Item[int]) (float64, error) { return float64(it.Param) / 4, nil }, NewCSV[float64](&c))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.String(), "item,point,rep,seed,value\n0,0,0,") || !strings.HasSuffix(c.String(), ",0.5\n") {
		t.Fatalf("scalar CSV %q", c.String())
	}

	bad := []struct {
		name string
		row  func(k int) []Field
		want string
	}{
		{"reserved", func(int) []Field { return []Field{{"seed", 1}} }, `"seed" clashes`},
		{"dup", func(int) []Field { return []Field{{"a", 1}, {"a", 2}} }, `"a" appears twice`},
		{"empty", func(int) []Field { return []Field{{"", 1}} }, "empty name"},
		{"none", func(int) []Field { return nil }, "no columns"},
		{"type", func(int) []Field { return []Field{{"xs", []int{1}}} }, "unsupported type []int"},
		{"changing", func(k int) []Field { return []Field{{fmt.Sprint("c", k), 1}} }, "item 1: columns"},
	}
	for _, tc := range bad {
		err := Run(context.Background(), Options{Workers: 2}, []int{0, 1, 2}, 1,
			func(_ context.Context, it Item[int]) (rowFunc, error) {
				return rowFunc(func() []Field { return tc.row(it.K) }), nil
			},
			NewJSONL[rowFunc](&bytes.Buffer{}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

type rowFunc func() []Field

func (f rowFunc) Row() []Field { return f() }

func TestErrorCarriesItemAndCancels(t *testing.T) {
	var calls atomic.Int64
	boom := errors.New("boom")
	var got []int
	err := Run(context.Background(), Options{Workers: 3}, make([]int, 5000), 2,
		func(ctx context.Context, it Item[int]) (int, error) {
			calls.Add(1)
			if it.K == 13 {
				return 0, boom
			}
			return it.K, nil
		}, SinkFunc[int](func(r Result[int]) error { got = append(got, r.K); return nil }))
	var ie *ItemError
	if !errors.As(err, &ie) || ie.K != 13 || ie.Point != 6 || ie.Rep != 1 || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want item 13 (point 6, rep 1) wrapping boom", err)
	}
	if !strings.Contains(err.Error(), "item 13 (point 6, rep 1): boom") {
		t.Fatalf("message %q", err)
	}
	if n := calls.Load(); n >= 10000 {
		t.Fatalf("all %d items ran despite the error", n)
	}
	for i, k := range got {
		if k != i || k >= 13 {
			t.Fatalf("sink received %v, want a prefix of 0..12", got)
		}
	}
}

func TestSinkErrorStops(t *testing.T) {
	err := Run(context.Background(), Options{Workers: 2}, make([]int, 100), 1,
		func(_ context.Context, it Item[int]) (int, error) { return it.K, nil },
		SinkFunc[int](func(r Result[int]) error {
			if r.K == 40 {
				return errors.New("disk full")
			}
			return nil
		}))
	if err == nil || !strings.Contains(err.Error(), "item 40") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Workers: 2}, make([]int, 1000), 1,
			func(ctx context.Context, it Item[int]) (int, error) {
				if started.Add(1) == 5 {
					cancel()
				}
				select {
				case <-ctx.Done():
					return 0, ctx.Err()
				case <-time.After(time.Millisecond):
					return 0, nil
				}
			}, nil)
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		var ie *ItemError
		if errors.As(err, &ie) {
			t.Fatalf("cancellation reported as item error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if n := started.Load(); n > 100 {
		t.Fatalf("%d items started after cancel", n)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	calls := 0
	err := Run(ctx2, Options{Workers: 1}, []int{1, 2, 3}, 1, func(context.Context, Item[int]) (int, error) { calls++; return 0, nil }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("pre-cancelled ctx: err = %v", err)
	}
}

// TestReorderBufferBounded blocks item 0 and checks that the other workers
// stop taking items once the reorder window is full.
func TestReorderBufferBounded(t *testing.T) {
	const workers = 3
	release := make(chan struct{})
	var started atomic.Int64
	go func() {
		time.Sleep(100 * time.Millisecond)
		if n := started.Load(); n > 4*workers+1 {
			t.Errorf("%d items started while item 0 blocked; reorder window is %d", n, 4*workers)
		}
		close(release)
	}()
	err := Run(context.Background(), Options{Workers: workers}, make([]int, 500), 1,
		func(_ context.Context, it Item[int]) (int, error) {
			started.Add(1)
			if it.K == 0 {
				<-release
			}
			return 0, nil
		}, nil)
	if err != nil || started.Load() != 500 {
		t.Fatalf("err %v after %d items", err, started.Load())
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	fn := func(context.Context, Item[int]) (int, error) { return 0, nil }
	for _, tc := range []struct {
		opts Options
		reps int
		want string
	}{
		{Options{}, 0, "reps = 0"},
		{Options{}, -2, "reps = -2"},
		{Options{Shard: Shard{3, 3}}, 1, "shard index 3"},
		{Options{Shard: Shard{0, -1}}, 1, "shard count -1"},
		{Options{}, math.MaxInt, "overflows"},
	} {
		err := Run(context.Background(), tc.opts, []int{1, 2}, tc.reps, fn, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v, reps %d) = %v, want %q", tc.opts, tc.reps, err, tc.want)
		}
	}
	if err := Run[int, int](context.Background(), Options{}, []int{1}, 1, nil, nil); err == nil {
		t.Error("nil fn accepted")
	}
	var c bytes.Buffer
	if err := Run(context.Background(), Options{}, []int(nil), 3, fn, NewCSV[int](&c)); err != nil || c.Len() != 0 {
		t.Errorf("empty sweep: %v, %q", err, c.String())
	}
}

func TestProgressOnlyWhenAsked(t *testing.T) {
	fn := func(context.Context, Item[int]) (int, error) { return 0, nil }
	var auto, on, off bytes.Buffer
	_ = Run(context.Background(), Options{ProgressTo: &auto}, make([]int, 20), 1, fn, nil)
	_ = Run(context.Background(), Options{Progress: ProgressOff, ProgressTo: &off}, make([]int, 20), 1, fn, nil)
	_ = Run(context.Background(), Options{Progress: ProgressOn, ProgressTo: &on, Label: "sweep"}, make([]int, 20), 1, fn, nil)
	if auto.Len() != 0 || off.Len() != 0 {
		t.Fatalf("bar drawn on a non-terminal: %q %q", auto.String(), off.String())
	}
	if !strings.Contains(on.String(), "sweep") || !strings.Contains(on.String(), "20/20") {
		t.Fatalf("forced bar output %q", on.String())
	}
}

func TestCreateOutputs(t *testing.T) {
	dir := t.TempDir()
	cp, jp := dir+"/o.csv", dir+"/o.jsonl"
	sink, closeFn, err := CreateOutputs[outcome](nil, cp, jp)
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), Options{Seed: 2}, testPoints(3), 2, sweepFn, sink); err != nil {
		t.Fatal(err)
	}
	if err := closeFn(nil); err != nil {
		t.Fatal(err)
	}
	wantC, wantJ := runToBytes(t, Options{Seed: 2}, testPoints(3), 2)
	gotC, _ := os.ReadFile(cp)
	gotJ, _ := os.ReadFile(jp)
	if !bytes.Equal(gotC, wantC) || !bytes.Equal(gotJ, wantJ) {
		t.Fatal("files differ from in-memory outputs")
	}
	if _, _, err := CreateOutputs[outcome](nil, "", ""); err == nil {
		t.Fatal("no paths accepted")
	}
	if _, _, err := CreateOutputs[outcome](nil, dir+"/no/such/dir.csv", ""); err == nil || !strings.Contains(err.Error(), "dir.csv") {
		t.Fatalf("bad path: %v", err)
	}
}

// TestCancelLeavesCompleteRows is what Ctrl-C does to a sweep writing a
// CSV and a JSONL file: Run returns within a second of the cancellation,
// with context.Canceled, and each output holds whole rows only, the prefix
// of an uncancelled run's output up to some item.
func TestCancelLeavesCompleteRows(t *testing.T) {
	points := testPoints(40)
	const reps = 5
	fullCSV, fullJSONL := runToBytes(t, Options{Workers: 3}, points, reps)

	ctx, cancel := context.WithCancel(context.Background())
	var c, j bytes.Buffer
	var started atomic.Int64
	var cancelledAt atomic.Int64
	slow := func(ctx context.Context, it Item[param]) (outcome, error) {
		if started.Add(1) == 60 {
			cancelledAt.Store(time.Now().UnixNano())
			cancel()
		}
		select { // a long item that honours its context
		case <-ctx.Done():
			return outcome{}, ctx.Err()
		case <-time.After(time.Duration(it.K%4) * time.Millisecond):
		}
		return sweepFn(ctx, it)
	}
	err := Run(ctx, Options{Workers: 3}, points, reps, slow, Tee(NewCSV[outcome](&c), NewJSONL[outcome](&j)))
	stopped := time.Since(time.Unix(0, cancelledAt.Load()))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if stopped > time.Second {
		t.Fatalf("Run returned %v after the cancellation", stopped)
	}
	for _, o := range []struct {
		name      string
		got, full []byte
	}{{"csv", c.Bytes(), fullCSV}, {"jsonl", j.Bytes(), fullJSONL}} {
		if !bytes.HasPrefix(o.full, o.got) {
			t.Fatalf("%s: cancelled output is not a prefix of the full run's:\n%s", o.name, o.got)
		}
		if len(o.got) > 0 && o.got[len(o.got)-1] != '\n' {
			t.Fatalf("%s: cancelled output ends in a partial row: %q", o.name, o.got)
		}
		if len(o.got) >= len(o.full) {
			t.Fatalf("%s: the cancelled run wrote everything (%d bytes)", o.name, len(o.got))
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(c.Bytes())).ReadAll()
	if err != nil {
		t.Fatalf("cancelled CSV does not parse: %v", err)
	}
	jsonRows := bytes.Count(j.Bytes(), []byte("\n"))
	if len(rows) > 0 && len(rows)-1 != jsonRows {
		t.Fatalf("CSV holds %d rows, JSONL %d: the outputs disagree", len(rows)-1, jsonRows)
	}
}

// TestCancelWaitsOnlyForRunningItems: items that ignore their context
// delay the return by at most the items already running.
func TestCancelWaitsOnlyForRunningItems(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	err := Run(ctx, Options{Workers: 2}, make([]int, 10000), 1,
		func(context.Context, Item[int]) (int, error) {
			calls.Add(1)
			time.Sleep(20 * time.Millisecond) // deaf to ctx
			return 0, nil
		}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Run took %v", d)
	}
	if n := calls.Load(); n > 20 {
		t.Fatalf("%d items ran after a cancellation at 50 ms with 2 workers of 20 ms items", n)
	}
}
