package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/output"
)

// The request and response bodies of the HTTP API (api/openapi.yaml).
// Keys are snake_case with the unit as suffix: _s seconds, _bytes bytes,
// _bps bytes/s. Times are seconds: Unix time on the server's clock, or
// the client's clock in simulation mode, where every request carries
// now_s. These types are the API's schema; the core's types (package
// coord) are the database's.

// RegisterRequest registers a job.
type RegisterRequest struct {
	ID    string  `json:"id"`
	Nodes int     `json:"nodes"`
	Bytes float64 `json:"size_bytes,omitempty"` // checkpoint size (C = size/bandwidth unless C is given)
	C     float64 `json:"c_s,omitempty"`        // measured checkpoint duration
	R     float64 `json:"r_s,omitempty"`        // recovery duration (default C)
	MTBF  float64 `json:"mtbf_s,omitempty"`     // the job's MTBF
	EY    float64 `json:"ey,omitempty"`         // expected number of failures over Work
	Work  float64 `json:"work_s,omitempty"`     // Te, the job's work
	End   float64 `json:"end_s,omitempty"`      // allocation end time
	// Method is daly (default), young or ey.
	Method string `json:"method,omitempty"`
	// JobToken is the job's own secret (16-128 characters); omitted, the
	// server issues one and returns it once.
	JobToken string   `json:"job_token,omitempty"`
	Now      *float64 `json:"now_s,omitempty"`
}

// Spec is the core's job spec of r (without its token).
func (r RegisterRequest) Spec() coord.JobSpec {
	return coord.JobSpec{ID: r.ID, Nodes: r.Nodes, Bytes: r.Bytes, C: r.C, R: r.R, MTBF: r.MTBF,
		EY: r.EY, Work: r.Work, End: r.End, Method: r.Method}
}

// RegisterResponse is the registered job, and its token if issued.
type RegisterResponse struct {
	Job      JobView `json:"job"`
	JobToken string  `json:"job_token,omitempty"`
}

// Text is the registration in one line.
func (r RegisterResponse) Text() string {
	return fmt.Sprintf("registered %s (%d nodes, C = %.4gs); job token %s", r.Job.ID, r.Job.Spec.Nodes, r.Job.C, r.JobToken)
}

// SpecView is what a job told at registration.
type SpecView struct {
	ID     string  `json:"id"`
	Nodes  int     `json:"nodes"`
	Bytes  float64 `json:"size_bytes,omitempty"`
	C      float64 `json:"c_s,omitempty"`
	R      float64 `json:"r_s,omitempty"`
	MTBF   float64 `json:"mtbf_s,omitempty"`
	EY     float64 `json:"ey,omitempty"`
	Work   float64 `json:"work_s,omitempty"`
	End    float64 `json:"end_s,omitempty"`
	Method string  `json:"method,omitempty"`
}

// LeaseView is a job's outstanding request for the file system.
type LeaseView struct {
	RequestID string       `json:"request_id"`
	Kind      arbiter.Kind `json:"kind"`
	Bytes     float64      `json:"size_bytes"`
	Duration  float64      `json:"duration_s"` // expected transfer time with the token
	Since     float64      `json:"since_s"`    // request time
	Seq       uint64       `json:"seq"`
	TTL       float64      `json:"ttl_s"`
	Granted   bool         `json:"granted"`
	GrantedAt float64      `json:"granted_at_s,omitempty"`
	Token     uint64       `json:"token,omitempty"`
	Share     float64      `json:"share_bps,omitempty"` // bandwidth granted
	Expires   float64      `json:"expires_s"`           // grant expiry, or a waiting request's poll deadline
}

// JobView is a job as the API shows it (without its token's hash).
type JobView struct {
	ID             string     `json:"id"`
	Spec           SpecView   `json:"spec"`
	Registered     float64    `json:"registered_s"`
	LastCheckpoint float64    `json:"last_checkpoint_s"`
	C              float64    `json:"c_s"` // EWMA of the measured checkpoint durations
	Samples        int        `json:"samples"`
	Checkpoints    int        `json:"checkpoints"`
	Lease          *LeaseView `json:"lease,omitempty"`
}

