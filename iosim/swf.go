package iosim

import (
	"io"
	"strconv"

	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
)

// WriteWorkloadSWF writes the job list that trial rep of a run with base
// seed baseSeed draws (GenerateJobs with TrialSeed(baseSeed, rep), as
// Sweep seeds it) as an SWF v2.2 log: one job per drawn job, in list order,
// submitted at 0, RequestedProcs = its class's nodes, RunTime = its work,
// RequestedTime = the class walltime, Executable = class index + 1. The
// header names the generator, the platform, the classes and the seed, so
// that the workload can be replayed in another simulator. O(J·K).
func WriteWorkloadSWF(w io.Writer, c *Config, span float64, baseSeed uint64, rep int) error {
	jobs, err := GenerateJobs(c, span, TrialSeed(baseSeed, rep))
	if err != nil {
		return err
	}
	out := make([]trace.GeneratedJob, len(jobs))
	for i, j := range jobs {
		cl := c.Classes[j.Class]
		out[i] = trace.GeneratedJob{Submit: 0, RunTime: j.Work, Procs: int64(cl.Nodes),
			RequestedTime: float64(cl.Walltime), Executable: int64(j.Class + 1)}
	}
	params := [][2]string{
		{"platform", c.Platform.Name},
		{"nodes", strconv.Itoa(c.Platform.Nodes)},
		{"span", units.FormatSeconds(span)},
		{"trial", strconv.Itoa(rep)},
	}
	for k, cl := range c.Classes {
		params = append(params, [2]string{"class" + strconv.Itoa(k+1), cl.Name})
	}
	return trace.WriteGeneratedSWF(w, "ckpt iosim", baseSeed, params, out)
}
