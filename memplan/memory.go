package memplan

import (
	"context"
	"fmt"
	"math"

	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/units"
)

// The planners of this file take generic inputs (a discrete law plus
// per-point checkpoint costs and memory needs), so that they do not depend
// on how an application model computes them (package profile does, with
// M_0.1(t) of its Eq. (2) and C(V) = l + V/b; PlanApp wires the two).

// MemLaw is the input of the memory-aware planners: a discrete walltime law
// Y ~ (v_i, f_i), 1 ≤ i ≤ n, and for every support point the cost of a
// checkpoint taken there and the memory the job may need there.
type MemLaw struct {
	// Values v_i (strictly increasing, >= 0) and Probs f_i (>= 0, sum 1,
	// f_n > 0), as for DynProgCount.
	Values, Probs []float64
	// Ckpt[i] is C_i, the time to checkpoint after Values[i] seconds of
	// work (seconds, >= 0).
	Ckpt []float64
	// Mem[i] is the memory (GB, >= 0) the job may need at Values[i]
	// seconds of work, and Mem0 at the start (work 0). A reservation
	// covering the work interval [a, b] requests the largest of them over
	// the points in [a, b].
	Mem  []float64
	Mem0 float64
	// Restart R is the time to restart from a checkpoint (>= 0).
	Restart float64
	// MaxLength, when > 0, is the longest reservation allowed (seconds):
	// MemAllCkpt plans the optimum under it.
	MaxLength float64
}

func (m MemLaw) validate() (*support, error) {
	sup, err := newSupport(m.Values, m.Probs)
	if err != nil {
		return nil, err
	}
	n := len(m.Values)
	if len(m.Ckpt) != n || len(m.Mem) != n {
		return nil, fmt.Errorf("memory law needs %d checkpoint costs and memories, got %d and %d", n, len(m.Ckpt), len(m.Mem))
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 }
	for i := range n {
		if bad(m.Ckpt[i]) {
			return nil, fmt.Errorf("checkpoint cost %d is %v, want finite and >= 0", i+1, m.Ckpt[i])
		}
		if bad(m.Mem[i]) {
			return nil, fmt.Errorf("memory %d is %v, want finite and >= 0", i+1, m.Mem[i])
		}
	}
	if bad(m.Mem0) {
		return nil, fmt.Errorf("initial memory is %v, want finite and >= 0", m.Mem0)
	}
	if bad(m.Restart) {
		return nil, fmt.Errorf("restart cost is %v, want finite and >= 0", m.Restart)
	}
	return sup, nil
}

// MemReservation is one reservation of a memory-aware strategy: Length
// W_k = R_k + T_k + C_k as in Reservations, the memory Mem to request for
// it, and the probability that it is needed at all.
type MemReservation struct {
	reservation.Reservation
	// Mem is the memory to request (GB).
	Mem float64 `json:"mem"`
	// StopBeforeTask, when > 0, makes the reservation end with its
	// checkpoint as soon as the job reaches the start of that task
	// (1-based), the rest of the reservation being wasted: the first
	// reservation of MEM-ALL-CKPT-V2, which must not run the memory-hungry
	// task it did not ask memory for.
	StopBeforeTask int     `json:"stop_before_task,omitempty"`
	ProbNeeded     float64 `json:"prob_needed"`
}

// MemPlan is a memory-aware strategy with its expected metrics under the
// law it was planned for.
type MemPlan struct {
	Name         string           `json:"algorithm"`
	Reservations []MemReservation `json:"reservations"`
	// ExpectedTime is E[Σ W_k over the reservations used], the objective of
	// the DP of Section 4.2.
	ExpectedTime float64 `json:"expected_reservation_time"`
	// ExpectedWeightedMemory is E[Σ W_k M_k / Σ W_k] over the same
	// reservations (the metric of Section 4.3.2, in expectation).
	ExpectedWeightedMemory float64 `json:"expected_weighted_memory"`
	// ExtendWork, ExtendCkpt, ExtendMem and Restart describe the
	// reservations a run longer than the plan gets (EvaluateRun): work
	// ExtendWork, then a checkpoint of ExtendCkpt, at memory ExtendMem,
	// repeated as needed.
	ExtendWork float64 `json:"-"`
	ExtendCkpt float64 `json:"-"`
	ExtendMem  float64 `json:"-"`
	Restart    float64 `json:"-"`
}