// ViewJob is j as the API shows it.
func ViewJob(j coord.Job) JobView {
	s := j.Spec
	v := JobView{ID: s.ID, Spec: SpecView{ID: s.ID, Nodes: s.Nodes, Bytes: s.Bytes, C: s.C, R: s.R, MTBF: s.MTBF,
		EY: s.EY, Work: s.Work, End: s.End, Method: s.Method},
		Registered: j.Registered, LastCheckpoint: j.LastCheckpoint, C: j.CEst, Samples: j.Samples, Checkpoints: j.Checkpoints}
	if l := j.Lease; l != nil {
		v.Lease = &LeaseView{RequestID: l.RequestID, Kind: l.Kind, Bytes: l.Bytes, Duration: l.Duration, Since: l.Since,
			Seq: l.Seq, TTL: l.TTL, Granted: l.Granted, GrantedAt: l.GrantedAt, Token: l.Token, Share: l.Share, Expires: l.Expires}
	}
	return v
}

// NowRequest is a body with only the time (next).
type NowRequest struct {
	Now *float64 `json:"now_s,omitempty"`
}

// AcquireRequest asks for the file system.
type AcquireRequest struct {
	RequestID      string       `json:"request_id"`
	Kind           arbiter.Kind `json:"kind"`
	Bytes          float64      `json:"size_bytes,omitempty"`
	TTL            float64      `json:"ttl_s,omitempty"`
	LastCheckpoint float64      `json:"last_checkpoint_s,omitempty"`
	Now            *float64     `json:"now_s,omitempty"`
}

// RenewRequest is a heartbeat of a granted lease.
type RenewRequest struct {
	Token uint64   `json:"token"`
	Now   *float64 `json:"now_s,omitempty"`
}

// ReleaseRequest ends a granted lease.
type ReleaseRequest struct {
	Token uint64 `json:"token"`
	// Duration is the measured checkpoint duration in seconds (0: the
	// time since the grant).
	Duration float64  `json:"duration_s,omitempty"`
	Now      *float64 `json:"now_s,omitempty"`
}

// DoneRequest ends a job.
type DoneRequest struct {
	Failed bool     `json:"failed,omitempty"` // the job ended by a node failure
	Now    *float64 `json:"now_s,omitempty"`
}

// CancelRequest withdraws a job's outstanding request, waiting or granted,
// without counting a checkpoint.
type CancelRequest struct {
	RequestID string   `json:"request_id"`
	Now       *float64 `json:"now_s,omitempty"`
}

// DoneResponse answers done, with the grants the job's end freed.
type DoneResponse struct {
	Job     string         `json:"job"`
	Status  string         `json:"status"`
	Granted []coord.Notice `json:"granted,omitempty"`
}

