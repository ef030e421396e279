package reservation

import (
	"fmt"
	"math"
)

// Costs is the platform's cost model of Section 2.2 together with the
// checkpoint and restart durations.
//
// A reservation of length W for a job that then runs for w seconds inside it
// costs Alpha·W + Beta·min(W, w) + Gamma.
type Costs struct {
	// Alpha is the price per unit of reserved time (pay what you ask).
	// Valid range is (0, +∞); the paper's RESERVATIONONLY model has Alpha = 1.
	Alpha float64 `json:"alpha"`
	// Beta is the price per unit of time actually used. Valid range [0, +∞).
	Beta float64 `json:"beta"`
	// Gamma is a fixed price per reservation (e.g. the queue wait).
	// Valid range [0, +∞).
	Gamma float64 `json:"gamma"`
	// C is the time to write a checkpoint at the end of a reservation.
	// Valid range [0, +∞).
	C float64 `json:"checkpoint_s"`
	// R is the time to restart from a checkpoint at the start of a
	// reservation. Valid range [0, +∞).
	R float64 `json:"restart_s"`
	// Margin is reserved after each checkpoint besides C: the runner
	// signals the app at end − C − its margin (ckpt run --margin), and
	// the signal comes a little late, so a plan for Slurm reserves
	// C + Margin for a checkpoint. Valid range [0, +∞); 0 is the paper's
	// model.
	Margin float64 `json:"margin_s,omitempty"`
	// Granularity g, when > 0, makes every request a whole multiple of g
	// seconds (Slurm's --time counts minutes: 60): a reservation that
	// needs W is requested and paid as g⌈W/g⌉, the Slack used but not
	// planned. Valid range [0, +∞); 0 is the paper's continuous model.
	Granularity float64 `json:"granularity_s,omitempty"`
}

// RoundUp rounds a reservation that needs w seconds up to the request
// the granularity allows: g⌈w/g⌉ (w when Granularity is 0). A w within
// 10⁻⁹ g above a multiple of g is that multiple, as Slurm's --time is
// checked (slurm.CheckLimits), so that rounding noise does not cost a
// whole step.
func (c Costs) RoundUp(w float64) float64 {
	if c.Granularity <= 0 {
		return w
	}
	return c.Granularity * math.Max(0, math.Ceil(w/c.Granularity-1e-9))
}

// Limited says whether the cost model departs from the paper's
// continuous one (a margin or a granularity).
func (c Costs) Limited() bool { return c.Margin > 0 || c.Granularity > 0 }

// ReservationOnly returns the paper's RESERVATIONONLY model (α = 1, β = γ = 0)
// with checkpoint cost c and restart cost r.
func ReservationOnly(c, r float64) Costs { return Costs{Alpha: 1, C: c, R: r} }

// Validate reports the first parameter outside its valid range.
func (c Costs) Validate() error {
	check := func(name string, v float64, strict bool) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s must be finite, got %v", name, v)
		}
		if strict && v <= 0 {
			return fmt.Errorf("%s must be > 0, got %v", name, v)
		}
		if v < 0 {
			return fmt.Errorf("%s must be >= 0, got %v", name, v)
		}
		return nil
	}
	for _, p := range []struct {
		name   string
		v      float64
		strict bool
	}{{"alpha", c.Alpha, true}, {"beta", c.Beta, false}, {"gamma", c.Gamma, false},
		{"checkpoint cost", c.C, false}, {"restart cost", c.R, false}, {"margin", c.Margin, false}, {"granularity", c.Granularity, false}} {
		if err := check(p.name, p.v, p.strict); err != nil {
			return err
		}
	}
	return nil
}

// MaxCostRatio bounds β/α and γ/α (γ/α in seconds) after normalisation:
// beyond it products such as (β/α)·W·P overflow float64 on long walltimes.
const MaxCostRatio = 1e200

// Normalize returns the cost model divided by α, so that α = 1, and α, the
// factor by which every expected cost of the normalised model must be
// multiplied: expected costs are linear in (α, β, γ), so the plans are the
// same and the dynamic programs work in seconds of reservation, a
// well-conditioned unit whatever the currency. With α = 1 the costs are
// returned unchanged. A β or γ more than MaxCostRatio times α is refused.
func (c Costs) Normalize() (Costs, float64, error) {
	if c.Alpha == 1 {
		return c, 1, nil
	}
	n := c
	n.Alpha, n.Beta, n.Gamma = 1, c.Beta/c.Alpha, c.Gamma/c.Alpha
	if !(n.Beta <= MaxCostRatio && n.Gamma <= MaxCostRatio) {
		return Costs{}, 0, fmt.Errorf("the cost model (alpha %g, beta %g, gamma %g) cannot be normalised: beta/alpha and gamma/alpha must be at most %.0e", c.Alpha, c.Beta, c.Gamma, MaxCostRatio)
	}
	return n, c.Alpha, nil
}

