package memplan

import (
	"fmt"
	"math"
	"slices"
)

// Neuro is the practitioners' strategy NEURO of Section 4.2 (used by the
// Vanderbilt neuroscience department, with a checkpoint added for
// fairness): a first reservation of work T_1 = the longest of the last k
// runs, ending with a checkpoint; if the job is not done, reservations of
// work 0.5·T_1 (so that T_1 + T_2 = 1.5·T_1, the department's ×1.5 rule),
// each restarting and checkpointing, until it is. Every reservation asks
// for the application's peak memory mem and checkpoints at the cost ckpt of
// saving that much memory. NEURO-AVG (avg = true) takes the mean of the
// runs instead of the maximum.
func Neuro(history []float64, avg bool, ckpt, restart, mem float64) (*MemPlan, error) {
	if len(history) == 0 {
		return nil, fmt.Errorf("NEURO needs at least one past walltime")
	}
	for _, x := range history {
		if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			return nil, fmt.Errorf("past walltime %v, want finite and > 0", x)
		}
	}
	t1 := slices.Max(history)
	name := "neuro"
	if avg {
		t1 = 0
		for _, x := range history {
			t1 += x
		}
		t1 /= float64(len(history))
		name = "neuro-avg"
	}
	r := MemReservation{Mem: mem, ProbNeeded: 1}
	r.Work, r.Milestone, r.Saved = t1, t1, t1
	r.Checkpoint, r.CheckpointTime = true, ckpt
	r.Length = t1 + ckpt
	return &MemPlan{Name: name, Reservations: []MemReservation{r},
		ExtendWork: t1 / 2, ExtendCkpt: ckpt, ExtendMem: mem, Restart: restart,
		ExpectedTime: math.NaN(), ExpectedWeightedMemory: mem}, nil
}

// ConstantMemory returns plan with every request, the extensions included,
// set to mem: a memory-oblivious strategy such as ALL-CKPT, which asks for
// the peak for the whole run.
func ConstantMemory(plan *MemPlan, mem float64) *MemPlan {
	out := *plan
	out.Reservations = slices.Clone(plan.Reservations)
	for i := range out.Reservations {
		out.Reservations[i].Mem = mem
	}
	out.ExtendMem = mem
	out.ExpectedWeightedMemory = mem
	return &out
}
