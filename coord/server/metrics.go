package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type metrics struct {
	decisions *prometheus.HistogramVec
	requests  *prometheus.CounterVec
	latency   prometheus.Histogram
	records   prometheus.Counter
	// the children of decisions by op and of requests by code, cached
	// as WithLabelValues creates them (on first use, so /metrics shows
	// the same series): a lookup per request without hashing the labels
	// or formatting the code
	ops   sync.Map // string -> prometheus.Observer
	codes sync.Map // int -> prometheus.Counter
}

// newMetrics registers the coordinator's metrics; stats reads a snapshot,
// commits the writer's counts.
func newMetrics(reg *prometheus.Registry, stats func() coord.Stats, commits func() store.WriterStats) *metrics {
	m := &metrics{
		decisions: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ckpt_coord_decision_seconds", Help: "Time the decision core takes per operation.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12)}, []string{"op"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ckpt_coord_http_requests_total", Help: "HTTP requests by status code."}, []string{"code"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "ckpt_coord_request_seconds", Help: "HTTP request latency, commit included.",
			Buckets: prometheus.ExponentialBuckets(1e-4, 2, 16)}),
		records: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ckpt_coord_committed_records_total", Help: "Job records written to the database."}),
	}
	gauge := func(name, help string, f func(coord.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return f(stats()) })
	}
	counter := func(name, help string, f func(coord.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return f(stats()) })
	}
	reg.MustRegister(m.decisions, m.requests, m.latency, m.records,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		gauge("ckpt_coord_jobs", "Registered jobs.", func(s coord.Stats) float64 { return float64(s.Jobs) }),
		gauge("ckpt_coord_queue_length", "Requests waiting for the file system.", func(s coord.Stats) float64 { return float64(s.Waiting) }),
		gauge("ckpt_coord_lease_holders", "Leases granted and not released.", func(s coord.Stats) float64 { return float64(s.Holders) }),
		gauge("ckpt_coord_bandwidth_granted_bytes_per_second", "Bandwidth granted to the current holders.", func(s coord.Stats) float64 { return s.Bandwidth }),
		counter("ckpt_coord_grants_total", "Leases granted.", func(s coord.Stats) float64 { return float64(s.Meta.Grants) }),
		counter("ckpt_coord_expiries_total", "Leases expired (holder silent for a TTL).", func(s coord.Stats) float64 { return float64(s.Meta.Expiries) }),
		counter("ckpt_coord_releases_total", "Leases released.", func(s coord.Stats) float64 { return float64(s.Meta.Releases) }),
		counter("ckpt_coord_fenced_total", "Renewals and releases refused: token not held.", func(s coord.Stats) float64 { return float64(s.Meta.Refused) }),
		counter("ckpt_coord_granted_bytes_total", "Bytes granted.", func(s coord.Stats) float64 { return s.Meta.BytesGranted }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ckpt_coord_commits_total",
			Help: "Database transactions committed (each with its fsyncs unless --unsafe-no-sync; failed ones not counted)."},
			func() float64 { return float64(commits().Commits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ckpt_coord_committed_requests_total",
			Help: "Requests whose changes were committed: per transaction, the requests sharing its fsyncs."},
			func() float64 { return float64(commits().Changes) }),
	)
	return m
}

func (m *metrics) handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

func (m *metrics) decision(op string, d time.Duration) {
	o, ok := m.ops.Load(op)
	if !ok {
		o, _ = m.ops.LoadOrStore(op, m.decisions.WithLabelValues(op))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

func (m *metrics) request(code int, d time.Duration) {
	c, ok := m.codes.Load(code)
	if !ok {
		c, _ = m.codes.LoadOrStore(code, m.requests.WithLabelValues(strconv.Itoa(code)))
	}
	c.(prometheus.Counter).Inc()
	m.latency.Observe(d.Seconds())
}

func (m *metrics) observeChanges(ch coord.Changes) {
	m.records.Add(float64(len(ch.Put) + len(ch.Delete)))
}
