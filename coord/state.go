package coord

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Changes is what changed since the last TakeChanges: the jobs to write
// (copies) and the ids to delete, and the meta record. The caller commits
// them before it acknowledges the requests that made them.
type Changes struct {
	Meta   Meta
	Put    []Job
	Delete []string
}

// Empty reports whether nothing changed.
func (ch Changes) Empty() bool { return len(ch.Put) == 0 && len(ch.Delete) == 0 }

// TakeChanges returns the changes since the last call and forgets them.
func (c *Coordinator) TakeChanges() Changes {
	ch := Changes{Meta: c.meta}
	ids := make([]string, 0, len(c.dirty))
	for id := range c.dirty {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if j, ok := c.jobs[id]; ok {
			ch.Put = append(ch.Put, j.copy())
		} else if j, ok := c.ended[id]; ok {
			ch.Put = append(ch.Put, j.copy())
		} else {
			ch.Delete = append(ch.Delete, id)
		}
		delete(c.dirty, id)
	}
	return ch
}

// Restore rebuilds a coordinator from persisted state: the meta record
// and every job with its outstanding request (waiting in arrival order,
// granted with its expiry). It checks the state's consistency (fencing
// tokens and arrival numbers not beyond the counters, at most one holder
// under a token policy) and refuses a state that breaks it.
func Restore(cfg Config, meta Meta, jobs []Job) (*Coordinator, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.meta = meta
	for i := range jobs {
		j := jobs[i].copy()
		if err := j.Spec.Validate(); err != nil {
			return nil, fmt.Errorf("coord: restored job %d: %w", i, err)
		}
		if _, dup := c.jobs[j.Spec.ID]; dup {
			return nil, fmt.Errorf("coord: restored job %q twice", j.Spec.ID)
		}
		if j.Num > meta.JobNum {
			return nil, fmt.Errorf("coord: job %q number %d beyond the counter %d", j.Spec.ID, j.Num, meta.JobNum)
		}
		if j.Ended {
			if j.Lease != nil {
				return nil, fmt.Errorf("coord: ended job %q has a lease", j.Spec.ID)
			}
			c.ended[j.Spec.ID] = &j
			c.endedOrder = append(c.endedOrder, j.Spec.ID)
			continue
		}
		c.jobs[j.Spec.ID] = &j
		c.addLive(&j, 1)
		if l := j.Lease; l != nil {
			c.due(l.Expires)
			if l.Seq > meta.Seq || l.Token > meta.Token {
				return nil, fmt.Errorf("coord: job %q lease beyond the counters (seq %d, token %d)", j.Spec.ID, l.Seq, l.Token)
			}
			if l.Granted {
				c.holders = append(c.holders, &j)
			} else {
				c.waiting = append(c.waiting, &j)
			}
		}
	}
	if cfg.Policy.Token && len(c.holders) > 1 {
		return nil, fmt.Errorf("coord: %d lease holders restored under token policy %s", len(c.holders), cfg.Policy.Name)
	}
	slices.SortStableFunc(c.endedOrder, func(a, b string) int { return cmp.Compare(c.ended[a].EndedAt, c.ended[b].EndedAt) })
	slices.SortFunc(c.waiting, func(a, b *Job) int { return cmpU(a.Lease.Seq, b.Lease.Seq) })
	slices.SortFunc(c.holders, func(a, b *Job) int { return cmpU(a.Lease.Token, b.Lease.Token) })
	return c, nil
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Stats is a snapshot for metrics.
type Stats struct {
	Jobs, Waiting, Holders int
	Meta                   Meta
	// Bandwidth granted now, bytes/s (Σ shares of the holders).
	Bandwidth float64
}

// Stats returns the current counts and counters.
func (c *Coordinator) Stats() Stats {
	s := Stats{Jobs: len(c.jobs), Waiting: len(c.waiting), Holders: len(c.holders), Meta: c.meta}
	for _, h := range c.holders {
		s.Bandwidth += h.Lease.Share
	}
	return s
}
