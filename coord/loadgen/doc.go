// Package loadgen drives a checkpoint coordinator with N simulated jobs
// over HTTP (`ckpt coord loadgen`): each job registers, then cycles
// "when next?", acquire (polled until granted) and release, and every
// answered request is one decision. It reports decisions per second and
// the latency percentiles (type-7 quantiles of all request latencies, distribution.SampleQuantile).
//
// Complexity: O(decisions) time; memory O(jobs + decisions) (one float32
// latency per decision).
package loadgen
