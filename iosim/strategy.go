package iosim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Sharing is how concurrent transfers use the file system.
type Sharing int

const (
	// Proportional: every request transfers at once; the bandwidth is
	// shared in proportion to the node counts of the transferring jobs
	// (the linear interference model of Section II).
	Proportional Sharing = iota
	// Token: one transfer at a time at full bandwidth; an Arbiter picks
	// the next holder of the I/O token among the waiting requests.
	Token
	// Unlimited: every transfer gets the full bandwidth, as if alone (the
	// interference-free reference and the baseline).
	Unlimited
)

// Kind is what a transfer is for.
type Kind int

const (
	Input      Kind = iota // initial input (blocking)
	Recovery               // restart read of the last checkpoint (blocking)
	RegularIO              // regular I/O during the run (blocking)
	Checkpoint             // checkpoint commit
	Output                 // final output (blocking)
)

var kindNames = [...]string{"input", "recovery", "regular-io", "checkpoint", "output"}

func (k Kind) String() string { return kindNames[k] }

// Request is a job waiting for the I/O token, as the Arbiter sees it.
type Request struct {
	Job   int     // job identifier (stable, for tie-breaking)
	Kind  Kind    // what the transfer is for
	Nodes int     // q_j
	Bytes float64 // volume to transfer
	// Duration is v_j (or C_j): Bytes/β, the time the transfer takes
	// with the token.
	Duration float64
	// Since is when the request was made; LastCheckpoint is when the
	// job's last checkpoint ended (or its computation began).
	Since, LastCheckpoint float64
	// Recovery is R_j = C_j, the job's recovery read duration.
	Recovery float64
	// Seq is the arrival order (FCFS key).
	Seq uint64
}

// Env is what an Arbiter may know about the platform.
type Env struct {
	NodeMTBF  float64 // μ_ind in seconds
	Bandwidth float64 // β in bytes/s
}

// Arbiter grants the I/O token (Sharing Token): given the waiting requests
// (in arrival order, never empty) it returns the index of the next holder.
type Arbiter interface {
	Pick(now float64, waiting []Request, env Env) int
}

// PeriodRule gives the checkpoint period P of a job.
type PeriodRule interface {
	// Period of a job with q nodes and checkpoint time C on a platform
	// with node MTBF mu. +Inf means never checkpoint.
	Period(q int, C, mu float64) float64
	String() string
}

// Strategy is a complete I/O and checkpointing policy: how transfers share
// the file system, who gets the token, whether waiting for the checkpoint
// token blocks, and the checkpoint period.
type Strategy struct {
	Name    string
	Sharing Sharing
	// Arbiter is used when Sharing is Token.
	Arbiter Arbiter
	// NonBlocking: a job waiting for its checkpoint token keeps computing
	// (Ordered-NB, Least-Waste); input, output and regular I/O stay
	// blocking.
	NonBlocking bool
	Period      PeriodRule
}

var registry = map[string]func(fixed float64) Strategy{}

// Register adds a strategy constructor under its name; fixed is the Fixed
// period in seconds. Registering a name twice panics (a programming error).
func Register(name string, mk func(fixed float64) Strategy) {
	if _, dup := registry[name]; dup {
		panic("iosim: strategy " + name + " registered twice")
	}
	registry[name] = mk
}

// Lookup returns the strategy registered as name with Fixed period fixed.
func Lookup(name string, fixed float64) (Strategy, error) {
	mk, ok := registry[name]
	if !ok {
		return Strategy{}, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return mk(fixed), nil
}

// Names lists the registered strategies in the paper's order, then any
// others alphabetically.
func Names() []string {
	var out []string
	for _, n := range PaperStrategies {
		if _, ok := registry[n]; ok {
			out = append(out, n)
		}
	}
	var rest []string
	for n := range registry {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// PaperStrategies are the seven strategies of Figs. 2–4, in order.
var PaperStrategies = []string{
	"oblivious-fixed", "oblivious-daly", "ordered-fixed", "ordered-daly",
	"ordered-nb-fixed", "ordered-nb-daly", "least-waste",
}

// FCFS grants the token in arrival order (Ordered, Ordered-NB).
type FCFS struct{}

// Pick returns the earliest request.
func (FCFS) Pick(_ float64, w []Request, _ Env) int {
	best := 0
	for i := range w {
		if w[i].Seq < w[best].Seq {
			best = i
		}
	}
	return best
}
