package capacity

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/rng"
	"github.com/ckpt-hpc/ckpt/trace"
)

// drawInstance draws a valid instance with finite and infinite jobs.
func drawInstance(t *rapid.T) *Instance {
	pr := LightParams()
	pr.Sections = rapid.IntRange(1, 12).Draw(t, "sections")
	pr.PMax = rapid.IntRange(5, 40).Draw(t, "pmax")
	in, err := Generate(rng.New(rapid.Uint64().Draw(t, "seed")), pr, UniformWorkload(pr.PMax).Widths)
	if err != nil {
		t.Fatal(err)
	}
	for j := range in.Jobs {
		if rapid.Bool().Draw(t, "finite") {
			in.Jobs[j].Length = float64(rapid.IntRange(1, 1000).Draw(t, "len")) / 4
			in.Jobs[j].Release = float64(rapid.IntRange(0, 1000).Draw(t, "rel")) / 8
		}
	}
	return in
}

func TestBatsimExportRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInstance(t)
		w, evs, err := ExportBatsim(in)
		if err != nil {
			t.Fatal(err)
		}
		var wb, eb bytes.Buffer
		if err := trace.WriteBatsim(&wb, w); err != nil {
			t.Fatal(err)
		}
		if err := trace.WriteBatsimEvents(&eb, evs); err != nil {
			t.Fatal(err)
		}
		w2, err := trace.ReadBatsim(&wb, "w")
		if err != nil {
			t.Fatal(err)
		}
		back, err := ImportBatsim(w2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, in) {
			t.Fatalf("import differs:\n%+v\n%+v", back, in)
		}
		// The events give P(t) back: same processor count at every time.
		evs2, err := trace.ReadBatsimEvents(&eb, "e")
		if err != nil {
			t.Fatal(err)
		}
		secs, err := SectionsFromEvents(evs2, in.PMax, Horizon(in))
		if err != nil {
			t.Fatal(err)
		}
		var merged []Section
		for _, s := range in.Sections {
			merged = appendSection(merged, s.P, s.Length)
		}
		if len(secs) != len(merged) {
			t.Fatalf("sections %v, want %v", secs, merged)
		}
		for i := range secs {
			if secs[i].P != merged[i].P || math.Abs(secs[i].Length-merged[i].Length) > 1e-9*Horizon(in) {
				t.Fatalf("sections %v, want %v", secs, merged)
			}
		}
		// Every job's delay profile: R + L, or R + (horizon − release).
		for j, jb := range in.Jobs {
			d, ok := w2.Delay(w2.Jobs[j].Profile)
			want := jb.R + jb.Length
			if jb.Length == 0 {
				want = jb.R + math.Max(Horizon(in)-jb.Release, 0)
			}
			if !ok || d != want {
				t.Fatalf("job %d: delay %v, want %v", j, d, want)
			}
		}
	})
}

func TestSectionsFromEventsRefusals(t *testing.T) {
	evs := []trace.BatsimEvent{{Timestamp: 0, Type: trace.MachineAvailable, Resources: trace.IntervalSet{{Lo: 0, Hi: 0}}}}
	if _, err := SectionsFromEvents(evs, 4, 10); err == nil || !strings.Contains(err.Error(), "already available") {
		t.Errorf("%v", err)
	}
	evs[0] = trace.BatsimEvent{Timestamp: 0, Type: trace.MachineUnavailable, Resources: trace.IntervalSet{{Lo: 3, Hi: 4}}}
	if _, err := SectionsFromEvents(evs, 4, 10); err == nil || !strings.Contains(err.Error(), "beyond p_max") {
		t.Errorf("%v", err)
	}
}

// handInstance: P = 4 on [0, 10), 2 on [10, 20).
func handInstance() *Instance {
	return &Instance{Platform: Platform{PMin: 1, PMax: 4, Delta: 2},
		Sections: []Section{{P: 4, Length: 10}, {P: 2, Length: 10}},
		Jobs: []Job{{P: 2, C: 1, R: 1}, {P: 3, C: 1, R: 2, Length: 5}, {P: 1, C: 1, R: 1, Release: 5, Length: 10},
			{P: 1, C: 1, R: 1, Length: 2}}}
}