// AdviceView is coord.Advice with non-finite numbers as null (at_s: null =
// never).
type AdviceView struct {
	Job     string        `json:"job"`
	Method  string        `json:"method"`
	C       output.Number `json:"c_s"`
	MTBF    output.Number `json:"mtbf_s"`
	EY      output.Number `json:"ey,omitempty"`
	Period  output.Number `json:"period_s"`
	Optimum output.Number `json:"optimum_s"`
	At      output.Number `json:"at_s"`
	In      output.Number `json:"in_s"` // at − now
	Final   bool          `json:"final,omitempty"`
	None    bool          `json:"none,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

// Text is the advice in one line: when the next checkpoint starts, or
// why none will.
func (a AdviceView) Text() string {
	if a.None || a.Reason != "" {
		return fmt.Sprintf("%s: %s", a.Job, a.Reason)
	}
	text := fmt.Sprintf("next checkpoint of %s in %.0fs (period %.0fs, %s, C = %.4gs)", a.Job, float64(a.In), float64(a.Period), a.Method, float64(a.C))
	if a.Final {
		text += "; the last one before the allocation ends"
	}
	return text
}

// ViewAdvice is a as the API shows it at time now.
func ViewAdvice(a coord.Advice, now float64) AdviceView {
	return AdviceView{Job: a.Job, Method: a.Method, C: output.Number(a.C), MTBF: output.Number(a.MTBF),
		EY: output.Number(a.EY), Period: output.Number(a.Period), Optimum: output.Number(a.Optimum),
		At: output.Number(a.At), In: output.Number(a.At - now), Final: a.Final, None: a.None, Reason: a.Reason}
}

// Counters are the coordinator's counters since its database was created.
type Counters struct {
	Token        uint64  `json:"token"` // last fencing token issued
	Seq          uint64  `json:"seq"`   // last arrival number
	Grants       uint64  `json:"grants"`
	Expiries     uint64  `json:"expiries"`
	Releases     uint64  `json:"releases"`
	Refused      uint64  `json:"refused"`
	GrantedBytes float64 `json:"granted_bytes"`
	Exposure     float64 `json:"exposure_node_s"` // node-seconds of finished jobs
	Failures     int     `json:"failures"`        // node failures reported
}

// ViewCounters is m as the API shows it.
func ViewCounters(m coord.Meta) Counters {
	return Counters{Token: m.Token, Seq: m.Seq, Grants: m.Grants, Expiries: m.Expiries, Releases: m.Releases,
		Refused: m.Refused, GrantedBytes: m.BytesGranted, Exposure: m.Exposure, Failures: m.Failures}
}

// StatusView is the coordinator's state at time Now.
type StatusView struct {
	Policy    string        `json:"policy"`
	Bandwidth float64       `json:"bandwidth_bps"`
	Jobs      int           `json:"jobs"`
	Waiting   int           `json:"waiting"`
	Holders   int           `json:"holders"`
	NodeMTBF  output.Number `json:"node_mtbf_s"`
	Counters  Counters      `json:"counters"`
	Now       float64       `json:"now_s"`
}

// Code classifies an error answer; each code is one HTTP status (Status).
type Code string

// The error codes. The first five are the core's refusals (coord.ErrorKind).
const (
	CodeInvalid      Code = "invalid"      // a field is out of range or malformed
	CodeNotFound     Code = "not_found"    // no such job, request or endpoint
	CodeConflict     Code = "conflict"     // the state forbids it
	CodeFenced       Code = "fenced"       // the lease token is not held
	CodeFull         Code = "full"         // too many jobs
	CodeUnauthorized Code = "unauthorized" // no or unknown bearer token
	CodeForbidden    Code = "forbidden"    // not this job's token
	CodeTooLarge     Code = "too_large"    // body over the limit
	CodeRateLimited  Code = "rate_limited" // too many requests from this client
	CodeUnavailable  Code = "unavailable"  // the state could not be committed; retry
	CodeInternal     Code = "internal"
)

var statuses = map[Code]int{
	CodeInvalid: http.StatusBadRequest, CodeNotFound: http.StatusNotFound, CodeConflict: http.StatusConflict,
	CodeFenced: http.StatusConflict, CodeFull: http.StatusServiceUnavailable, CodeUnauthorized: http.StatusUnauthorized,
	CodeForbidden: http.StatusForbidden, CodeTooLarge: http.StatusRequestEntityTooLarge,
	CodeRateLimited: http.StatusTooManyRequests, CodeUnavailable: http.StatusServiceUnavailable,
	CodeInternal: http.StatusInternalServerError,
}

// Status is the HTTP status of an error answer with code c (500 for an
// unknown code).
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// CodeOf is the code of a core refusal of kind k.
func CodeOf(k coord.ErrorKind) Code {
	switch k {
	case coord.Invalid, coord.NotFound, coord.Conflict, coord.Fenced, coord.Full:
		return Code(k.String())
	}
	return CodeInternal
}

// Field is the API's name of a core field (JobSpec's and the lease's
// names are the database's): "c" is c_s, "bytes" size_bytes.
func Field(core string) string {
	if f, ok := fields[core]; ok {
		return f
	}
	return core
}

var fields = map[string]string{"job": "id", "bytes": "size_bytes", "c": "c_s", "r": "r_s", "mtbf": "mtbf_s", "work": "work_s",
	"end": "end_s", "ttl": "ttl_s", "last_checkpoint": "last_checkpoint_s", "duration": "duration_s", "now": "now_s"}

// ErrorBody is every error answer.
type ErrorBody struct {
	Error string `json:"error"`
	Code  Code   `json:"code"`
	Field string `json:"field,omitempty"`
}

// Member is a replica of a replicated coordinator's group (POST
// /v1/members adds it, DELETE /v1/members/{id} removes it).
type Member struct {
	ID   string `json:"id"`
	Addr string `json:"addr"`           // raft host:port
	HTTP string `json:"http,omitempty"` // HTTP host:port
}

// GroupView is the group after a membership change: the answering
// replica's view (its id and state, the leader, the term, the members).
type GroupView struct {
	ID       string   `json:"id"`
	State    string   `json:"state"`
	LeaderID string   `json:"leader_id,omitempty"`
	Term     uint64   `json:"term"`
	Peers    []Member `json:"peers"`
}

// Text is the group in one line.
func (g GroupView) Text() string {
	ids := make([]string, len(g.Peers))
	for i, p := range g.Peers {
		ids[i] = p.ID
	}
	leader := g.LeaderID
	if leader == "" {
		leader = "unknown"
	}
	return fmt.Sprintf("group of %d: %s; leader %s, term %d", len(ids), strings.Join(ids, ", "), leader, g.Term)
}
