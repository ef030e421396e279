package coord

import (
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// AcquireRequest asks for the file system.
type AcquireRequest struct {
	Job string `json:"job"`
	// RequestID identifies the request: a retry with the same id (after
	// a timeout, or to poll a waiting request) gets the same answer.
	RequestID string       `json:"request_id"`
	Kind      arbiter.Kind `json:"kind"`
	// Bytes to transfer (0: the job's checkpoint size, or C·β).
	Bytes float64 `json:"bytes,omitempty"`
	// TTL of the lease in seconds (0: the coordinator's default).
	TTL float64 `json:"ttl,omitempty"`
	// LastCheckpoint overrides the job's last checkpoint end (a
	// simulation driving the coordinator reports its own; 0: the
	// coordinator's record).
	LastCheckpoint float64 `json:"last_checkpoint,omitempty"`
}

// Lease states as a client sees them.
const (
	StatusGranted = "granted"
	StatusWaiting = "waiting"
)

// Grant is the answer to Acquire, Renew or Release (never stored: its
// json names are the API's).
type Grant struct {
	Job       string `json:"job"`
	RequestID string `json:"request_id,omitempty"`
	// Status is granted, waiting, or for a finished request its outcome
	// (released, expired, dropped).
	Status  string  `json:"status"`
	Token   uint64  `json:"token,omitempty"`
	Expires float64 `json:"expires_s,omitempty"`
	Share   float64 `json:"share_bps,omitempty"` // bandwidth granted, bytes/s
	Waiting int     `json:"waiting"`             // requests waiting, this one included if it waits
	// NonBlocking: keep computing while waiting for a checkpoint grant.
	NonBlocking bool `json:"non_blocking,omitempty"`
	// Granted lists every lease granted during this call (this request's
	// or others', freed by a release, a cancel or an expiry): a
	// simulation driving the coordinator learns its decisions from it
	// without polling.
	Granted []Notice `json:"granted,omitempty"`
}

// Notice is a grant made during a call.
type Notice struct {
	Job       string  `json:"job"`
	RequestID string  `json:"request_id"`
	Token     uint64  `json:"token"`
	Expires   float64 `json:"expires_s"`
}

// begin starts a call at time now: it forgets the previous call's
// notices and expires what is due.
func (c *Coordinator) begin(now float64) {
	c.granted = c.granted[:0]
	if finite(now) && now > c.meta.Now {
		c.meta.Now = now
	}
	c.expire(now)
	c.prune(now)
}

// Granted returns the grants made during the last call (valid until the
// next call).
func (c *Coordinator) Granted() []Notice { return c.granted }

func (c *Coordinator) notices() []Notice {
	if len(c.granted) == 0 {
		return nil
	}
	return append([]Notice(nil), c.granted...)
}

// MaxTTL is the default bound of a requested lease TTL (one day).
const MaxTTL = 86400

func (c *Coordinator) answer(j *Job) Grant {
	l := j.Lease
	g := Grant{Job: j.Spec.ID, RequestID: l.RequestID, Status: StatusWaiting, Expires: l.Expires,
		Waiting: len(c.waiting), NonBlocking: c.cfg.Policy.NonBlocking && l.Kind == arbiter.Checkpoint}
	if l.Granted {
		g.Status, g.Token, g.Share = StatusGranted, l.Token, l.Share
	}
	return g
}

func (c *Coordinator) pastAnswer(j *Job, p Past) Grant {
	return Grant{Job: j.Spec.ID, RequestID: p.RequestID, Status: p.Outcome, Token: p.Token, Waiting: len(c.waiting)}
}

// Acquire asks for the file system at time now. A new request waits or is
// granted at once, as the policy decides; a retry (same RequestID) of the
// outstanding request renews a waiting request's poll deadline and returns
// its state; a retry of a finished request returns how it ended. A job has
// one outstanding request: another id is a Conflict.
func (c *Coordinator) Acquire(now float64, r AcquireRequest) (Grant, error) {
	c.begin(now)
	j, ok := c.jobs[r.Job]
	if !ok {
		return Grant{}, errorf(NotFound, "job", "no job %q", clip(r.Job))
	}
	switch {
	case !validID(r.RequestID):
		return Grant{}, errorf(Invalid, "request_id", "%q must be 1-%d characters of [A-Za-z0-9._:-]", clip(r.RequestID), MaxIDLen)
	case r.Kind < arbiter.Input || r.Kind > arbiter.Output:
		return Grant{}, errorf(Invalid, "kind", "%d is not a transfer kind", int(r.Kind))
	case !(r.Bytes >= 0 && r.Bytes <= MaxBytes):
		return Grant{}, errorf(Invalid, "bytes", "%v must be in [0, %g]", r.Bytes, MaxBytes)
	case !(r.TTL >= 0) || r.TTL > c.cfg.MaxTTL:
		return Grant{}, errorf(Invalid, "ttl", "%v must be in [0, %g] seconds", r.TTL, c.cfg.MaxTTL)
	case !(r.LastCheckpoint >= 0 && r.LastCheckpoint <= MaxTime):
		return Grant{}, errorf(Invalid, "last_checkpoint", "%v must be in [0, %g]", r.LastCheckpoint, float64(MaxTime))
	case !(math.Abs(now) <= MaxTime):
		return Grant{}, errorf(Invalid, "now", "%v must be in [-%g, %g]", now, float64(MaxTime), float64(MaxTime))
	}
	if l := j.Lease; l != nil && l.RequestID == r.RequestID {
		if err := sameRequest(r, l.Kind, l.Asked); err != nil {
			return Grant{}, err
		}
		if !l.Granted {
			l.Expires = now + l.TTL
			c.touch(j.Spec.ID)
		}
		return c.answer(j), nil
	}
	if p, ok := j.past(r.RequestID, 0); ok {
		if err := sameRequest(r, p.Kind, p.Asked); err != nil {
			return Grant{}, err
		}
		return c.pastAnswer(j, p), nil
	}
	if j.Lease != nil {
		return Grant{}, errorf(Conflict, "request_id", "job %q already has request %q outstanding", j.Spec.ID, j.Lease.RequestID)
	}
	l := &Lease{RequestID: r.RequestID, Kind: r.Kind, Bytes: r.Bytes, Asked: r.Bytes, Since: now, TTL: r.TTL}
	if l.TTL == 0 {
		l.TTL = c.cfg.TTL
	}
	switch {
	case l.Bytes > 0:
		l.Duration = l.Bytes / c.cfg.Bandwidth
	case r.Kind == arbiter.Checkpoint || r.Kind == arbiter.Recovery:
		l.Duration = j.CEst
		l.Bytes = j.CEst * c.cfg.Bandwidth
	}
	if r.LastCheckpoint > 0 {
		j.LastCheckpoint = r.LastCheckpoint
	}
	l.Expires = now + l.TTL
	c.due(l.Expires)
	c.meta.Seq++
	l.Seq = c.meta.Seq
	j.Lease = l
	c.waiting = append(c.waiting, j)
	c.touch(j.Spec.ID)
	c.promote(now)
	g := c.answer(j)
	g.Granted = c.notices()
	return g, nil
}

// sameRequest refuses a replay of a request id that asks for another
// transfer than the request did (kind, asked size; a replay without a
// size asks for the request's).
func sameRequest(r AcquireRequest, kind arbiter.Kind, asked float64) error {
	if r.Kind != kind {
		return errorf(Conflict, "kind", "request %q asked for %s, not %s", clip(r.RequestID), kind, r.Kind)
	}
	if r.Bytes != 0 && r.Bytes != asked { // a poll may leave the size out
		return errorf(Conflict, "bytes", "request %q asked for %g bytes, not %g", clip(r.RequestID), asked, r.Bytes)
	}
	return nil
}

// Renew extends a granted lease by its TTL from now (a heartbeat). The
// token must be the one held: a lease that expired is not revived.
func (c *Coordinator) Renew(now float64, job string, token uint64) (Grant, error) {
	c.begin(now)
	j, err := c.holder(job, token)
	if err != nil {
		return Grant{}, err
	}
	j.Lease.Expires = now + j.Lease.TTL
	c.touch(job)
	return c.answer(j), nil
}

func (c *Coordinator) holder(job string, token uint64) (*Job, error) {
	j, ok := c.jobs[job]
	if !ok {
		return nil, errorf(NotFound, "job", "no job %q", clip(job))
	}
	if l := j.Lease; l != nil && l.Granted && l.Token == token {
		return j, nil
	}
	why := "was never granted to this job"
	if p, ok := j.past("", token); ok {
		why = p.Outcome
	}
	c.meta.Refused++
	return j, errorf(Fenced, "token", "lease %d of job %q is not held: %s", token, job, why)
}

// Release ends a granted lease at time now. For a checkpoint, the job's
// last checkpoint ends now and measured (the checkpoint's duration in
// seconds; 0: now − grant time) updates its C. Releasing an expired lease
// is refused (Fenced); releasing again a released one returns the same
// answer.
func (c *Coordinator) Release(now float64, job string, token uint64, measured float64) (Grant, error) {
	c.begin(now)
	if !(measured >= 0 && measured <= MaxDuration) {
		return Grant{}, errorf(Invalid, "duration", "%v must be in [0, %g] seconds", measured, float64(MaxDuration))
	}
	j, err := c.holder(job, token)
	if err != nil {
		if j != nil {
			if p, ok := j.past("", token); ok && p.Outcome == OutReleased {
				c.meta.Refused--
				return c.pastAnswer(j, p), nil
			}
		}
		return Grant{}, err
	}
	l := j.Lease
	if l.Kind == arbiter.Checkpoint {
		j.LastCheckpoint = now
		j.Checkpoints++
		if measured == 0 {
			measured = now - l.GrantedAt
		}
		if measured > 0 {
			if j.Samples == 0 {
				j.CEst = measured
			} else {
				j.CEst += c.cfg.Alpha * (measured - j.CEst)
			}
			j.Samples++
		}
	}
	c.meta.Releases++
	return c.end(j, now, OutReleased), nil
}

// Cancel withdraws job's outstanding request requestID at time now,
// waiting or granted, without counting a checkpoint (the job failed, or
// gave up). The file system, if it held it, goes to the next request.
// Cancelling a finished request returns how it ended.
func (c *Coordinator) Cancel(now float64, job, requestID string) (Grant, error) {
	c.begin(now)
	j, ok := c.jobs[job]
	if !ok {
		return Grant{}, errorf(NotFound, "job", "no job %q", clip(job))
	}
	if l := j.Lease; l != nil && l.RequestID == requestID {
		return c.end(j, now, OutDropped), nil
	}
	if p, ok := j.past(requestID, 0); ok && requestID != "" {
		return c.pastAnswer(j, p), nil
	}
	return Grant{}, errorf(NotFound, "request_id", "job %q has no request %q", job, clip(requestID))
}

// drop removes j's outstanding request, remembering its outcome.
// end closes j's outstanding request with outcome, hands the file system
// to the next requests and answers with how the request ended and who
// was granted.
func (c *Coordinator) end(j *Job, now float64, outcome string) Grant {
	l := j.Lease
	p := Past{RequestID: l.RequestID, Token: l.Token, Outcome: outcome}
	c.drop(j, outcome, now)
	c.promote(now)
	g := c.pastAnswer(j, p)
	g.Granted = c.notices()
	return g
}

func (c *Coordinator) drop(j *Job, outcome string, now float64) {
	l := j.Lease
	if l.Granted {
		c.holders = slices.DeleteFunc(c.holders, func(h *Job) bool { return h == j })
	} else {
		c.waiting = slices.DeleteFunc(c.waiting, func(h *Job) bool { return h == j })
	}
	j.remember(Past{RequestID: l.RequestID, Token: l.Token, Outcome: outcome, Kind: l.Kind, Asked: l.Asked,
		Until: now + c.cfg.MaxTTL}, now)
	j.Lease = nil
	c.touch(j.Spec.ID)
}

// Tick expires the leases and waiting requests whose deadline is ≤ now
// and grants the freed file system. Every other method ticks first.
func (c *Coordinator) Tick(now float64) { c.begin(now) }

func (c *Coordinator) expire(now float64) {
	if now < c.nextDue {
		return // nothing due: O(1) on most calls
	}
	var gone []*Job
	due := math.Inf(1)
	for _, list := range [][]*Job{c.holders, c.waiting} {
		for _, j := range list {
			if e := j.Lease.Expires; e <= now {
				gone = append(gone, j)
			} else {
				due = min(due, e)
			}
		}
	}
	c.nextDue = due
	for _, j := range gone {
		if j.Lease.Granted {
			c.meta.Expiries++
			c.drop(j, OutExpired, now)
		} else {
			c.drop(j, OutDropped, now)
		}
	}
	c.promote(now)
}

// due notes a new deadline. nextDue is a lower bound of the outstanding
// deadlines (a renewal only moves a deadline later), made exact again by
// each scan.
func (c *Coordinator) due(e float64) { c.nextDue = min(c.nextDue, e) }

// promote grants what the policy allows at time now.
func (c *Coordinator) promote(now float64) {
	if !c.cfg.Policy.Token {
		for len(c.waiting) > 0 {
			c.grant(now, 0)
		}
		return
	}
	for len(c.holders) == 0 && len(c.waiting) > 0 {
		c.reqBuf = c.reqBuf[:0]
		for _, j := range c.waiting {
			l := j.Lease
			c.reqBuf = append(c.reqBuf, arbiter.Request{Job: j.Num, Kind: l.Kind, Nodes: j.Spec.Nodes, Bytes: l.Bytes,
				Duration: l.Duration, Since: l.Since, LastCheckpoint: j.LastCheckpoint, Recovery: j.recovery(), Seq: l.Seq})
		}
		i := c.cfg.Policy.Arbiter.Pick(now, c.reqBuf, arbiter.Env{NodeMTBF: c.arbiterMTBF(now), Bandwidth: c.cfg.Bandwidth})
		if i < 0 || i >= len(c.waiting) {
			i = 0 // a broken arbiter must not wedge the service
		}
		c.grant(now, i)
	}
}

func (j *Job) recovery() float64 {
	if j.Spec.R > 0 {
		return j.Spec.R
	}
	return j.CEst
}

// arbiterMTBF is the μ_ind that Least-Waste weighs risk with: the
// configured value when Config.FixedMTBF, else the estimate, else (no
// data) one year per node.
func (c *Coordinator) arbiterMTBF(now float64) float64 {
	if c.cfg.FixedMTBF {
		return c.cfg.NodeMTBF
	}
	if mu := c.NodeMTBF(now); mu > 0 {
		return mu
	}
	return 365 * 86400
}

func (c *Coordinator) grant(now float64, i int) {
	j := c.waiting[i]
	c.waiting = slices.Delete(c.waiting, i, i+1)
	l := j.Lease
	c.meta.Token++
	l.Granted, l.GrantedAt, l.Token, l.Expires = true, now, c.meta.Token, now+l.TTL
	c.due(l.Expires)
	c.holders = append(c.holders, j)
	l.Share = c.cfg.Bandwidth
	if !c.cfg.Policy.Token {
		var q float64
		for _, h := range c.holders {
			q += float64(h.Spec.Nodes)
		}
		l.Share = c.cfg.Bandwidth * float64(j.Spec.Nodes) / q
	}
	c.meta.Grants++
	c.meta.BytesGranted += l.Bytes
	c.granted = append(c.granted, Notice{Job: j.Spec.ID, RequestID: l.RequestID, Token: l.Token, Expires: l.Expires})
	c.touch(j.Spec.ID)
}
