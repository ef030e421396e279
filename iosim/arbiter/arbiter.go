package arbiter

import "fmt"

// Kind is what a transfer is for.
type Kind int

// The kinds of transfer, in iosim's order (same values).
const (
	Input      Kind = iota // initial input (blocking)
	Recovery               // restart read of the last checkpoint (blocking)
	RegularIO              // regular I/O during the run (blocking)
	Checkpoint             // checkpoint commit (non-blocking under Ordered-NB and Least-Waste)
	Output                 // final output (blocking)
)

var kindNames = [...]string{"input", "recovery", "regular-io", "checkpoint", "output"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseKind returns the Kind named s ("checkpoint", "recovery", …).
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown kind %q (known: input, recovery, regular-io, checkpoint, output)", s)
}

// Request is a job waiting for the I/O token, as an Arbiter sees it.
type Request struct {
	Job   int     // job identifier (stable, for tie-breaking)
	Kind  Kind    // what the transfer is for
	Nodes int     // q_j
	Bytes float64 // volume to transfer
	// Duration is v_j (or C_j): the time the transfer takes with the
	// token, in seconds.
	Duration float64
	// Since is when the request was made; LastCheckpoint is when the
	// job's last checkpoint ended (or its computation began).
	Since, LastCheckpoint float64
	// Recovery is R_j, the job's recovery read duration in seconds.
	Recovery float64
	// Seq is the arrival order (FCFS key).
	Seq uint64
	// Order is the authors' request-set order (the job's index in the
	// list, then its run): LeastWaste.IntegerRisk's tie-break; 0 when
	// unused.
	Order uint64
}

// Env is what an Arbiter may know about the platform.
type Env struct {
	NodeMTBF  float64 // μ_ind in seconds
	Bandwidth float64 // β in bytes/s
}

// Arbiter grants the I/O token: given the waiting requests (never empty)
// it returns the index of the next holder.
type Arbiter interface {
	Pick(now float64, waiting []Request, env Env) int
}

// FCFS grants the token in arrival order (Ordered, Ordered-NB; Sections
// III-B and III-C).
type FCFS struct{}

// Pick returns the index of the request with the smallest Seq.
func (FCFS) Pick(_ float64, w []Request, _ Env) int {
	best := 0
	for i := range w {
		if w[i].Seq < w[best].Seq {
			best = i
		}
	}
	return best
}

// MarshalText writes the kind's name (JSON carries "checkpoint", not 3).
func (k Kind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(kindNames) {
		return nil, fmt.Errorf("invalid kind %d", int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}