// MemAllCkpt is MEM-ALL-CKPT (Section 4.2): the all-checkpoint strategy of
// minimal expected total reservation time when a checkpoint at v_i costs
// C_i. With S(n) = 0 and surv_i = P(Y > v_i),
//
//	S(i) = min_{i<j≤n} S(j) + (R·[i>0] + (v_j − v_i) + C_j·[j<n])·surv_i,
//
// and the plan is the argmin path from S(0). This is the paper's recursion
// with two corrections: a reservation from v_i to v_j ends with the
// checkpoint taken at v_j, so it costs C_j (the printed C_i would charge
// the checkpoint of the previous reservation again), and neither the first
// reservation (nothing to restart from) nor the last (the job is certain to
// finish) pays R or C respectively — the conventions of ALL-CKPT in
// DynProgCount, with which MemAllCkpt coincides when C_i is constant.
// O(n²) time, O(n) memory; it stops with ctx's error when ctx ends. With
// m.MaxLength > 0 only reservations R·[i>0] + v_j − v_i + C_j ≤ MaxLength
// are allowed, so S is the optimum under that bound (an error wrapping
// reservation.ErrNoPlanWithin when there is none); as C_j ≥ 0 the inner
// loop stops at the first j whose work alone exceeds it: O(n·K) time, K
// the most values within MaxLength seconds.
func MemAllCkpt(ctx context.Context, m MemLaw) (*MemPlan, error) {
	return memAllCkpt(ctx, m, 0, StrategyMemAllCkpt, 0, -1)
}

// MemAllCkptV2 is MEM-ALL-CKPT-V2 (Section 4.3.3): a first reservation of
// work v_first (Values[first], 0-based index) that ends with a checkpoint
// at the latest when the job reaches the memory-hungry task
// (stopBeforeTask, 1-based, recorded in the plan for EvaluateRun; 0 for
// none), followed by the MEM-ALL-CKPT plan of the rest. The first
// reservation requests firstMem — the largest peak of the tasks before the
// hungry one, since it never runs that task — or, if firstMem < 0, the
// largest need over [0, v_first]. The expected metrics take the first
// reservation to end at v_first (a job that reaches the hungry task earlier,
// probability ε by the choice of v_first, is not modelled: EvaluateRun
// replays it exactly). It stops with ctx's error when ctx ends.
func MemAllCkptV2(ctx context.Context, m MemLaw, first int, stopBeforeTask int, firstMem float64) (*MemPlan, error) {
	if first < 0 || first >= len(m.Values)-1 {
		return nil, fmt.Errorf("first milestone index %d outside [0, %d)", first, len(m.Values)-1)
	}
	if math.IsNaN(firstMem) || math.IsInf(firstMem, 0) {
		return nil, fmt.Errorf("first reservation memory %v, want finite", firstMem)
	}
	return memAllCkpt(ctx, m, first+1, StrategyMemAllCkptV2, stopBeforeTask, firstMem)
}

// memAllCkpt solves the DP; forced > 0 makes the first milestone v_forced
// (1-based in the support layout), with the given stop task and memory.
// It stops with ctx's error when ctx ends (checked every ctxRows rows).
func memAllCkpt(ctx context.Context, m MemLaw, forced int, name string, stop int, firstMem float64) (*MemPlan, error) {
	sup, err := m.validate()
	if err != nil {
		return nil, err
	}
	n := sup.n()
	v, S := sup.v, sup.surv
	ck := func(j int) float64 {
		if j == n {
			return 0
		}
		return m.Ckpt[j-1]
	}
	best := make([]float64, n+1)
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		if i%ctxRows == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rst := 0.0
		if i > 0 {
			rst = m.Restart
		}
		best[i] = math.Inf(1)
		if S[i] == 0 && m.MaxLength == 0 {
			// Never needed: finish in one step at no expected cost.
			best[i], next[i] = 0, n
			continue
		}
		for j := i + 1; j <= n; j++ {
			w := rst + v[j] - v[i] + ck(j)
			if m.MaxLength > 0 && w > m.MaxLength {
				if rst+v[j]-v[i] > m.MaxLength {
					break // no later j fits either
				}
				continue
			}
			if c := best[j] + w*S[i]; c < best[i] {
				best[i], next[i] = c, j
			}
		}
	}
	if start := max(forced, 0); next[start] == 0 || math.IsInf(best[start], 1) || forced > 0 && m.MaxLength > 0 && v[forced]+ck(forced) > m.MaxLength {
		return nil, fmt.Errorf("%w: no %s plan keeps every reservation within %s", reservation.ErrNoPlanWithin, name, units.FormatSeconds(m.MaxLength))
	}
	var path []int
	i := 0
	if forced > 0 {
		path = append(path, forced)
		i = forced
	}
	for i < n {
		i = next[i]
		path = append(path, i)
	}
	return m.plan(sup, path, name, stop, firstMem), nil
}

