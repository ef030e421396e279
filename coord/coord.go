package coord

import (
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Config is a coordinator's platform and policy.
type Config struct {
	Policy arbiter.Policy
	// Bandwidth is β, the file system's aggregate bandwidth in bytes/s
	// (> 0): a checkpoint of B bytes takes B/β with the token.
	Bandwidth float64
	// TTL is the default lease TTL in seconds (> 0; 30 if zero).
	TTL float64
	// NodeMTBF is the prior μ₀ of the node MTBF in seconds (0: none).
	NodeMTBF float64
	// FixedMTBF: use NodeMTBF as μ_ind as is, without estimating from
	// the reports (a simulation driving the coordinator with a known μ).
	FixedMTBF bool
	// Alpha is the EWMA weight of a new checkpoint-duration sample in
	// (0, 1] (0.25 if zero).
	Alpha float64
	// MaxJobs bounds the registered jobs (100000 if zero).
	MaxJobs int
	// MaxTTL bounds the TTL a request may ask for (MaxTTL = one day if
	// zero; a simulation on the client's clock may need more).
	MaxTTL float64
}

// Bounds of the inputs, so that no product or sum of them overflows: a
// size times a count, a duration times a bandwidth or a node count stay
// finite (a non-finite number in the state could not be stored).
const (
	MaxDuration  = 1e10 // seconds (317 years), as package reservation caps durations
	MaxBytes     = 1e24 // a checkpoint size (1 YB)
	MaxBandwidth = 1e18 // bytes/s (1 EB/s)
	MaxTime      = 1e15 // a time on any clock, and a TTL (a simulation's may span its whole run)
)

// Validate checks the configuration with its defaults; the error is a
// usage error naming the field (as ckpt serve's flag).
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	if c.TTL == 0 {
		c.TTL = 30
	}
	if c.Alpha == 0 {
		c.Alpha = 0.25
	}
	if c.MaxJobs == 0 {
		c.MaxJobs = 100000
	}
	if c.MaxTTL == 0 {
		c.MaxTTL = MaxTTL
	}
	switch {
	case c.Policy.Name == "":
		return c, usage.Fieldf("policy", "none given")
	case c.Policy.Token && c.Policy.Arbiter == nil:
		return c, usage.Fieldf("policy", "%s has no arbiter", c.Policy.Name)
	case !(c.Bandwidth > 0) || c.Bandwidth > MaxBandwidth:
		return c, usage.Fieldf("bandwidth", "%v B/s must be in (0, %g]", c.Bandwidth, MaxBandwidth)
	case !(c.MaxTTL > 0) || c.MaxTTL > MaxTime:
		return c, usage.Fieldf("max-ttl", "%v s must be in (0, %g]", c.MaxTTL, float64(MaxTime))
	case !(c.TTL > 0) || c.TTL > c.MaxTTL:
		return c, usage.Fieldf("ttl", "%v s must be in (0, %g] (the max TTL)", c.TTL, c.MaxTTL)
	case !(c.NodeMTBF >= 0) || c.NodeMTBF > MaxDuration:
		return c, usage.Fieldf("node-mtbf", "%v s must be in [0, %g]", c.NodeMTBF, MaxDuration)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return c, usage.Fieldf("alpha", "%v must be in (0, 1]", c.Alpha)
	case c.FixedMTBF && c.NodeMTBF == 0:
		return c, usage.Fieldf("fixed-mtbf", "a fixed node MTBF needs its value (node-mtbf)")
	case c.MaxJobs < 0:
		return c, usage.Fieldf("max-jobs", "%d must be ≥ 0", c.MaxJobs)
	}
	return c, nil
}

// ErrorKind classifies a refused request; the server maps each kind to
// one HTTP status (coord/server).
type ErrorKind int

// The kinds of refusal.
const (
	Invalid  ErrorKind = iota + 1 // a field is out of range (400)
	NotFound                      // no such job (404)
	Conflict                      // the state forbids it: an outstanding request, a different spec (409)
	Fenced                        // the lease token is not held: expired, released or never granted (409)
	Full                          // too many jobs (503)
)

var kindNames = [...]string{Invalid: "invalid", NotFound: "not_found", Conflict: "conflict", Fenced: "fenced", Full: "full"}

// String is the kind's name in the API's error answers.
func (k ErrorKind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Error is a refused request: its kind, the request field at fault (if
// any) and a one-line message naming the bad value.
type Error struct {
	Kind  ErrorKind
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Msg
	}
	return e.Msg
}

func errorf(k ErrorKind, field, format string, a ...any) error {
	return &Error{Kind: k, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// Meta is the coordinator-wide persistent state: counters and platform
// statistics. Its json names are the database's (schema ckpt-coord/1,
// coord/store), not the API's: the server shows it as api.Counters.
type Meta struct {
	Token    uint64  `json:"Token"`    // last fencing token issued
	Seq      uint64  `json:"Seq"`      // last arrival number
	JobNum   int     `json:"JobNum"`   // last internal job number
	Exposure float64 `json:"Exposure"` // node-seconds of finished jobs
	Failures int     `json:"Failures"` // node failures reported
	// Counters since the database was created.
	Grants       uint64  `json:"Grants"`
	Expiries     uint64  `json:"Expiries"`
	Releases     uint64  `json:"Releases"`
	Refused      uint64  `json:"Refused"`
	BytesGranted float64 `json:"BytesGranted"`
	// Now is the latest time a call carried (seconds on the caller's
	// clock): with the client's clock, the time of the platform's state.
	Now float64 `json:"Now,omitempty"`
}

// Coordinator is the decision core. It is not safe for concurrent use:
// the server serialises calls.
type Coordinator struct {
	cfg   Config
	meta  Meta
	jobs  map[string]*Job
	ended map[string]*Job // ended jobs, remembered for MaxTTL (Done's idempotency)
	// endedOrder lists the ended jobs' ids in the order they ended.
	endedOrder []string
	waiting    []*Job // outstanding requests not yet granted, arrival order
	holders    []*Job // outstanding granted leases
	// live exposure bookkeeping: Σ q and Σ q·registered over live jobs
	liveNodes, liveNodeReg float64
	dirty                  map[string]struct{}
	reqBuf                 []arbiter.Request
	granted                []Notice // grants made during the current call
	nextDue                float64  // no deadline before this (see due)
}

// New returns an empty coordinator.
func New(cfg Config) (*Coordinator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Coordinator{cfg: cfg, jobs: map[string]*Job{}, ended: map[string]*Job{}, dirty: map[string]struct{}{}, nextDue: math.Inf(1)}, nil
}

func (c *Coordinator) touch(id string) { c.dirty[id] = struct{}{} }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
