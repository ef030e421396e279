// Package loadgen drives a checkpoint coordinator with N simulated jobs
// over HTTP (`ckpt coord loadgen`): each job registers, then cycles
// "when next?", acquire (polled until granted) and release, and every
// answered request is one decision. It reports decisions per second and
// the latency percentiles (type-7 quantiles of all request latencies, distribution.SampleQuantile).
//
// With Options.Checkpoints (`--checkpoints K`) it finishes instead of
// measuring for a time: each job makes K checkpoint cycles and ends
// (done), a client holding one request and one lease at a time (a grant is
// released as its next request), and the run ends when every job is done.
// Options.Record (`--record FILE`) writes every acknowledged grant, release
// and done, with its fencing token and the replica that answered: the
// evidence of the issue-26 fault campaign (cmd/ckpt
// TestServeReplicaFaultCampaign) that nothing acknowledged was lost.
//
// Complexity: O(decisions) time; memory O(jobs + decisions) (one float32
// latency per decision); the record is streamed (O(1) memory).
package loadgen