// ctxRows is how many rows of the O(n²) DP run between two checks of the
// context (64 rows of n = 50 000 points take about 10 ms).
const ctxRows = 64

// plan turns a path of support indices into a MemPlan and evaluates its
// expected metrics exactly.
func (m MemLaw) plan(sup *support, path []int, name string, stop int, firstMem float64) *MemPlan {
	n := sup.n()
	mem := func(i int) float64 {
		if i == 0 {
			return m.Mem0
		}
		return m.Mem[i-1]
	}
	p := &MemPlan{Name: name, Restart: m.Restart}
	prev := 0
	for k, j := range path {
		r := MemReservation{ProbNeeded: sup.surv[prev]}
		r.Milestone = sup.v[j]
		r.Work = sup.v[j] - sup.v[prev]
		r.Saved = sup.v[prev]
		if k > 0 {
			r.Restart = m.Restart
		}
		if j < n {
			r.Checkpoint = true
			r.CheckpointTime = m.Ckpt[j-1]
			r.Saved = sup.v[j]
		}
		r.Length = r.Restart + r.Work + r.CheckpointTime
		for i := prev; i <= j; i++ {
			r.Mem = math.Max(r.Mem, mem(i))
		}
		if k == 0 && firstMem >= 0 {
			r.Mem, r.StopBeforeTask = firstMem, stop
		}
		p.Reservations = append(p.Reservations, r)
		prev = j
	}
	p.ExpectedTime, p.ExpectedWeightedMemory = expectedMemMetrics(p.Reservations, func(k int) float64 {
		if k == 0 {
			return 1
		}
		return sup.surv[path[k-1]]
	})
	last := p.Reservations[len(p.Reservations)-1]
	p.ExtendWork = math.Max(last.Milestone/2, 1)
	for i := 1; i <= n; i++ {
		p.ExtendMem = math.Max(p.ExtendMem, mem(i))
		p.ExtendCkpt = math.Max(p.ExtendCkpt, m.Ckpt[i-1])
	}
	p.ExtendMem = math.Max(p.ExtendMem, m.Mem0)
	return p
}

// expectedMemMetrics returns E[Σ W_k] and E[Σ W_k M_k / Σ W_k] over the
// reservations used, where needed(k) = P(reservation k is used).
func expectedMemMetrics(rs []MemReservation, needed func(k int) float64) (time, wmem float64) {
	var sumW, sumWM float64
	for k, r := range rs {
		pk := needed(k)
		time += r.Length * pk
		sumW += r.Length
		sumWM += r.Length * r.Mem
		pNext := 0.0
		if k+1 < len(rs) {
			pNext = needed(k + 1)
		}
		// With probability pk − pNext, reservations 1..k are all that is used.
		if sumW > 0 {
			wmem += (pk - pNext) * sumWM / sumW
		}
	}
	return time, wmem
}

// support is the discrete law in the layout of the dynamic program: v[0] = 0
// and v[i] = v_i, surv[i] = P(Y > v[i]) (so surv[0] = 1 and surv[n] = 0).
type support struct {
	v, surv []float64
}

func (s *support) n() int { return len(s.v) - 1 }

// newSupport validates the law and lays it out as reservation.SupportLayout
// does (the same checks and layout as reservation.DynProgCount). O(n).
func newSupport(values, probs []float64) (*support, error) {
	v, surv, _, err := reservation.SupportLayout(values, probs)
	if err != nil {
		return nil, err
	}
	return &support{v: v, surv: surv}, nil
}
