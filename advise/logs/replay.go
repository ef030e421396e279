package logs

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/usage"
)

// ReplayRequest replays a log.
type ReplayRequest struct {
	Log    string        `json:"log"`
	Params advise.Params `json:"params"`
	// Priors, when given, replay ckpt again with each of these priors (its
	// operating points, from bold to cautious) for the picture; each
	// once.
	Priors []float64 `json:"priors,omitempty"`
}

// Validate names the first bad field.
func (r ReplayRequest) Validate() error {
	if r.Log == "" {
		return usage.Fieldf("log", "a job log is needed")
	}
	for i, p := range r.Priors {
		if !(p >= 0) || math.IsInf(p, 0) {
			return usage.Fieldf("priors", "each must be finite and >= 0, got %v", p)
		}
		if slices.Contains(r.Priors[:i], p) {
			return usage.Fieldf("priors", "%v listed twice (each is one operating point)", p)
		}
	}
	return r.Params.Validate()
}

// ReplayReport is advise.Replay's report (its JSON and its table) with
// its picture and HTML page (picture.go).
type ReplayReport struct {
	advise.ReplayReport
}

// ReplayRun reads the log and replays it.
func ReplayRun(ctx context.Context, r ReplayRequest) (ReplayReport, error) {
	if err := r.Validate(); err != nil {
		return ReplayReport{}, err
	}
	l, err := ReadLogFile(ctx, r.Log)
	if err != nil {
		return ReplayReport{}, err
	}
	rep, err := advise.Replay(ctx, l, r.Params)
	for _, prior := range r.Priors {
		if err != nil {
			break
		}
		p := r.Params
		p.Prior = prior
		var pt advise.ReplayReport
		if pt, err = advise.Replay(ctx, l, p); err == nil {
			for _, pr := range pt.Policies[len(pt.Policies)-2:] {
				pr.Policy = fmt.Sprintf("%s prior %g", pr.Policy, prior)
				rep.Points = append(rep.Points, pr)
			}
		}
	}
	return ReplayReport{rep}, err
}
