package capacity

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// JobFormat names a job-list format that Convert reads and writes.
type JobFormat string

// The job-list formats.
const (
	FormatSWF    JobFormat = "swf"    // Standard Workload Format v2.2 (.swf, .swf.gz)
	FormatBatsim JobFormat = "batsim" // Batsim JSON workload (.json)
	FormatCkpt   JobFormat = "ckpt"   // ckpt's job list, a JSON array of {p, c, r, release, length} (.jobs.json)
)

// ParseJobFormat reads a format name.
func ParseJobFormat(s string) (JobFormat, error) {
	switch f := JobFormat(s); f {
	case FormatSWF, FormatBatsim, FormatCkpt:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want swf, batsim or ckpt)", s)
}

// FormatOf infers the format from a file name: .swf or .swf.gz → swf,
// .jobs.json → ckpt, other .json → batsim.
func FormatOf(path string) (JobFormat, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".swf"), strings.HasSuffix(p, ".swf.gz"):
		return FormatSWF, nil
	case strings.HasSuffix(p, ".jobs.json"):
		return FormatCkpt, nil
	case strings.HasSuffix(p, ".json"):
		return FormatBatsim, nil
	}
	return "", fmt.Errorf("cannot tell the format of %q from its extension (.swf, .swf.gz, .json, .jobs.json)", path)
}

// ConvertOptions are the parameters of Convert.
type ConvertOptions struct {
	From, To JobFormat
	Name     string  // input name, for errors and the SWF header
	C, R     float64 // checkpoint and recovery times of jobs read from SWF or foreign Batsim workloads (to ckpt)
	NbRes    int     // nb_res of a Batsim output (0: the widest job)
}

// Convert reads a job list in o.From and writes it in o.To, returning the
// number of jobs written and of jobs skipped (jobs of unknown width, or of
// unknown run time into Batsim). SWF → Batsim → SWF keeps every field and
// the header (trace.BatsimFromSWF carries what Batsim has no place for in
// the jobs' swf field, the header in swf_header). What a format lacks is
// otherwise lost: SWF has no checkpoint costs (jobs read from SWF get
// C = o.C, R = o.R), a foreign Batsim workload gives SWF only its delay
// profiles' run times, ckpt keeps width, release, length and costs only.
func Convert(r io.Reader, w io.Writer, o ConvertOptions) (written, skipped int, err error) {
	return ConvertContext(context.Background(), r, w, o)
}

// ConvertContext is Convert stopped by ctx: reading and writing fail with
// ctx's error within a buffer of its cancel, which it returns (w then
// holds part of the output: write through output.WriteFile).
func ConvertContext(ctx context.Context, r io.Reader, w io.Writer, o ConvertOptions) (written, skipped int, err error) {
	written, skipped, err = convert(ctx, trace.ContextReader(ctx, r), trace.ContextWriter(ctx, w), o)
	if ctx.Err() != nil {
		return 0, 0, ctx.Err()
	}
	return written, skipped, err
}