func TestBatsimScheduleMetricsByHand(t *testing.T) {
	const csv = `job_id,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,allocated_resources
w!1,0,3,-1,1,COMPLETED_SUCCESSFULLY,0,7,7,0-2
w!0,0,2,-1,0,COMPLETED_KILLED,7,13,20,0-1
w!2,5,1,-1,0,COMPLETED_KILLED,5,3,8,3
w!3,0,1,-1,1,COMPLETED_SUCCESSFULLY,10,3,13,3
`
	res, err := trace.ReadBatsimJobs(strings.NewReader(csv), "jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := BatsimScheduleMetrics(handInstance(), res)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: J0 runs 13 to the horizon, work 13 − R = 12; J1 completes,
	// work min(7 − 2, 5) = 5; J2 is killed (no checkpoint): 0; J3 uses
	// resource 3 after P fell to 2: a violation. Area 4·10 + 2·10 = 60.
	// Goodput (2·12 + 3·5)/60; yields 12/20, 5/10 (P ≥ 3 only on [0,10)), 0, 0.
	want := ScheduleMetrics{Jobs: 4, Started: 4, Completed: 2, Goodput: 39.0 / 60, MinYield: 0, Violations: 1,
		Yields: []float64{0.6, 0.5, 0, 0}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("%+v\nwant %+v", m, want)
	}
	for _, c := range []struct{ row, want string }{
		{"w!9,0,3,-1,1,C,0,7,7,0-2", "not a job of the instance"},
		{"w!1,0,2,-1,1,C,0,7,7,0-1", "requests 2 resources"},
	} {
		r, err := trace.ReadBatsimJobs(strings.NewReader(strings.SplitN(csv, "\n", 2)[0]+"\n"+c.row+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := BatsimScheduleMetrics(handInstance(), r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.row, err)
		}
	}
}

func TestJobListRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInstance(t)
		var b bytes.Buffer
		if err := WriteJobs(&b, in.Jobs); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJobs(&b, "jobs.json")
		if err != nil || !reflect.DeepEqual(got, in.Jobs) {
			t.Fatalf("ckpt → ckpt: %v", err)
		}
		// ckpt → Batsim → ckpt keeps every field.
		viaB, err := JobsFromBatsim(BatsimFromJobs(in.Jobs), 0, 0)
		if err != nil || !reflect.DeepEqual(viaB, in.Jobs) {
			t.Fatalf("ckpt → Batsim → ckpt: %v", err)
		}
		// ckpt → SWF → ckpt keeps all but C and R (no SWF field).
		c := rapid.Float64Range(1, 9).Draw(t, "c")
		viaS, skipped := JobsFromSWF(SWFFromJobs(in.Jobs), c, c)
		for j := range in.Jobs {
			want := in.Jobs[j]
			want.C, want.R = c, c
			if skipped != 0 || viaS[j] != want {
				t.Fatalf("ckpt → SWF → ckpt job %d: %+v, want %+v", j, viaS[j], want)
			}
		}
	})
}

func TestReadJobsRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{}", "j:1: want a JSON array"},
		{"[\n{\"p\": 1, \"c\": 1, \"r\": 1},\n{\"p\": 0, \"c\": 1, \"r\": 1}\n]", "j:3: job 1: p = 0"},
		{"[\n{\"p\": 1, \"c\": 1, \"r\": 1, \"w\": 3}]", "j:2: job 0: json: unknown field"},
		{"[{\"p\": 1, \"c\": 1, \"r\": 1}", "j:1: unterminated"},
		{"[] []", "data after"},
	} {
		if _, err := ReadJobs(strings.NewReader(c.in), "j"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzReadJobs(f *testing.F) {
	f.Add([]byte(`[{"p": 2, "c": 1, "r": 1, "release": 3, "length": 4}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		jobs, err := ReadJobs(bytes.NewReader(in), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		for _, jb := range jobs {
			if jb.validate(math.MaxInt) != nil {
				t.Fatalf("accepted %+v", jb)
			}
		}
	})
}

func TestLoadWorkloadBatsim(t *testing.T) {
	w, err := LoadWorkload(datadirtest.ForTest(t, "batsim", "workloads", "test_delays.json"))
	// test_delays.json: 10 jobs of 1 resource, delay 10 s each.
	if err != nil || len(w.Widths) != 10 || len(w.Specs) != 10 || w.Specs[3] != (JobSpec{P: 1, L: 10.0 / DefaultTimeUnit}) {
		t.Fatalf("%v %+v", err, w)
	}
	if _, err := LoadWorkload(datadirtest.ForTest(t, "batsim", "platforms", "small_platform.xml")); err == nil {
		t.Error("an XML platform accepted as an SWF log")
	}
}

// SectionsFromEvents rebuilds P(t) from machine events on pmax resources
// up to the horizon h: one section per interval between changes (sections
// of equal P that Events did not separate are merged). Events at or after h
// are ignored. An event making unavailable a resource already unavailable,
// or the reverse, is an error.
func SectionsFromEvents(evs []trace.BatsimEvent, pmax int, h float64) ([]Section, error) {
	up := make([]bool, pmax)
	for i := range up {
		up[i] = true
	}
	count := pmax
	var secs []Section
	t := 0.0
	for k, e := range evs {
		if e.Type != trace.MachineAvailable && e.Type != trace.MachineUnavailable {
			continue
		}
		if e.Timestamp >= h {
			break
		}
		if e.Timestamp > t {
			secs = appendSection(secs, count, e.Timestamp-t)
			t = e.Timestamp
		}
		want := e.Type == trace.MachineAvailable
		for _, iv := range e.Resources {
			for r := iv.Lo; r <= iv.Hi; r++ {
				if r >= pmax {
					return nil, fmt.Errorf("event %d: resource %d beyond p_max = %d", k, r, pmax)
				}
				if up[r] == want {
					return nil, fmt.Errorf("event %d at %s: resource %d is already %s", k, fmtG(e.Timestamp), r, strings.TrimPrefix(e.Type, "machine_"))
				}
				up[r] = want
				if want {
					count++
				} else {
					count--
				}
			}
		}
	}
	if h > t {
		secs = appendSection(secs, count, h-t)
	}
	return secs, nil
}

func appendSection(secs []Section, p int, l float64) []Section {
	if n := len(secs); n > 0 && secs[n-1].P == p {
		secs[n-1].Length += l
		return secs
	}
	return append(secs, Section{P: p, Length: l})
}
