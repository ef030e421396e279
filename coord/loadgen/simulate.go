package loadgen

import (
	"context"
	"fmt"

	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/iosim"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// Simulation is the report of `ckpt coord simulate`: the closed loop's
// comparison, whose JSON it is.
type Simulation struct{ iosim.ClosedLoopReport }

// Simulate runs the closed loop of `ckpt coord simulate`: token strategy
// st on c, in process and through the coordinator cl, whose simulated
// jobs' ids start with prefix. A nil cl is a coordinator started for the
// run by StartSimulation, with the strategy's policy and the platform's
// bandwidth and node MTBF.
func Simulate(ctx context.Context, c *iosim.Config, st iosim.Strategy, opt iosim.Options, cl *client.Client, prefix string) (Simulation, error) {
	if cl == nil {
		pol, err := arbiter.Policies.Lookup(st.Policy)
		if err != nil {
			return Simulation{}, err
		}
		url, stop, err := StartSimulation(ctx, pol, float64(c.Platform.Bandwidth), float64(c.Platform.NodeMTBF))
		if err != nil {
			return Simulation{}, err
		}
		defer stop()
		cl = &client.Client{Base: url, Token: LocalToken}
	}
	rep, err := iosim.ClosedLoop(ctx, c, st, opt, &client.SimArbiter{Client: cl, Ctx: ctx, Prefix: prefix})
	return Simulation{rep}, err
}

// Identical reports whether the coordinator decided as the simulator did,
// decision for decision, with the same result.
func (s Simulation) Identical() bool { return s.Diverged < 0 && s.Same }

// Text is the one-line summary: both wastes, both decision counts and
// the verdict.
func (s Simulation) Text() string {
	verdict := "identical"
	if !s.Identical() {
		verdict = fmt.Sprintf("DIFFER from decision %d", s.Diverged)
	}
	return fmt.Sprintf("%s, seed %d: waste %.6f in process, %.6f through the coordinator; decisions %d and %d: %s",
		s.Strategy, s.Seed, s.LocalWaste, s.RemoteWaste, s.LocalDecisions, s.RemoteDecisions, verdict)
}

// Err is the error of a simulation whose decisions differ; nil if they
// are identical.
func (s Simulation) Err() error {
	if s.Identical() {
		return nil
	}
	return fmt.Errorf("closed loop: the coordinator's decisions differ from the simulator's (decision %d)", s.Diverged)
}
