package arbiter

import "github.com/ckpt-hpc/ckpt/registry"

// Policy is how a coordinator shares the file system (Section III).
type Policy struct {
	Name string
	// Token: one holder at a time, chosen by Arbiter among the waiting
	// requests. Without it (Oblivious) every request is granted at once
	// and the bandwidth is shared in proportion to the holders' nodes.
	Token   bool
	Arbiter Arbiter
	// NonBlocking: a job waiting for a checkpoint grant keeps computing
	// (Ordered-NB, Least-Waste); other transfers stay blocking.
	NonBlocking bool
}

// Policies are the named policies: oblivious, ordered, ordered-nb,
// least-waste and least-waste-printed.
var Policies = registry.New("policy",
	registry.Entry[Policy]{Name: "oblivious", Help: "grant every request at once; bandwidth shared by node count (III-A)",
		Value: Policy{Name: "oblivious"}},
	registry.Entry[Policy]{Name: "ordered", Help: "one transfer at a time, FCFS, waiting jobs blocked (III-B)",
		Value: Policy{Name: "ordered", Token: true, Arbiter: FCFS{}}},
	registry.Entry[Policy]{Name: "ordered-nb", Help: "FCFS token; jobs keep computing while waiting for a checkpoint grant (III-C)",
		Value: Policy{Name: "ordered-nb", Token: true, Arbiter: FCFS{}, NonBlocking: true}},
	registry.Entry[Policy]{Name: "least-waste", Help: "token to the request of least expected waste, non-blocking (III-E)",
		Value: Policy{Name: "least-waste", Token: true, Arbiter: LeastWaste{}, NonBlocking: true}},
	registry.Entry[Policy]{Name: "least-waste-printed", Help: "least-waste with Eqs. (1)-(2) exactly as printed",
		Value: Policy{Name: "least-waste-printed", Token: true, Arbiter: LeastWaste{Printed: true}, NonBlocking: true}},
)
