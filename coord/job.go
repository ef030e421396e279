package coord

import (
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// Advice methods for the checkpoint period.
const (
	MethodDaly  = "daly"  // Daly's higher-order period (interval.Daly)
	MethodYoung = "young" // Young's √(2CM) (interval.Young)
	MethodEY    = "ey"    // Theorem 1: Te split into x equal intervals for E(Y) failures (interval.Intervals)
)

// JobSpec is what a job tells at registration. Times are seconds on the
// caller's clock; durations seconds; sizes bytes.
type JobSpec struct {
	ID    string  `json:"id"`
	Nodes int     `json:"nodes"`           // q ≥ 1
	Bytes float64 `json:"bytes,omitempty"` // checkpoint size (C = Bytes/β unless C is given)
	C     float64 `json:"c,omitempty"`     // measured checkpoint duration
	R     float64 `json:"r,omitempty"`     // recovery duration (default C)
	MTBF  float64 `json:"mtbf,omitempty"`  // the job's MTBF (0: from E(Y) or the platform)
	EY    float64 `json:"ey,omitempty"`    // expected number of failures over Work
	Work  float64 `json:"work,omitempty"`  // Te, the job's work (for E(Y); default End − registration)
	End   float64 `json:"end,omitempty"`   // allocation end time (0: unknown)
	// Method is daly (default), young or ey.
	Method string `json:"method,omitempty"`
	// AuthHash is set by the server, never by a client: the hex SHA-256
	// of the job's own token, needed to act for the job. Registering
	// again with the same token is a retry; with another, a Conflict.
	AuthHash string `json:"auth_hash,omitempty"`
}

// MaxIDLen bounds job and request ids.
const MaxIDLen = 128

func validID(s string) bool {
	if s == "" || len(s) > MaxIDLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// Validate checks a spec's fields; the error names the first bad one.
func (s JobSpec) Validate() error {
	if !validID(s.ID) {
		return errorf(Invalid, "id", "%q must be 1-%d characters of [A-Za-z0-9._:-]", clip(s.ID), MaxIDLen)
	}
	if s.Nodes < 1 || s.Nodes > 1e8 {
		return errorf(Invalid, "nodes", "%d must be in [1, 1e8]", s.Nodes)
	}
	for _, f := range []struct {
		name string
		v    float64
		max  float64
	}{{"bytes", s.Bytes, MaxBytes}, {"c", s.C, MaxDuration}, {"r", s.R, MaxDuration}, {"mtbf", s.MTBF, MaxDuration},
		{"ey", s.EY, 1e300}, {"work", s.Work, MaxDuration}, {"end", s.End, MaxTime}} {
		if !(f.v >= 0 && f.v <= f.max) {
			return errorf(Invalid, f.name, "%v must be in [0, %g]", f.v, f.max)
		}
	}
	if s.Bytes == 0 && s.C == 0 {
		return errorf(Invalid, "bytes", "give the checkpoint size (bytes) or its measured duration (c)")
	}
	if len(s.AuthHash) > 64 {
		return errorf(Invalid, "auth_hash", "longer than 64 characters")
	}
	switch s.Method {
	case "", MethodDaly, MethodYoung, MethodEY:
	default:
		return errorf(Invalid, "method", "unknown method %q (known: daly, young, ey)", clip(s.Method))
	}
	return nil
}

// ValidateNew is Validate and what a new registration at time now needs
// besides: method ey needs the job's work Te, given (Work) or up to an
// allocation end after now. Without it every Next would be refused, and
// the job could not be registered again with its work (another spec is a
// Conflict). The error names the bad field.
func (s JobSpec) ValidateNew(now float64) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return s.needsWork(now)
}

func (s JobSpec) needsWork(now float64) error {
	if s.Method == MethodEY && s.Work == 0 && !(s.End > now) {
		return errorf(Invalid, "work", "method ey needs the job's work (work, or an allocation end after now)")
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Job is a registered job and its statistics.
type Job struct {
	Spec       JobSpec `json:"spec"`
	Num        int     `json:"num"`        // internal number (arbiter tie-breaks)
	Registered float64 `json:"registered"` // registration time
	// LastCheckpoint is when the last checkpoint ended (registration
	// time before the first).
	LastCheckpoint float64 `json:"last_checkpoint"`
	CEst           float64 `json:"c_est"`   // EWMA of the measured checkpoint durations (prior Bytes/β or C)
	Samples        int     `json:"samples"` // measured durations folded into CEst
	Checkpoints    int     `json:"checkpoints"`
	Lease          *Lease  `json:"lease,omitempty"`  // the outstanding request, if any
	Recent         []Past  `json:"recent,omitempty"` // outcomes of the last finished requests (idempotency)
	// Ended: the job is done (at EndedAt, by a node failure if Failed);
	// its record stays for MaxTTL so that a replayed done gets the same
	// answer.
	Ended   bool    `json:"ended,omitempty"`
	EndedAt float64 `json:"ended_at,omitempty"`
	Failed  bool    `json:"failed,omitempty"`
}

// Lease is a job's outstanding request for the file system: waiting, or
// granted until Expires.
type Lease struct {
	RequestID string       `json:"request_id"`
	Kind      arbiter.Kind `json:"kind"`
	Bytes     float64      `json:"bytes"`
	Duration  float64      `json:"duration"` // expected transfer time with the token
	Since     float64      `json:"since"`    // request time
	Seq       uint64       `json:"seq"`
	TTL       float64      `json:"ttl"`
	Granted   bool         `json:"granted"`
	GrantedAt float64      `json:"granted_at,omitempty"`
	Token     uint64       `json:"token,omitempty"` // fencing token, set at grant
	// Share is the bandwidth granted (bytes/s): β under a token policy,
	// β·q/Σq over the holders at grant time under Oblivious.
	Share   float64 `json:"share,omitempty"`
	Expires float64 `json:"expires"` // grant expiry, or for a waiting request the poll deadline
	// Asked is the size the request asked for (0: the job's default): a
	// replay must ask the same.
	Asked float64 `json:"asked,omitempty"`
}

// Outcome of a finished request.
const (
	OutReleased = "released"
	OutExpired  = "expired"
	OutDropped  = "dropped" // waiting and not polled within its TTL, or cancelled
)

// Past remembers how a request ended, so that a retry gets the same
// answer, until Until.
type Past struct {
	RequestID string       `json:"request_id"`
	Token     uint64       `json:"token,omitempty"`
	Outcome   string       `json:"outcome"`
	Kind      arbiter.Kind `json:"kind,omitempty"`
	Asked     float64      `json:"asked,omitempty"`
	Until     float64      `json:"until,omitempty"`
}

// maxRecent bounds how many finished requests a job remembers: each for
// MaxTTL after it ended (as long as a lease can live), at most the last
// maxRecent.
const maxRecent = 32

func (j *Job) remember(p Past, now float64) {
	j.Recent = slices.DeleteFunc(j.Recent, func(q Past) bool { return q.Until < now })
	if len(j.Recent) >= maxRecent {
		j.Recent = slices.Delete(j.Recent, 0, len(j.Recent)-maxRecent+1)
	}
	j.Recent = append(j.Recent, p)
}

func (j *Job) past(requestID string, token uint64) (Past, bool) {
	for i := len(j.Recent) - 1; i >= 0; i-- {
		p := j.Recent[i]
		if (requestID != "" && p.RequestID == requestID) || (token != 0 && p.Token == token) {
			return p, true
		}
	}
	return Past{}, false
}

// Register adds a job at time now. Registering the same id with the same
// spec again returns the existing job (a retry); a different spec is a
// Conflict. A new job's spec must pass ValidateNew.
func (c *Coordinator) Register(now float64, s JobSpec) (Job, error) {
	c.begin(now)
	if err := s.Validate(); err != nil {
		return Job{}, err
	}
	if !(math.Abs(now) <= MaxTime) {
		return Job{}, errorf(Invalid, "now", "%v must be in [-%g, %g]", now, float64(MaxTime), float64(MaxTime))
	}
	c.forget(s.ID) // an ended job's id may be registered again
	if j, ok := c.jobs[s.ID]; ok {
		if j.Spec != s {
			return Job{}, errorf(Conflict, "id", "job %q is already registered with another spec", s.ID)
		}
		return j.copy(), nil // a retry: answered as the first time
	}
	if err := s.needsWork(now); err != nil {
		return Job{}, err
	}
	if len(c.jobs) >= c.cfg.MaxJobs {
		return Job{}, errorf(Full, "", "%d jobs registered, the limit", len(c.jobs))
	}
	c.meta.JobNum++
	j := &Job{Spec: s, Num: c.meta.JobNum, Registered: now, LastCheckpoint: now}
	j.CEst = s.C
	if j.CEst == 0 {
		j.CEst = s.Bytes / c.cfg.Bandwidth
	}
	c.jobs[s.ID] = j
	c.addLive(j, 1)
	c.touch(s.ID)
	return j.copy(), nil
}

func (c *Coordinator) addLive(j *Job, sign float64) {
	q := float64(j.Spec.Nodes)
	c.liveNodes += sign * q
	c.liveNodeReg += sign * q * j.Registered
}

// Done ends a job at time now: its exposure (nodes × time registered) and
// its failure (failed: the job ended by a node failure) join the
// platform's statistics, and its outstanding request is dropped. The
// ended job is remembered for MaxTTL: done again answers as the first did
// (with the other failed, a Conflict).
func (c *Coordinator) Done(now float64, id string, failed bool) error {
	c.begin(now)
	j, ok := c.jobs[id]
	if !ok {
		if e, ok := c.ended[id]; ok {
			if e.Failed != failed {
				return errorf(Conflict, "failed", "job %q ended already with failed=%v", clip(id), e.Failed)
			}
			return nil
		}
		return errorf(NotFound, "id", "no job %q", clip(id))
	}
	if j.Lease != nil {
		c.drop(j, OutDropped, now)
	}
	c.addLive(j, -1)
	if d := now - j.Registered; d > 0 {
		c.meta.Exposure += float64(j.Spec.Nodes) * d
	}
	if failed {
		c.meta.Failures++
	}
	delete(c.jobs, id)
	j.Ended, j.EndedAt, j.Failed, j.Recent = true, now, failed, nil
	c.ended[id] = j
	c.endedOrder = append(c.endedOrder, id)
	c.touch(id)
	c.promote(now)
	return nil
}

// forget drops the record of ended job id, if any.
func (c *Coordinator) forget(id string) {
	if _, ok := c.ended[id]; ok {
		delete(c.ended, id)
		c.touch(id)
	}
}

// prune forgets the ended jobs older than MaxTTL, and the oldest beyond
// MaxJobs.
func (c *Coordinator) prune(now float64) {
	n := 0
	for _, id := range c.endedOrder {
		e, ok := c.ended[id]
		if !ok { // registered again: gone already
			n++
			continue
		}
		if e.EndedAt+c.cfg.MaxTTL >= now && len(c.ended) <= c.cfg.MaxJobs {
			break
		}
		c.forget(id)
		n++
	}
	c.endedOrder = c.endedOrder[n:]
}

// Known returns a copy of job id, live or ended.
func (c *Coordinator) Known(id string) (Job, bool) {
	if j, ok := c.jobs[id]; ok {
		return j.copy(), true
	}
	if j, ok := c.ended[id]; ok {
		return j.copy(), true
	}
	return Job{}, false
}

// AuthHash returns job id's Spec.AuthHash, live or ended (Known's job,
// without copying it: the server checks a job token on every request).
func (c *Coordinator) AuthHash(id string) (string, bool) {
	j, ok := c.jobs[id]
	if !ok {
		j, ok = c.ended[id]
	}
	if !ok {
		return "", false
	}
	return j.Spec.AuthHash, true
}

// Job returns a copy of job id.
func (c *Coordinator) Job(id string) (Job, bool) {
	j, ok := c.jobs[id]
	if !ok {
		return Job{}, false
	}
	return j.copy(), true
}

func (j *Job) copy() Job {
	out := *j
	if j.Lease != nil {
		l := *j.Lease
		out.Lease = &l
	}
	out.Recent = append([]Past(nil), j.Recent...)
	return out
}

// NodeMTBF is the platform's node-MTBF estimate at time now (see the
// package comment), NaN while undefined.
func (c *Coordinator) NodeMTBF(now float64) float64 {
	e := c.meta.Exposure + now*c.liveNodes - c.liveNodeReg
	f := float64(c.meta.Failures)
	if c.cfg.NodeMTBF > 0 {
		return (e + c.cfg.NodeMTBF) / (f + 1)
	}
	if f == 0 {
		return math.NaN()
	}
	return e / f
}