// Step is one entry of a strategy in the milestone view of Section 2.2:
// Milestone t_k is the amount of work done when the k-th reservation ends
// (if the job has not finished), and Checkpoint δ_k says whether that
// reservation ends with a checkpoint.
type Step struct {
	Milestone  float64 `json:"milestone_s"`
	Checkpoint bool    `json:"checkpoint"`
}

// Strategy is a reservation sequence S = ((t_1, δ_1), (t_2, δ_2), …) with
// strictly increasing milestones. A checkpoint on the last reservation is
// never useful (the job is certain to finish in it) but is allowed.
type Strategy []Step

// Validate checks that the milestones are finite, non-negative and strictly
// increasing and that the strategy is not empty.
func (s Strategy) Validate() error {
	if len(s) == 0 {
		return fmt.Errorf("empty strategy")
	}
	prev := math.Inf(-1)
	for i, st := range s {
		if math.IsNaN(st.Milestone) || math.IsInf(st.Milestone, 0) || st.Milestone < 0 {
			return fmt.Errorf("milestone %d is %v, want a finite value >= 0", i+1, st.Milestone)
		}
		if st.Milestone <= prev {
			return fmt.Errorf("milestone %d (%v) does not exceed milestone %d (%v)", i+1, st.Milestone, i, prev)
		}
		prev = st.Milestone
	}
	return nil
}

// Last returns the final milestone, the largest walltime the strategy covers.
func (s Strategy) Last() float64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].Milestone
}

// Reservation is one reservation of a strategy, decomposed as in Eq. (2):
// Length W_k = Restart R_k + Work T_k + Checkpoint C_k.
type Reservation struct {
	// Length W_k is what to request from the scheduler.
	Length float64 `json:"length_s"`
	// Restart R_k is the time spent reading the last checkpoint (0 until a
	// checkpoint exists).
	Restart float64 `json:"restart_s"`
	// Work T_k is the time spent computing.
	Work float64 `json:"work_s"`
	// CheckpointTime C_k is δ_k·C.
	CheckpointTime float64 `json:"checkpoint_time_s"`
	// Margin is δ_k·Costs.Margin, reserved after the checkpoint.
	Margin float64 `json:"margin_s,omitempty"`
	// Slack is what rounding the request up to Costs.Granularity adds.
	Slack float64 `json:"slack_s,omitempty"`
	// Milestone t_k is the work done at the end of the reservation.
	Milestone float64 `json:"milestone_s"`
	// Checkpoint δ_k.
	Checkpoint bool `json:"checkpoint"`
	// Saved is the progress a later reservation restarts from if the job is
	// not done: t_k if this reservation checkpoints, else the last
	// checkpointed milestone (0 if none).
	Saved float64 `json:"saved_s"`
}

// Reservations turns the milestone view into reservation lengths with
// Eq. (4): W_k = R_k + T_k + C_k, R_k = R once any earlier reservation has
// checkpointed, T_k = t_k − (last checkpointed milestone), C_k = δ_k·C;
// with a margin or a granularity (Costs.Limited) W_k also holds δ_k·Margin
// and is rounded up by Costs.RoundUp. It does not validate s.
func Reservations(s Strategy, c Costs) []Reservation {
	out := make([]Reservation, len(s))
	saved, restart := 0.0, 0.0
	for k, st := range s {
		out[k], saved, restart = reservationOf(st, c, saved, restart)
	}
	return out
}

// reservationOf is the reservation of step st by Eq. (4) when the progress
// saved and the restart time before it are saved and restart; it also
// returns them after it.
func reservationOf(st Step, c Costs, saved, restart float64) (Reservation, float64, float64) {
	r := Reservation{Restart: restart, Work: st.Milestone - saved, Milestone: st.Milestone, Checkpoint: st.Checkpoint}
	if st.Checkpoint {
		r.CheckpointTime = c.C
		saved, restart = st.Milestone, c.R
	}
	r.Length = r.Restart + r.Work + r.CheckpointTime
	if c.Limited() {
		if st.Checkpoint {
			r.Margin = c.Margin
			r.Length += r.Margin
		}
		w := c.RoundUp(r.Length)
		r.Slack, r.Length = math.Max(0, w-r.Length), w
	}
	r.Saved = saved
	return r, saved, restart
}
