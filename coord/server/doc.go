// Package server is the HTTP/JSON front of the checkpoint coordinator
// (`ckpt serve`): it serialises requests onto the decision core (package
// coord), commits every change through coord/store before answering, and
// exposes /healthz and Prometheus /metrics. The API is documented in
// api/openapi.yaml.
//
// Security: every /v1 request needs a bearer token listed in the token
// file (unless the server runs without auth, for tests); acting for a job
// (acquire, renew, release, done) also needs the job's own token (header
// X-Job-Token), chosen by the client at registration or issued then. The
// request body is limited (64 KiB by default) and each client address has
// a token-bucket rate limit, applied after authentication (a flood without
// a token does not starve the jobs that have one). Every refusal is a JSON
// error {"error": …, "code": …, "field": …} naming the field at fault;
// the code (api.Code: the core's coord.ErrorKind, or the server's own
// refusals) is the one thing that decides the HTTP status.
//
// Persistence: the server depends on the store.Store interface only. A
// commit that fails (a full disk) fails the requests whose changes it
// held with 503, and the core is rebuilt from the store's last committed
// state: reads stay served, and writes succeed again once commits do. Only
// a store that cannot be read back stops the server.
//
// Profiling: with Options.Pprof the Go profiler is served at
// /debug/pprof/, to requests with a bearer token only.
//
// Replication: a store that is a Group (a coord/replica replica) makes
// the server one replica of a group. Its leader reloads the state as soon
// as it is elected (and before a request if not yet), expires leases on its
// clock alone (a follower's ticker is idle), and commits through raft; a
// follower answers writes, and reads without ?stale=1, with 307 to the
// leader's HTTP address (503 if unknown); /readyz is 200 on a replica that
// leads or knows a leader; /v1/status adds the group's status and /metrics
// the replica's raft metrics.
//
// Clock: by default the server's wall clock (Unix seconds); with
// ClientClock every request carries "now_s" (a simulation driving the
// coordinator with its own time), /v1/status shows the platform at ?now=
// or at the latest time a request carried, and the server never ticks on
// its own.
//
// Complexity: one request costs the core operation (see package coord)
// plus a share of one group commit; memory O(jobs + clients).
package server