func convert(ctx context.Context, r io.Reader, w io.Writer, o ConvertOptions) (written, skipped int, err error) {
	var sj []trace.SWFJob
	var hdr *trace.SWFHeader
	var bw trace.BatsimWorkload
	var cj []Job
	switch o.From {
	case FormatSWF:
		h, jobs, err := trace.ReadSWF(r, o.Name)
		if err != nil {
			return 0, 0, usage.Wrap(err) // a bad input is the user's, as everywhere
		}
		sj, hdr = jobs, &h
	case FormatBatsim:
		if bw, err = trace.ReadBatsimContext(ctx, r, o.Name); err != nil {
			return 0, 0, usage.Wrap(err)
		}
	case FormatCkpt:
		if cj, err = ReadJobs(r, o.Name); err != nil {
			return 0, 0, usage.Wrap(err)
		}
	default:
		return 0, 0, fmt.Errorf("unknown input format %q", o.From)
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	// Convert through the target's own representation.
	switch o.To {
	case FormatSWF:
		switch o.From {
		case FormatBatsim:
			sj = bw.SWF()
			if h, ok := bw.CarriedSWFHeader(); ok {
				hdr = &h
			}
		case FormatCkpt:
			sj = SWFFromJobs(cj)
		}
		if hdr == nil {
			h := convertedSWFHeader(o, sj)
			hdr = &h
		}
		return len(sj), 0, trace.WriteSWF(w, *hdr, sj)
	case FormatBatsim:
		switch o.From {
		case FormatSWF:
			if bw, skipped, err = trace.BatsimFromSWFContext(ctx, sj, o.NbRes); err != nil {
				return 0, 0, err
			}
			bw.CarrySWFHeader(*hdr)
		case FormatCkpt:
			bw = BatsimFromJobs(cj)
			if o.NbRes > 0 {
				bw.NbRes = o.NbRes
			}
		}
		if err := ctx.Err(); err != nil { // each in-memory pass takes ≈ 0.5 s on 313 000 jobs
			return 0, 0, err
		}
		if err := uniqueBatsimIDs(ctx, bw); err != nil {
			if ctx.Err() != nil {
				return 0, 0, err
			}
			return 0, 0, usage.Errorf("%s: %v", o.Name, err)
		}
		if err := checkNbRes(bw, o.NbRes); err != nil {
			return 0, 0, err
		}
		return len(bw.Jobs), skipped, trace.WriteBatsim(w, bw)
	case FormatCkpt:
		switch o.From {
		case FormatSWF:
			if !(o.C > 0 && o.R > 0) {
				return 0, 0, fmt.Errorf("SWF has no checkpoint costs: give checkpoint and recovery times > 0 (c = %v, r = %v)", o.C, o.R)
			}
			cj, skipped = JobsFromSWF(sj, o.C, o.R)
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
		case FormatBatsim:
			if err := batsimCosts(bw, o); err != nil {
				return 0, 0, err
			}
			if cj, err = JobsFromBatsim(bw, o.C, o.R); err != nil {
				return 0, 0, fmt.Errorf("%s: %v", o.Name, err)
			}
		}
		return len(cj), skipped, WriteJobs(w, cj)
	}
	return 0, 0, fmt.Errorf("unknown output format %q", o.To)
}

func convertedSWFHeader(o ConvertOptions, jobs []trace.SWFJob) trace.SWFHeader {
	maxp := int64(0)
	for _, j := range jobs {
		maxp = max(maxp, j.RequestedProcs, j.AllocatedProcs)
	}
	h := trace.SWFHeader{}
	for _, kv := range [][2]string{{"Version", "2.2"}, {"Conversion", "ckpt convert from " + string(o.From) + " " + o.Name},
		{"MaxJobs", strconv.Itoa(len(jobs))}, {"MaxRecords", strconv.Itoa(len(jobs))}, {"MaxProcs", strconv.FormatInt(maxp, 10)}} {
		if strings.ContainsAny(kv[1], "\r\n") {
			continue
		}
		h.Fields = append(h.Fields, trace.SWFHeaderField{Key: kv[0], Value: kv[1]})
	}
	return h
}

// uniqueBatsimIDs refuses a workload with a job id given twice (an SWF log
// whose job numbers repeat): Batsim, and ReadBatsim, refuse it. It
// stops with ctx's error once ctx ends.
func uniqueBatsimIDs(ctx context.Context, bw trace.BatsimWorkload) error {
	seen := make(map[string]int, len(bw.Jobs))
	for i, j := range bw.Jobs {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		id := j.IDString()
		if k, ok := seen[id]; ok {
			return fmt.Errorf("jobs %d and %d have the same id %s; Batsim needs unique ids", k+1, i+1, id)
		}
		seen[id] = i
	}
	return nil
}

// batsimCosts refuses, naming --ckpt (or --restart), a Batsim workload
// into a ckpt list without the costs: only the workloads ckpt writes carry
// them (ckpt_c, ckpt_r); a job without them needs o.C (o.R).
func batsimCosts(bw trace.BatsimWorkload, o ConvertOptions) error {
	for _, j := range bw.Jobs {
		for _, c := range []struct {
			key, field string
			v          float64
		}{{"ckpt_c", "ckpt", o.C}, {"ckpt_r", "restart", o.R}} {
			if _, ok := j.Extra[c.key]; !ok && c.v == 0 {
				return usage.Fieldf(c.field, "is required to convert %s to a ckpt job list: job %s has no %s (only the workloads ckpt writes carry checkpoint costs)", o.Name, j.IDString(), c.key)
			}
		}
	}
	return nil
}

// checkNbRes refuses an --nb-res below the widest job: Batsim cannot
// place that job, and refuses the workload.
func checkNbRes(bw trace.BatsimWorkload, nbRes int) error {
	if nbRes <= 0 {
		return nil
	}
	for i, j := range bw.Jobs {
		if j.Res > nbRes {
			return usage.Fieldf("nb-res", "%d is below job %s's width %d (job %d); Batsim cannot place it", nbRes, j.IDString(), j.Res, i+1)
		}
	}
	return nil
}
