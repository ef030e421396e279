package iosim

import (
	"cmp"
	"math"
	"slices"
)

// Proportional sharing, exactly (the default; Options.VirtualTime selects
// the virtual clock of virtualshare.go instead). Every start or end of a transfer changes the share
// of every active transfer, so each one's remaining bytes, rate and
// completion time are recomputed — with the same expressions, in the same
// order, as cancelling and rescheduling every completion would (the
// straightforward way, reshareNaive, kept as the tests' oracle). What is
// incremental is the event queue's part: the completions are kept on the
// transfers themselves, each with the sequence number it would have had
// in the queue (des.Sim.Reserve), and only the earliest is queued, as one
// reusable event (shareEv). A reshare is then O(T) arithmetic for T active
// transfers plus one O(log n) queue update, with no allocation, instead of
// T cancellations and T allocating insertions.

// addShare adds tr to the active transfers and reshares.
func (s *simulator) addShare(tr *transfer) {
	if s.virtual {
		s.vAdd(tr)
		return
	}
	s.active = append(s.active, tr)
	s.sumQ += tr.j.q
	s.reshare()
}

// removeShare removes tr from the active transfers and reshares the
// others (their order, which fixes the accounting's order of additions
// and the completions' sequence numbers, is kept).
func (s *simulator) removeShare(tr *transfer) {
	if s.virtual {
		s.vRemove(tr)
		return
	}
	i := slices.Index(s.active, tr)
	s.active = slices.Delete(s.active, i, i+1)
	s.sumQ -= tr.j.q
	if len(s.active) > 0 {
		s.reshare()
		return
	}
	s.sim.Cancel(s.shareEv)
}

// reshare brings every active transfer to now at its old rate (booking its
// job's node-seconds), gives it its new share of the bandwidth and its new
// completion time, and queues the earliest completion.
func (s *simulator) reshare() {
	if s.naiveShare {
		s.reshareNaive()
		return
	}
	if s.shareEv == nil {
		s.shareEv = s.sim.NewEvent(func() { s.transferEnd(s.shareNext) })
	}
	now := s.sim.Now()
	sumQ := float64(s.sumQ)
	seq := s.sim.Reserve(len(s.active))
	var next *transfer
	own := s.opt.Accounting != AuthorsAccounting
	// The split's three sums stay in registers through the loop (each
	// was a load, an add and a store per transfer, one chain through
	// memory); the same additions in the same order, so the same bits.
	// flush, which reads and writes them, sees them stored.
	ck, io, idle := s.acc.Checkpoint, s.acc.IO, s.acc.Idle
	for i, tr := range s.active {
		if j := tr.j; own && j.state == sTransfer {
			// flush(j) for a job in exact Proportional sharing's active
			// transfer with the default accounting: the same operations in
			// the same order, without flush's dispatch; f is the old rate's.
			c := float64(j.q) * s.clip(j.since, now)
			s.classNS[j.class] += c
			if j.kind == Checkpoint || j.kind == Recovery {
				ck += c
			} else {
				f := tr.rate / s.beta
				io += c * f
				idle += c * (1 - f)
				j.unIO += c * f
			}
			j.since = now
		} else {
			s.acc.Checkpoint, s.acc.IO, s.acc.Idle = ck, io, idle
			s.flush(j)
			ck, io, idle = s.acc.Checkpoint, s.acc.IO, s.acc.Idle
		}
		tr.remaining -= tr.rate * (now - tr.last)
		tr.last = now
		tr.rate = s.beta * float64(tr.j.q) / sumQ
		tr.end = now + max(tr.remaining, 0)/tr.rate // des: After(d) is At(now + d)
		tr.seq = seq + uint64(i)
		if next == nil || tr.end < next.end {
			next = tr // on a tie the earlier sequence number fires first
		}
	}
	s.acc.Checkpoint, s.acc.IO, s.acc.Idle = ck, io, idle
	s.shareNext = next
	s.sim.ScheduleSeq(s.shareEv, next.end, next.seq)
}

// reshareNaive is the straightforward recomputation: every active transfer
// is brought to now, then every completion is cancelled and scheduled anew
// at the new rates. It is the oracle of reshare (see the tests).
func (s *simulator) reshareNaive() {
	now := s.sim.Now()
	sumQ := 0
	for _, tr := range s.active {
		s.flush(tr.j)
		tr.remaining -= tr.rate * (now - tr.last)
		tr.last = now
		sumQ += tr.j.q
	}
	for _, tr := range s.active {
		tr.rate = s.beta * float64(tr.j.q) / float64(sumQ)
		s.sim.Cancel(tr.ev)
		tr.ev = s.sim.After(math.Max(tr.remaining, 0)/tr.rate, func() { s.transferEnd(tr) })
	}
}

// left is tr's remaining bytes as of the last reshare.
func (s *simulator) left(tr *transfer) float64 {
	if s.virtual && tr.hidx >= 0 {
		return (tr.fin - s.vClock) * float64(tr.j.q)
	}
	return tr.remaining
}

// openShares is the active transfers in their start order.
func (s *simulator) openShares() []*transfer {
	if !s.virtual {
		return s.active
	}
	out := slices.Clone(s.shares)
	slices.SortFunc(out, func(a, b *transfer) int { return cmp.Compare(a.ord, b.ord) })
	return out
}
