package trace

import (
	"encoding/json"
)

// SWFField is the Batsim job field in which BatsimFromSWF carries the SWF
// fields Batsim has no place for; Batsim ignores fields it does not know.
const SWFField = "swf"

// swfCarry is the JSON of SWFField: the SWF fields of a job other than the
// job number (id), submit time (subtime) and run time (the delay profile).
// The processor counts and requested time are kept because res and
// walltime hold only one of them, or lose −1 against 0.
type swfCarry struct {
	WaitTime        float64 `json:"wait"`
	AllocatedProcs  int64   `json:"allocated_procs"`
	AvgCPUTime      float64 `json:"avg_cpu"`
	UsedMemory      float64 `json:"used_mem"`
	RequestedProcs  int64   `json:"requested_procs"`
	RequestedTime   float64 `json:"requested_time"`
	RequestedMemory float64 `json:"requested_mem"`
	Status          int64   `json:"status"`
	UserID          int64   `json:"user"`
	GroupID         int64   `json:"group"`
	Executable      int64   `json:"executable"`
	Queue           int64   `json:"queue"`
	Partition       int64   `json:"partition"`
	PrecedingJob    int64   `json:"preceding_job"`
	ThinkTime       float64 `json:"think_time"`
}

// carrySWF is j's SWFField. The times are finite (ReadSWF refuses others),
// so the encoding cannot fail.
func carrySWF(j SWFJob) json.RawMessage {
	b, err := json.Marshal(swfCarry{j.WaitTime, j.AllocatedProcs, j.AvgCPUTime, j.UsedMemory, j.RequestedProcs,
		j.RequestedTime, j.RequestedMemory, j.Status, j.UserID, j.GroupID, j.Executable, j.Queue,
		j.Partition, j.PrecedingJob, j.ThinkTime})
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// restoreSWF fills sj, the SWF job of Batsim job bj, with what bj's
// SWFField carries. The Batsim fields win where they were changed after
// the conversion: the processor counts come back only when res is still
// the width BatsimFromSWF took from them (allocated, else requested), and
// the requested time only when walltime is still what it was made from.
// A job without the field (a workload not converted from SWF) keeps −1.
func restoreSWF(sj *SWFJob, bj BatsimJob) {
	raw, ok := bj.Extra[SWFField]
	if !ok {
		return
	}
	var c swfCarry
	if json.Unmarshal(raw, &c) != nil {
		return
	}
	sj.WaitTime, sj.AvgCPUTime, sj.UsedMemory, sj.RequestedMemory = c.WaitTime, c.AvgCPUTime, c.UsedMemory, c.RequestedMemory
	sj.Status, sj.UserID, sj.GroupID, sj.Executable = c.Status, c.UserID, c.GroupID, c.Executable
	sj.Queue, sj.Partition, sj.PrecedingJob, sj.ThinkTime = c.Queue, c.Partition, c.PrecedingJob, c.ThinkTime
	width := c.AllocatedProcs
	if width <= 0 {
		width = c.RequestedProcs
	}
	if width == int64(bj.Res) {
		sj.AllocatedProcs, sj.RequestedProcs = c.AllocatedProcs, c.RequestedProcs
	}
	if wt := c.RequestedTime; wt == bj.Walltime || wt <= 0 && bj.Walltime < 0 {
		sj.RequestedTime = wt
	}
}

// SWFHeaderKey is the top-level Batsim workload field in which an SWF
// log's header lines travel (CarrySWFHeader), as [key, value] pairs.
const SWFHeaderKey = "swf_header"

// CarrySWFHeader keeps h's "; Key: value" lines in w's SWFHeaderKey field,
// so that converting w back to SWF writes them again (CarriedSWFHeader).
func (w *BatsimWorkload) CarrySWFHeader(h SWFHeader) {
	pairs := make([][2]string, 0, len(h.Fields))
	for _, f := range h.Fields {
		pairs = append(pairs, [2]string{f.Key, f.Value})
	}
	b, err := json.Marshal(pairs)
	if err != nil || len(pairs) == 0 {
		return
	}
	if w.Extra == nil {
		w.Extra = map[string]json.RawMessage{}
	}
	w.Extra[SWFHeaderKey] = b
}

// CarriedSWFHeader is the header CarrySWFHeader kept in w, and whether
// there is one.
func (w BatsimWorkload) CarriedSWFHeader() (SWFHeader, bool) {
	var pairs [][2]string
	raw, ok := w.Extra[SWFHeaderKey]
	if !ok || json.Unmarshal(raw, &pairs) != nil || len(pairs) == 0 {
		return SWFHeader{}, false
	}
	var h SWFHeader
	for _, p := range pairs {
		h.Fields = append(h.Fields, SWFHeaderField{Key: p[0], Value: p[1]})
	}
	return h, true
}
