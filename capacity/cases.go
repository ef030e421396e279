package capacity

// The 15 paths of Fig. 4 (Section 4.2.1). A section is cut into phase 1
// [0, Cnf), phase 2 [Cnf, T − C_max) and phase 3 [T − C_max, T). Phase-1
// checkpoints complete at Cnf (as late as possible, Appendix C policy (b)),
// recoveries start as soon as possible (at 0 in phase 1, at Cnf in phase 2),
// phase-3 checkpoints complete at T.
const (
	caseRunRun       = 1  // Run0 → run to T
	caseRunCkpt3     = 2  // Run0 → run, checkpoint at T − C_j
	caseRunCkpt1     = 3  // Run0 → checkpoint in phase 1, idle after
	caseCkptRun      = 4  // Ckpt0 → run to T
	caseCkptCkpt3    = 5  // Ckpt0 → run, checkpoint at the end
	caseCkptCkpt1    = 6  // Ckpt0 → run, checkpoint in phase 1, idle after
	caseCkptRec2Run  = 7  // Ckpt0 → idle in phase 1, recover at Cnf, run to T
	caseCkptRec2Ckpt = 8  // Ckpt0 → idle, recover at Cnf, checkpoint at the end
	caseCkptIdle     = 9  // Ckpt0 → idle
	caseIdleRec1Run  = 10 // Idle0 → recover at 0, run to T
	caseIdleRec1Ckpt = 11 // Idle0 → recover at 0, run, checkpoint at the end
	caseIdleRecCkpt1 = 12 // Idle0 → recover at 0, checkpoint in phase 1
	caseIdleRec2Run  = 13 // Idle0 → recover at Cnf, run to T
	caseIdleRec2Ckpt = 14 // Idle0 → recover at Cnf, checkpoint at the end
	caseIdleIdle     = 15 // Idle0 → idle
)

// casesFor lists the paths open to a job of the given status, in the order
// of Appendix D.1 (ties keep the first).
func casesFor(s Status) []uint8 {
	switch s {
	case Running:
		return []uint8{1, 2, 3}
	case Checkpointed:
		return []uint8{4, 5, 6, 7, 8, 9}
	case Idle:
		return []uint8{10, 11, 12, 13, 14, 15}
	}
	return nil
}

// caseUse tells which capacities a path consumes: Π_1 (active in phase 1
// beyond the Run0 jobs, which are counted up front), Π_2 (active in phase 2)
// and Π_3 (running unsaved at T), and whether it is active, checkpointed at T.
func caseUse(c uint8) (in1, in2, in3, active, ckpt bool) {
	switch c {
	case 1:
		return false, true, true, true, false
	case 2:
		return false, true, false, true, true
	case 3:
		return false, false, false, false, false
	case 4, 10:
		return true, true, true, true, false
	case 5, 11:
		return true, true, false, true, true
	case 6, 12:
		return true, false, false, false, false
	case 7, 13:
		return false, true, true, true, false
	case 8, 14:
		return false, true, false, true, true
	}
	return false, false, false, false, false
}

// caseWork is the effective working time of path c (Appendix D.1), and
// whether the path fits in the section (no negative duration, phase 1
// inside the section).
func caseWork(c uint8, jb Job, T, cnf float64) (float64, bool) {
	var w float64
	switch c {
	case 1, 4:
		w = T
	case 2, 5:
		w = T - jb.C
	case 3, 6:
		w = cnf - jb.C
	case 7, 13:
		w = T - cnf - jb.R
	case 8, 14:
		w = T - cnf - jb.R - jb.C
	case 10:
		w = T - jb.R
	case 11:
		w = T - jb.R - jb.C
	case 12:
		w = cnf - jb.C - jb.R
	default:
		return 0, true
	}
	if w < 0 {
		return 0, false
	}
	if (c == 3 || c == 6 || c == 12) && cnf > T {
		return 0, false
	}
	return w, true
}

// buildCase appends the intervals of path c for job j.
func (p *Plan) buildCase(j int, c uint8, jb Job, T, cnf float64) {
	C, R := jb.C, jb.R
	switch c {
	case 1, 4:
		p.add(j, Run, 0, T)
	case 2, 5:
		p.add(j, Run, 0, T-C)
		p.add(j, Checkpoint, T-C, T)
	case 3, 6:
		p.add(j, Run, 0, cnf-C)
		p.add(j, Checkpoint, cnf-C, cnf)
	case 7, 13:
		p.add(j, Recover, cnf, cnf+R)
		p.add(j, Run, cnf+R, T)
	case 8, 14:
		p.add(j, Recover, cnf, cnf+R)
		p.add(j, Run, cnf+R, T-C)
		p.add(j, Checkpoint, T-C, T)
	case 10:
		p.add(j, Recover, 0, R)
		p.add(j, Run, R, T)
	case 11:
		p.add(j, Recover, 0, R)
		p.add(j, Run, R, T-C)
		p.add(j, Checkpoint, T-C, T)
	case 12:
		p.add(j, Recover, 0, R)
		p.add(j, Run, R, cnf-C)
		p.add(j, Checkpoint, cnf-C, cnf)
	}
}

// planFromCases builds the explicit schedule of a case assignment.
func planFromCases(st *State, cases []uint8, cnf float64) *Plan {
	p := NewPlan(len(st.Jobs), st.T)
	p.Case = append([]uint8(nil), cases...)
	p.Cnf = cnf
	for j, c := range cases {
		p.buildCase(j, c, st.Jobs[j], st.T, cnf)
	}
	return p
}
