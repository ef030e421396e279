package capacity

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"
)

// ConvertRequest is `ckpt convert`: a job list from one format to another
// (Convert).
type ConvertRequest struct {
	// In and Out are the files, "-" for Stdin and Stdout. An output that
	// is the input is refused; a file output is written through a
	// temporary file, so a failed conversion leaves what was there.
	In     string    `json:"in"`
	Out    string    `json:"out"`
	Stdin  io.Reader `json:"-"`
	Stdout io.Writer `json:"-"`
	// From and To are the formats (ParseJobFormat); "" tells them from
	// the file names' extensions (FormatOf), which "-" needs.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Checkpoint and Restart are C and R of jobs read from SWF or foreign
	// Batsim workloads into a ckpt list, in seconds (0: not given;
	// Restart 0 is Checkpoint). SWF to ckpt needs Checkpoint (field
	// "ckpt"; Restart is "restart").
	Checkpoint float64 `json:"ckpt,omitempty"`
	Restart    float64 `json:"restart,omitempty"`
	// NbRes is nb_res of a Batsim output (0: the widest job).
	NbRes int `json:"nb_res,omitempty"`
}

// options checks the request and returns Convert's options.
func (r ConvertRequest) options() (ConvertOptions, error) {
	o := ConvertOptions{Name: filepath.Base(r.In), NbRes: r.NbRes, C: r.Checkpoint, R: r.Restart}
	if r.In == "-" {
		o.Name = "stdin"
	}
	if o.R == 0 {
		o.R = o.C
	}
	var err error
	for _, f := range []struct {
		field, v, path, std string
		p                   *JobFormat
	}{{"from", r.From, r.In, "stdin", &o.From}, {"to", r.To, r.Out, "stdout", &o.To}} {
		switch {
		case f.v != "":
			*f.p, err = ParseJobFormat(f.v)
		case f.path == "-":
			err = fmt.Errorf("give the format of %s", f.std)
		default:
			*f.p, err = FormatOf(f.path)
		}
		if err != nil {
			return o, usage.Fieldf(f.field, "%v", err)
		}
	}
	for _, t := range []struct {
		field string
		v     float64
	}{{"ckpt", r.Checkpoint}, {"restart", r.Restart}} {
		if !(t.v >= 0) || math.IsInf(t.v, 0) {
			return o, usage.Fieldf(t.field, "%v must be > 0 and finite", t.v)
		}
	}
	switch {
	case r.NbRes < 0:
		return o, usage.Fieldf("nb-res", "%d must be >= 0", r.NbRes)
	case o.To != FormatCkpt && (r.Checkpoint != 0 || r.Restart != 0):
		return o, usage.Fieldf("ckpt", "and --restart set the costs of a ckpt job list; the output here is %s, which has no place for them", o.To)
	case o.To != FormatBatsim && r.NbRes != 0:
		return o, usage.Fieldf("nb-res", "%d sets nb_res of a Batsim output; the output here is %s", r.NbRes, o.To)
	case o.To == FormatCkpt && o.From == FormatSWF && r.Checkpoint == 0:
		return o, usage.Fieldf("ckpt", "is required to convert SWF to a ckpt job list (SWF has no checkpoint costs)")
	}
	return o, nil
}

// Validate checks the request and that the output is not the input.
func (r ConvertRequest) Validate() error {
	if _, err := r.options(); err != nil {
		return err
	}
	if r.In == "-" || r.Out == "-" {
		return nil
	}
	a, errA := os.Stat(r.In)
	b, errB := os.Stat(r.Out)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return usage.Errorf("output %s is the input %s: converting in place would lose it", r.Out, r.In)
	}
	return nil
}

// ConvertReport counts the jobs written and skipped (unknown width, or
// unknown run time into Batsim).
type ConvertReport struct {
	From    JobFormat `json:"from"`
	To      JobFormat `json:"to"`
	Jobs    int       `json:"jobs"`
	Skipped int       `json:"skipped"`
}

// WriteText writes the counts in one line.
func (r ConvertReport) WriteText(out io.Writer) error {
	w := output.NewWriter(out)
	w.Printf("%d jobs %s → %s", r.Jobs, r.From, r.To)
	if r.Skipped > 0 {
		w.Printf(", %d skipped", r.Skipped)
	}
	w.Printf("\n")
	return w.Err()
}

// RunConvert converts the request's input into its output.
func RunConvert(ctx context.Context, r ConvertRequest) (ConvertReport, error) {
	o, err := r.options()
	if err != nil {
		return ConvertReport{}, err
	}
	if err := r.Validate(); err != nil {
		return ConvertReport{}, err
	}
	rep := ConvertReport{From: o.From, To: o.To}
	in := r.Stdin
	if r.In != "-" {
		f, err := usage.Open(r.In)
		if err != nil {
			return rep, err
		}
		defer f.Close()
		in = f
	}
	convert := func(w io.Writer) error {
		var err error
		rep.Jobs, rep.Skipped, err = ConvertContext(ctx, in, w, o)
		return err
	}
	if r.Out == "-" {
		return rep, convert(r.Stdout)
	}
	return rep, output.WriteFile(r.Out, convert)
}
