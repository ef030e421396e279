package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
)

// Batsim export of an instance. The workload has nb_res = P_max and one job
// per ckpt job: id = its index, subtime = r_j, res = p_j, no walltime, and
// a delay profile "jJ" of length R_j + L_j (a finite job: recovery, the
// first load, then its work) or R_j + (horizon − r_j) (an infinite job runs
// to the end). C_j, R_j and L_j are kept in the job's extra fields ckpt_c,
// ckpt_r, ckpt_length; the platform and the sections in the workload's
// ckpt_platform and ckpt_sections (Batsim ignores them). P(t) becomes
// external events: resources P(t)..P_max−1 are unavailable at time t.

// ExportBatsim returns the Batsim workload and the external events of in.
func ExportBatsim(in *Instance) (trace.BatsimWorkload, []trace.BatsimEvent, error) {
	if err := in.Validate(); err != nil {
		return trace.BatsimWorkload{}, nil, err
	}
	h := Horizon(in)
	w := trace.BatsimWorkload{NbRes: in.PMax, Profiles: map[string]json.RawMessage{}, Extra: map[string]json.RawMessage{}}
	pl, _ := json.Marshal(in.Platform)
	secs, _ := json.Marshal(in.Sections)
	w.Extra["ckpt_platform"] = pl
	w.Extra["ckpt_sections"] = secs
	w.Extra["description"] = json.RawMessage(strconv.Quote(fmt.Sprintf(
		"ckpt capacity instance: %d jobs, %d sections, horizon %s, P_max %d", len(in.Jobs), len(in.Sections), fmtG(h), in.PMax)))
	for i, jb := range in.Jobs {
		w.Jobs = append(w.Jobs, batsimJob(i, jb, h))
		w.Profiles["j"+strconv.Itoa(i)] = trace.DelayProfile(batsimDelay(jb, h))
	}
	return w, Events(in), nil
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// batsimDelay is the delay profile's length of jb: R + L, or R + (h − r)
// for an infinite job.
func batsimDelay(jb Job, h float64) float64 {
	if jb.Length > 0 {
		return jb.R + jb.Length
	}
	return jb.R + math.Max(h-jb.Release, 0)
}

func batsimJob(i int, jb Job, h float64) trace.BatsimJob {
	return trace.BatsimJob{ID: json.RawMessage(strconv.Itoa(i)), Subtime: jb.Release, Walltime: -1, Res: jb.P,
		Profile: "j" + strconv.Itoa(i), Extra: map[string]json.RawMessage{
			"ckpt_c": json.RawMessage(fmtG(jb.C)), "ckpt_r": json.RawMessage(fmtG(jb.R)),
			"ckpt_length": json.RawMessage(fmtG(jb.Length))}}
}

// Horizon is T_{n+1}, the end of the last section.
func Horizon(in *Instance) float64 {
	h := 0.0
	for _, s := range in.Sections {
		h += s.Length
	}
	return h
}

// Events lists P(t) as Batsim machine events on resources 0..P_max−1:
// at 0, resources P_1..P_max−1 become unavailable (no event when P_1 =
// P_max); at every change T_i, the resources between P_{i−1} and P_i become
// available (P grows) or unavailable (P shrinks).
func Events(in *Instance) []trace.BatsimEvent {
	var evs []trace.BatsimEvent
	t, p := 0.0, in.PMax
	for _, s := range in.Sections {
		switch {
		case s.P < p:
			evs = append(evs, trace.BatsimEvent{Timestamp: t, Type: trace.MachineUnavailable, Resources: trace.IntervalSet{{Lo: s.P, Hi: p - 1}}})
		case s.P > p:
			evs = append(evs, trace.BatsimEvent{Timestamp: t, Type: trace.MachineAvailable, Resources: trace.IntervalSet{{Lo: p, Hi: s.P - 1}}})
		}
		t += s.Length
		p = s.P
	}
	return evs
}

// ImportBatsim rebuilds an instance exported by ExportBatsim from its
// workload (the ckpt_platform and ckpt_sections fields, the jobs' ckpt_*
// fields) and checks it.
func ImportBatsim(w trace.BatsimWorkload) (*Instance, error) {
	in := &Instance{}
	if err := json.Unmarshal(w.Extra["ckpt_platform"], &in.Platform); err != nil {
		return nil, fmt.Errorf("not a ckpt capacity instance: no valid ckpt_platform field")
	}
	if err := json.Unmarshal(w.Extra["ckpt_sections"], &in.Sections); err != nil {
		return nil, fmt.Errorf("not a ckpt capacity instance: no valid ckpt_sections field")
	}
	jobs, err := JobsFromBatsim(w, 0, 0)
	if err != nil {
		return nil, err
	}
	in.Jobs = jobs
	return in, in.Validate()
}

// JobsFromBatsim reads ckpt jobs from a Batsim workload: p = res, release =
// subtime, C, R and length from the ckpt_c, ckpt_r, ckpt_length fields when
// present, else C = c, R = r and length = the delay of a delay profile
// (0, an infinite job, for other profiles).
func JobsFromBatsim(w trace.BatsimWorkload, c, r float64) ([]Job, error) {
	jobs := make([]Job, 0, len(w.Jobs))
	for _, bj := range w.Jobs {
		jb := Job{P: bj.Res, C: c, R: r, Release: bj.Subtime}
		l, hasLen := 0.0, false
		for key, p := range map[string]*float64{"ckpt_c": &jb.C, "ckpt_r": &jb.R, "ckpt_length": &l} {
			v, ok := bj.Extra[key]
			if !ok {
				continue
			}
			if err := json.Unmarshal(v, p); err != nil {
				return nil, fmt.Errorf("job %s: invalid %s %s", bj.IDString(), key, v)
			}
			hasLen = hasLen || key == "ckpt_length"
		}
		if hasLen {
			jb.Length = l
		} else if d, ok := w.Delay(bj.Profile); ok {
			jb.Length = d
		}
		if err := jb.validate(math.MaxInt); err != nil {
			return nil, fmt.Errorf("job %s: %v", bj.IDString(), err)
		}
		jobs = append(jobs, jb)
	}
	return jobs, nil
}

// BatsimFromJobs is the Batsim workload of ckpt jobs alone (no platform):
// as ExportBatsim, with infinite jobs given a delay of R only, and nb_res
// the widest job.
func BatsimFromJobs(jobs []Job) trace.BatsimWorkload {
	w := trace.BatsimWorkload{Profiles: map[string]json.RawMessage{}}
	for i, jb := range jobs {
		w.Jobs = append(w.Jobs, batsimJob(i, jb, jb.Release))
		w.Profiles["j"+strconv.Itoa(i)] = trace.DelayProfile(batsimDelay(jb, jb.Release))
		w.NbRes = max(w.NbRes, jb.P)
	}
	return w
}

// JobsFromSWF turns SWF jobs into ckpt jobs: p = allocated processors
// (requested when unknown), release = submit time, length = run time
// (0 when unknown: an infinite job), C = c, R = r. Jobs of unknown width
// are skipped; their count is returned.
func JobsFromSWF(sj []trace.SWFJob, c, r float64) ([]Job, int) {
	var jobs []Job
	skipped := 0
	for _, j := range sj {
		p := j.AllocatedProcs
		if p <= 0 {
			p = j.RequestedProcs
		}
		if p <= 0 || p > 1<<31 {
			skipped++
			continue
		}
		jobs = append(jobs, Job{P: int(p), C: c, R: r, Release: math.Max(j.SubmitTime, 0), Length: math.Max(j.RunTime, 0)})
	}
	return jobs, skipped
}

// SWFFromJobs writes ckpt jobs as SWF jobs: job number = index + 1,
// submit = release, run time = length (−1 for an infinite job), requested
// processors = p; C and R have no SWF field and are lost.
func SWFFromJobs(jobs []Job) []trace.SWFJob {
	out := make([]trace.SWFJob, len(jobs))
	for i, jb := range jobs {
		rt := jb.Length
		if rt == 0 {
			rt = -1
		}
		out[i] = trace.SWFJob{JobNumber: int64(i + 1), SubmitTime: jb.Release, WaitTime: -1, RunTime: rt,
			AllocatedProcs: -1, AvgCPUTime: -1, UsedMemory: -1, RequestedProcs: int64(jb.P), RequestedTime: -1,
			RequestedMemory: -1, Status: -1, UserID: -1, GroupID: -1, Executable: -1, Queue: -1, Partition: -1,
			PrecedingJob: -1, ThinkTime: -1}
	}
	return out
}

// WriteJobs writes ckpt's job list: a JSON array of jobs, one per line.
func WriteJobs(w io.Writer, jobs []Job) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, jb := range jobs {
		if i > 0 {
			b.WriteByte(',')
		}
		s, _ := json.Marshal(jb)
		b.WriteString("\n  ")
		b.Write(s)
	}
	b.WriteString("\n]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// ReadJobs reads ckpt's job list (a JSON array of {p, c, r, release,
// length}); unknown fields are refused, every job is validated, and errors
// name the file and the line of the job.
func ReadJobs(r io.Reader, name string) ([]Job, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: read error: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	line := func(off int64) int {
		o := int(min(off, int64(len(data))))
		for o < len(data) && strings.IndexByte(" \t\r\n,", data[o]) >= 0 {
			o++
		}
		return 1 + bytes.Count(data[:o], []byte{'\n'})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("%s:%d: want a JSON array of jobs", name, line(0))
	}
	var jobs []Job
	for dec.More() {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		var jb Job
		d := json.NewDecoder(bytes.NewReader(data[off:]))
		d.DisallowUnknownFields()
		if err := d.Decode(&jb); err != nil {
			return nil, fmt.Errorf("%s:%d: job %d: %v", name, line(off), len(jobs), err)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line(off), err)
		}
		if err := jb.validate(math.MaxInt); err != nil {
			return nil, fmt.Errorf("%s:%d: job %d: %v", name, line(off), len(jobs), err)
		}
		if err := jobTimesBounded(jb); err != nil {
			return nil, fmt.Errorf("%s:%d: job %d: %v", name, line(off), len(jobs), err)
		}
		jobs = append(jobs, jb)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, fmt.Errorf("%s:%d: unterminated job array", name, line(dec.InputOffset()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s:%d: data after the job array", name, line(dec.InputOffset()))
	}
	return jobs, nil
}

// jobTimesBounded refuses a job read from a file whose times exceed
// MaxTime (a length of 1e308 s was converted as is): beyond it the
// schedules' sums lose their precision, as a state file's would.
func jobTimesBounded(jb Job) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"c", jb.C}, {"r", jb.R}, {"length", jb.Length}, {"release", jb.Release}} {
		if f.v > MaxTime {
			return fmt.Errorf("%s = %v: must be at most %g", f.name, f.v, float64(MaxTime))
		}
	}
	return nil
}
