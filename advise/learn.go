package advise

// Learnable returns the jobs of l that e has not learnt, in submit order:
// with extended (e was read from a model file), those submitted after its
// last submit and those it waits for by ID (not ended at an earlier
// learn); old counts the rest. It sets e's new waiting list: the jobs of l
// not ended, and those e waited for that l does not list. O(jobs +
// waiting).
func (e *Engine) Learnable(l Log, extended bool) (jobs []Job, old int) {
	waited := make(map[string]bool, len(e.waiting))
	for _, id := range e.waiting {
		waited[id] = true
	}
	for _, j := range l.Jobs {
		if extended && j.Submit <= e.lastSeen && !(j.ID != "" && waited[j.ID]) {
			old++
			continue
		}
		jobs = append(jobs, j)
	}
	var still []string
	for _, id := range e.waiting {
		if !l.Listed[id] {
			still = append(still, id)
		}
	}
	for _, w := range l.Waiting {
		if w.ID != "" {
			still = append(still, w.ID)
		}
	}
	e.waiting = still
	return jobs, old
}

// Span is the submit times a model covers: the start of its first window
// (0 when unknown) and its last submit.
func (e *Engine) Span() (from, last float64) { return e.from, e.lastSeen }

// StartAt sets the start of a new model's first window.
func (e *Engine) StartAt(from float64) { e.from = from }

// Size is the number of jobs learnt and of groups held.
func (e *Engine) Size() (jobs, groups int) { return e.jobs, len(e.groups) }

// Waiting is the IDs of the jobs the model learns once they end.
func (e *Engine) Waiting() []string { return e.waiting }
