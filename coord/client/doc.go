// Package client is the Go client of the checkpoint coordinator (`ckpt
// serve`, packages coord and coord/server): register a job, ask when to
// checkpoint next, acquire the file system (waiting for the grant),
// renew, release with the measured duration, and end the job.
//
// Requests that fail in transport (timeout, connection reset) or with
// 429/503 are retried with the same body: every mutating request is
// idempotent on the server (client request ids for acquire, the job token
// for register, the fencing token for release), so a retry never yields a
// second grant.
//
// Two drivers build on it: SimArbiter, the coordinator as the I/O
// simulator's arbiter (iosim.Options.Remote, the closed loop of `ckpt
// coord simulate`), and Gate, which stands between a reservation's runner
// and its app (`ckpt run --coordinator URL`): the checkpoint signal is
// forwarded once the coordinator grants the file system.
//
// Complexity: O(1) per call plus the network; WaitGrant polls every
// PollInterval until granted.
package client
