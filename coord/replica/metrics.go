package replica

import (
	"github.com/hashicorp/raft"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are a replica's own: commit latency and the leader changes it
// observed; the rest is read from raft when scraped.
type metrics struct {
	commit        prometheus.Histogram
	leaderChanges prometheus.Counter
	obs           *raft.Observer
	ch            chan raft.Observation
	done          chan struct{}
}

func newMetrics() *metrics {
	return &metrics{
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "ckpt_coord_raft_commit_seconds", Help: "Time from a commit's raft Apply to its entry applied on a majority.",
			Buckets: prometheus.ExponentialBuckets(1e-4, 2, 16)}),
		leaderChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ckpt_coord_raft_leader_changes_total", Help: "Leaders this replica has seen elected."}),
	}
}

// observe counts the leader changes raft reports, until stop.
func (m *metrics) observe(r *raft.Raft) {
	m.ch = make(chan raft.Observation, 16)
	m.done = make(chan struct{})
	m.obs = raft.NewObserver(m.ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	r.RegisterObserver(m.obs)
	go func() {
		defer close(m.done)
		for o := range m.ch {
			if o.Data.(raft.LeaderObservation).LeaderID != "" {
				m.leaderChanges.Inc()
			}
		}
	}()
}

func (m *metrics) stop(r *raft.Raft) {
	if m.obs == nil {
		return
	}
	r.DeregisterObserver(m.obs) // no send is under way once it returns
	close(m.ch)
	<-m.done
	m.obs = nil
}

// Collectors are the replica's Prometheus metrics, to register beside
// the server's: commit latency, leader changes, and the term, commit and
// applied indexes, the apply lag, whether it leads and the group's size.
func (r *Replica) Collectors() []prometheus.Collector {
	gauge := func(name, help string, f func(Status) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return f(r.Status()) })
	}
	return []prometheus.Collector{r.metrics.commit, r.metrics.leaderChanges,
		gauge("ckpt_coord_raft_term", "Current raft term.", func(s Status) float64 { return float64(s.Term) }),
		gauge("ckpt_coord_raft_commit_index", "Last log index known committed.", func(s Status) float64 { return float64(s.CommitIndex) }),
		gauge("ckpt_coord_raft_applied_index", "Last log index applied to this replica's state.", func(s Status) float64 { return float64(s.Applied) }),
		gauge("ckpt_coord_raft_apply_lag", "Entries committed and not yet applied here.", func(s Status) float64 {
			return float64(s.CommitIndex - min(s.Applied, s.CommitIndex))
		}),
		gauge("ckpt_coord_raft_leader", "1 if this replica is the leader.", func(s Status) float64 {
			if s.State == raft.Leader.String() {
				return 1
			}
			return 0
		}),
		gauge("ckpt_coord_raft_peers", "Replicas in the group's configuration.", func(s Status) float64 { return float64(len(s.Peers)) }),
	}
}
