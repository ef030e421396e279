package iosim

import "math"

// Proportional sharing in virtual time (Options.VirtualTime). With the
// active transfers holding S nodes in all, a transfer of a job of q nodes
// moves q·β/S bytes per second: every node of every active transfer moves
// β/S. The virtual clock V counts the bytes one such node has moved
// (dV/dt = β/S, changed only when S does), so a transfer of b bytes
// started at V₀ ends when V reaches its finish F = V₀ + b/q, a fixed point
// whatever starts or ends meanwhile. The active transfers are a min-heap
// on (F, start order); the earliest is the only completion queued (one
// reusable event, shareEv). A start or end advances V, changes S and moves
// one heap entry: O(log T) for T active transfers, touching no other
// transfer and no other job (the exact way, share.go, is O(T) arithmetic).
// A job's node-seconds are booked when its own state changes (flush): over
// [a, b] its transfer moved q·(V(b) − V(a)) bytes, so q²·ΔV/β node-seconds
// are IO (its interference-free duration) and the rest of q·(b − a) Idle.
//
// Rounding. The exact way subtracts rate × elapsed from every remaining
// volume at every reshare; the virtual clock subtracts once, F − V. Both
// compute the same real numbers; their relative rounding errors are a few
// ulps per operation: the exact remaining volume carries about 2u per
// reshare it lived through (u = 2⁻⁵³), the virtual one about 2u·V/(F − V)
// (V is rebased to 0 whenever no transfer is active, so V is the bytes per
// node of the current busy period), and both event times carry the
// clock's resolution, u·t, per event. Completion times therefore agree to
// about 10⁻¹³ of the time (TestVirtualShareMatchesExact checks 10⁻⁹ on
// 3-day Cielo ×1 and ×4 runs). They are not equal bit for bit, and a run
// is chaotic: computeStop's tolerance (10⁻⁹ of the work) and the
// scheduler's comparisons turn a difference in the last bits into a job
// started one event earlier or later, after which the runs are two
// different samples of the same model. Over 62 days a run's waste moves
// by up to about 0.005 (the coop reproduction's 16-digit CSVs all
// change), well inside the spread between seeds (0.04); hence a switch,
// and the default stays the exact way, which every published output was
// made with.
//
// Under AuthorsModel.StaleRates a failed job's transfer leaves without a
// reshare: the others keep their rates, that is V keeps its rate β/S of
// the last reshare until the next one.
// shareHeap is the active transfers ordered by (fin, ord).
type shareHeap []*transfer

func (h shareHeap) less(a, b *transfer) bool {
	return a.fin < b.fin || (a.fin == b.fin && a.ord < b.ord)
}

func (h shareHeap) up(i int) {
	t := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(t, h[p]) {
			break
		}
		h[i] = h[p]
		h[i].hidx = i
		i = p
	}
	h[i] = t
	t.hidx = i
}

func (h shareHeap) down(i int) {
	n := len(h)
	t := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.less(h[r], h[c]) {
			c = r
		}
		if !h.less(h[c], t) {
			break
		}
		h[i] = h[c]
		h[i].hidx = i
		i = c
	}
	h[i] = t
	t.hidx = i
}

// push adds t.
func (h *shareHeap) push(t *transfer) {
	*h = append(*h, t)
	h.up(len(*h) - 1)
}

// remove takes out t (which is in h).
func (h *shareHeap) remove(t *transfer) {
	q := *h
	i, n := t.hidx, len(q)-1
	t.hidx = -1
	if i != n {
		q[i] = q[n]
		q[i].hidx = i
	}
	q[n] = nil
	*h = q[:n]
	if i != n {
		h.down(i)
		h.up(i)
	}
}

// vTime is the virtual clock at t ≥ vAt (its rate is constant since vAt).
func (s *simulator) vTime(t float64) float64 { return s.vClock + (t-s.vAt)*s.vRate }

// advance brings the virtual clock to now, noting its values at the
// window's ends as it passes them.
func (s *simulator) advance(now float64) {
	if !s.vW0Set && s.vAt <= s.w0 && s.w0 <= now {
		s.vW0, s.vW0Set = s.vTime(s.w0), true
	}
	if !s.vW1Set && s.vAt <= s.w1 && s.w1 <= now {
		s.vW1, s.vW1Set = s.vTime(s.w1), true
	}
	s.vClock = s.vTime(now)
	s.vAt = now
}

// vClamp is the virtual clock at t clamped to the window, given vt = V(t)
// (t is now or a job's last flush, at most now).
func (s *simulator) vClamp(t, vt float64) float64 {
	switch {
	case t <= s.w0:
		if s.vW0Set {
			return s.vW0
		}
		return s.vTime(s.w0)
	case t >= s.w1:
		if s.vW1Set {
			return s.vW1
		}
		return s.vTime(s.w1)
	}
	return vt
}

// vAdd adds tr to the active transfers.
func (s *simulator) vAdd(tr *transfer) {
	s.advance(s.sim.Now())
	tr.fin = s.vClock + tr.remaining/float64(tr.j.q)
	tr.ord = s.shareOrd
	s.shareOrd++
	s.shares.push(tr)
	s.sumQ += tr.j.q
	s.vReshare()
}

// vRemove removes tr from the active transfers.
func (s *simulator) vRemove(tr *transfer) {
	s.advance(s.sim.Now())
	s.shares.remove(tr)
	s.sumQ -= tr.j.q
	s.vReshare()
}

// vRemoveStale removes tr, whose job failed, without a reshare
// (AuthorsModel.StaleRates): the clock keeps its rate; the earliest
// completion is queued again if it was tr's.
func (s *simulator) vRemoveStale(tr *transfer) {
	s.sumQ -= tr.j.q
	wasNext := tr.hidx == 0
	s.shares.remove(tr)
	switch {
	case len(s.shares) == 0:
		s.sim.Cancel(s.shareEv)
		s.vClock, s.vRate = 0, 0
	case wasNext:
		s.queueShare()
	}
}

// vReshare gives the virtual clock its new rate β/S and queues the
// earliest completion (or rebases the clock when no transfer is left). Its
// sequence number is the first of as many as the exact way takes
// (des.Sim.Reserve), so that it ties with other events as that way's
// completions do.
func (s *simulator) vReshare() {
	if len(s.shares) == 0 {
		s.sim.Cancel(s.shareEv)
		s.vClock, s.vRate = 0, 0
		return
	}
	if s.shareEv == nil {
		s.shareEv = s.sim.NewEvent(func() { s.transferEnd(s.shares[0]) })
	}
	s.vRate = s.beta / float64(s.sumQ)
	s.shareSeq = s.sim.Reserve(len(s.shares))
	s.queueShare()
}

// queueShare queues the earliest completion at the clock's current rate.
func (s *simulator) queueShare() {
	next := s.shares[0]
	end := s.vAt + max(next.fin-s.vClock, 0)/s.vRate
	s.sim.ScheduleSeq(s.shareEv, math.Max(end, s.sim.Now()), s.shareSeq)
}
