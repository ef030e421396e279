package trace

import "io"

// GeneratedJob is one job of a workload a ckpt generator drew, in the SWF
// fields it fills: the rest are written as −1 (unknown).
type GeneratedJob struct {
	Submit        float64 // submit time, seconds from the start (≥ 0)
	RunTime       float64 // seconds; −1 when the job has no fixed length
	Procs         int64   // processors (or nodes) requested
	RequestedTime float64 // walltime requested, seconds; −1 when none
	// Executable is the SWF application number: ckpt writes the 1-based
	// index of the job's class or application (−1 when none).
	Executable int64
}

// WriteGeneratedSWF writes jobs as an SWF v2.2 log numbered from 1 under
// GeneratedSWFHeader(generator, seed, params, …), MaxProcs being the
// widest job. A generator (ckpt iosim: one job per drawn job, Procs = its
// class's nodes, RunTime = its work, RequestedTime = the class walltime,
// Executable = class + 1) calls it with its parameters as name=value
// pairs; ReadSWF reads the file back to the same jobs and header fields.
func WriteGeneratedSWF(w io.Writer, generator string, seed uint64, params [][2]string, jobs []GeneratedJob) error {
	out := make([]SWFJob, len(jobs))
	widest := int64(0)
	for i, j := range jobs {
		out[i] = SWFJob{JobNumber: int64(i + 1), SubmitTime: j.Submit, WaitTime: -1, RunTime: j.RunTime,
			AllocatedProcs: -1, AvgCPUTime: -1, UsedMemory: -1, RequestedProcs: j.Procs, RequestedTime: j.RequestedTime,
			RequestedMemory: -1, Status: -1, UserID: -1, GroupID: -1, Executable: j.Executable, Queue: -1,
			Partition: -1, PrecedingJob: -1, ThinkTime: -1}
		widest = max(widest, j.Procs)
	}
	return WriteSWF(w, GeneratedSWFHeader(generator, seed, params, len(jobs), int(widest)), out)
}
