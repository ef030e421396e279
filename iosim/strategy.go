package iosim

import (
	"slices"

	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/registry"
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

// The I/O-token policy types are the arbiter package's (one
// implementation for the simulator and the checkpoint coordinator).
type (
	// Kind is what a transfer is for.
	Kind = arbiter.Kind
	// Request is a job waiting for the I/O token, as the Arbiter sees it.
	Request = arbiter.Request
	// Env is what an Arbiter may know about the platform.
	Env = arbiter.Env
	// Arbiter grants the I/O token (Sharing Token): given the waiting
	// requests (in arrival order, never empty) it returns the index of the
	// next holder.
	Arbiter = arbiter.Arbiter
	// FCFS grants the token in arrival order (Ordered, Ordered-NB).
	FCFS = arbiter.FCFS
	// LeastWaste is the arbiter of Section III-E (see arbiter.LeastWaste).
	LeastWaste = arbiter.LeastWaste
)

// The kinds of transfer.
const (
	Input      = arbiter.Input      // initial input (blocking)
	Recovery   = arbiter.Recovery   // restart read of the last checkpoint (blocking)
	RegularIO  = arbiter.RegularIO  // regular I/O during the run (blocking)
	Checkpoint = arbiter.Checkpoint // checkpoint commit
	Output     = arbiter.Output     // final output (blocking)
)

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
	// Policy names the I/O policy in arbiter.Policies (the coordinator's
	// --policy that arbitrates as this strategy does; "" for the
	// interference-free references and the baseline).
	Policy string
}

// Maker builds a strategy; fixed is the period of the *-fixed variants in
// seconds (the others ignore it).
type Maker func(fixed float64) Strategy

// strategies is the registry of named strategies (the registry package's
// pattern: a literal list, duplicates panic at start-up). Each family's
// constructors live in its own file.
var strategies = registry.New("strategy",
	registry.Entry[Maker]{Name: "oblivious-fixed", Help: "proportional sharing, fixed period (III-A)", Value: obliviousFixed},
	registry.Entry[Maker]{Name: "oblivious-daly", Help: "proportional sharing, Daly period (III-A)", Value: obliviousDaly},
	registry.Entry[Maker]{Name: "ordered-fixed", Help: "FCFS token, blocking, fixed period (III-B)", Value: orderedFixed},
	registry.Entry[Maker]{Name: "ordered-daly", Help: "FCFS token, blocking, Daly period (III-B)", Value: orderedDaly},
	registry.Entry[Maker]{Name: "ordered-nb-fixed", Help: "FCFS token, non-blocking checkpoints, fixed period (III-C)", Value: orderedNBFixed},
	registry.Entry[Maker]{Name: "ordered-nb-daly", Help: "FCFS token, non-blocking checkpoints, Daly period (III-C)", Value: orderedNBDaly},
	registry.Entry[Maker]{Name: "least-waste", Help: "token to the least expected waste, Daly period (III-E)", Value: leastWaste},
	registry.Entry[Maker]{Name: "interference-free", Help: "every transfer at full bandwidth, Daly period (reference)", Value: interferenceFree},
	registry.Entry[Maker]{Name: "least-waste-printed", Help: "least-waste with Eqs. (1)-(2) as printed", Value: leastWastePrinted},
	registry.Entry[Maker]{Name: "least-waste-fixed", Help: "least-waste with a fixed period (the paper's 1-hour runs)", Value: leastWasteFixed},
	registry.Entry[Maker]{Name: "interference-free-fixed", Help: "every transfer at full bandwidth, fixed period (the paper's 1-hour reference)", Value: interferenceFreeFixed},
)

// Lookup returns the strategy registered as name with Fixed period fixed.
func Lookup(name string, fixed float64) (Strategy, error) {
	mk, err := strategies.Lookup(name)
	if err != nil {
		return Strategy{}, err
	}
	return mk(fixed), nil
}

// LookupList resolves a comma-separated list of strategy names (as
// --strategies takes it) with Fixed period fixed; an unknown, empty or
// repeated name is an error.
func LookupList(list string, fixed float64) ([]Strategy, error) {
	mks, _, err := strategies.LookupList(list)
	if err != nil {
		return nil, err
	}
	out := make([]Strategy, len(mks))
	for i, mk := range mks {
		out[i] = mk(fixed)
	}
	return out, nil
}

// Names lists the registered strategies: the paper's seven in order, then
// interference-free, least-waste-printed, and the Fixed-period Least-Waste
// and interference-free of the paper's 1-hour runs.
func Names() []string { return strategies.Names() }

// DefaultStrategies is the --strategies default: the paper's seven and the
// interference-free reference.
func DefaultStrategies() []string { return append(slices.Clone(PaperStrategies), "interference-free") }

// PaperStrategies are the seven strategies of Figs. 2–4, in order.
var PaperStrategies = []string{
	"oblivious-fixed", "oblivious-daly", "ordered-fixed", "ordered-daly",
	"ordered-nb-fixed", "ordered-nb-daly", "least-waste",
}

// withPolicy is the strategy name: the I/O policy registered as policy in
// arbiter.Policies (the coordinator's, one definition for both) with the
// period rule p.
func withPolicy(name, policy string, p PeriodRule) Strategy {
	pol, err := arbiter.Policies.Lookup(policy)
	if err != nil {
		panic("iosim: " + err.Error()) // a literal name below: a programming error
	}
	sh := Proportional
	if pol.Token {
		sh = Token
	}
	return Strategy{Name: name, Sharing: sh, Arbiter: pol.Arbiter, NonBlocking: pol.NonBlocking, Period: p, Policy: policy}
}
