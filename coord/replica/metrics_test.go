package replica

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func gather(t *testing.T, r *Replica) map[string]*dto.Metric {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(r.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.Metric{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf.GetMetric()[0]
	}
	return out
}

// The metrics count what happened: one commit latency sample per commit,
// the leader seen elected, the leader flagged on the leader only, the term
// and indexes raft reports.
func TestMetrics(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, nil)
	li := c.leader(leaderWait)
	o := own(t, c.reps[li])
	for k, id := range []string{"a", "b", "c"} {
		if _, err := o.checkpoint(float64(k), id); err != nil {
			t.Fatal(err)
		}
	}
	c.settle(li)
	m := gather(t, c.reps[li])
	st := c.reps[li].Status()
	if n := m["ckpt_coord_raft_commit_seconds"].GetHistogram().GetSampleCount(); n != 6 {
		t.Errorf("%d commit samples, want 6 (2 per checkpoint)", n)
	}
	if v := m["ckpt_coord_raft_leader_changes_total"].GetCounter().GetValue(); v < 1 {
		t.Errorf("leader changes %v, want ≥ 1", v)
	}
	if v := m["ckpt_coord_raft_leader"].GetGauge().GetValue(); v != 1 {
		t.Errorf("leader gauge %v on the leader", v)
	}
	if v := m["ckpt_coord_raft_term"].GetGauge().GetValue(); v != float64(st.Term) || st.Term == 0 {
		t.Errorf("term gauge %v, status %d", v, st.Term)
	}
	if v := m["ckpt_coord_raft_peers"].GetGauge().GetValue(); v != 3 {
		t.Errorf("peers %v, want 3", v)
	}
	f := gather(t, c.reps[(li+1)%3])
	if v := f["ckpt_coord_raft_leader"].GetGauge().GetValue(); v != 0 {
		t.Errorf("leader gauge %v on a follower", v)
	}
	if v := f["ckpt_coord_raft_applied_index"].GetGauge().GetValue(); v < float64(st.Applied) {
		t.Errorf("follower applied %v, leader %d", v, st.Applied)
	}
	if v := f["ckpt_coord_raft_commit_seconds"].GetHistogram().GetSampleCount(); v != 0 {
		t.Errorf("a follower committed %d times", v)
	}
}
