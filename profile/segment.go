package profile

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// SegmentOptions tunes Segment. The zero value means the defaults, which
// recover the 7 phases of the DRD SLANT runs.
type SegmentOptions struct {
	// DropFraction: a sample opens a new segment when memory falls from the
	// previous sample by at least this fraction of its height above the
	// baseline (default 0.3).
	DropFraction float64
	// MinDrop is the smallest fall, in GB, that can open a segment: smaller
	// falls are measurement noise (default 0.5 GB).
	MinDrop float64
	// MergeTolerance: consecutive segments whose peaks differ by at most
	// this fraction of the larger peak are one phase (default 0.15).
	MergeTolerance float64
	// MinSamples: a segment of fewer samples is merged into the previous
	// one (default 3).
	MinSamples int
}

func (o SegmentOptions) withDefaults() SegmentOptions {
	if o.DropFraction == 0 {
		o.DropFraction = 0.3
	}
	if o.MinDrop == 0 {
		o.MinDrop = 0.5
	}
	if o.MergeTolerance == 0 {
		o.MergeTolerance = 0.15
	}
	if o.MinSamples == 0 {
		o.MinSamples = 3
	}
	return o
}

// Segment cuts a whole-run memory trace into phases of roughly constant
// peak memory, the parser of Fig. 7, and returns the index of the first
// sample of every phase (the first is always 0).
//
// The rule follows what the SLANT traces show: every task is a process that
// allocates, holds, and frees its memory on exit, so a task boundary is a
// sharp fall to the node's baseline, and a task that repeats a pattern (the
// 27 network tiles of task 5) falls to the baseline between repetitions of
// the same height. Hence:
//
//  1. baseline b = the 1st percentile of the samples; segment peaks in
//     steps 3 and 4 are taken on the running median of 5 samples so that
//     spikes do not count (Phases still reports the raw peaks);
//  2. sample i opens a segment when the memory falls and stays down: with
//     a = min(m_{i−2}, m_{i−1}) and z = max(m_i, m_{i+1}) (raw samples, so
//     that a one-sample spike neither opens nor hides a fall),
//     a − z ≥ max(MinDrop, DropFraction·(a − b));
//  3. a segment of fewer than MinSamples samples, or one whose peak stays
//     within 2·MinDrop of the baseline (a task that has freed its memory and
//     is finishing), joins the previous one;
//  4. consecutive segments whose peaks are within MergeTolerance of each
//     other (relative to the larger) are merged — repetitions of one task.
//
// O(L log L) for L samples (the percentile sort).
func Segment(s []Sample, o SegmentOptions) ([]int, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("empty trace")
	}
	o = o.withDefaults()
	if !(o.DropFraction > 0 && o.DropFraction <= 1) || o.MinDrop < 0 || !(o.MergeTolerance >= 0 && o.MergeTolerance < 1) || o.MinSamples < 1 {
		return nil, fmt.Errorf("invalid segment options %+v", o)
	}
	f := median5(s)
	ms := slices.Clone(f)
	sort.Float64s(ms)
	base := ms[len(ms)/100]
	starts := []int{0}
	for i := o.MinSamples; i < len(s); i++ {
		before := s[i-1].Mem
		if i >= 2 {
			before = math.Min(before, s[i-2].Mem)
		}
		after := s[i].Mem
		if i+1 < len(s) {
			after = math.Max(after, s[i+1].Mem)
		}
		fall := before - after
		if fall >= o.MinDrop && fall >= o.DropFraction*(before-base) {
			starts = append(starts, i)
		}
	}
	peak := func(a, b int) float64 {
		m := 0.0
		for _, x := range f[a:b] {
			m = math.Max(m, x)
		}
		return m
	}
	// 3. too-short segments, and segments that never leave the baseline
	// (a process that has freed its memory), join the previous one.
	var kept []int
	for k, st := range starts {
		end := len(s)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		if k > 0 && (end-st < o.MinSamples || peak(st, end)-base < 2*o.MinDrop) {
			continue
		}
		kept = append(kept, st)
	}
	// 4. merge neighbours of similar peak.
	out := []int{0}
	curPeak := 0.0
	for k, st := range kept {
		end := len(s)
		if k+1 < len(kept) {
			end = kept[k+1]
		}
		p := peak(st, end)
		if k == 0 {
			curPeak = p
			continue
		}
		if math.Abs(p-curPeak) <= o.MergeTolerance*math.Max(p, curPeak) {
			curPeak = math.Max(curPeak, p)
			continue
		}
		out = append(out, st)
		curPeak = p
	}
	return out, nil
}

// Phases turns the segment starts of Segment into phases: each lasts from
// its first sample to the first sample of the next phase (the last one to
// its own last sample) and peaks at its largest sample.
func Phases(s []Sample, starts []int) []Phase {
	out := make([]Phase, len(starts))
	for k, st := range starts {
		end := len(s)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		p := PhaseOf(s[st:end])
		if end < len(s) {
			p.Duration = s[end].T - s[st].T
		}
		out[k] = p
	}
	return out
}

// median5 is the running median of the memory over 5 samples (fewer at the
// ends).
func median5(s []Sample) []float64 {
	out := make([]float64, len(s))
	var w [5]float64
	for i := range s {
		lo, hi := max(0, i-2), min(len(s), i+3)
		n := 0
		for _, x := range s[lo:hi] {
			w[n] = x.Mem
			n++
		}
		sort.Float64s(w[:n])
		out[i] = w[n/2]
	}
	return out
}
