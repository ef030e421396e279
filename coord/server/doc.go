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
// a token-bucket rate limit. Every refusal is a 4xx JSON error
// {"error": …, "field": …} naming the field at fault.
//
// Clock: by default the server's wall clock (Unix seconds); with
// ClientClock every request carries "now" (a simulation driving the
// coordinator with its own time), and the server never ticks on its own.
//
// Complexity: one request costs the core operation (see package coord)
// plus a share of one group commit; memory O(jobs + clients).
package server
