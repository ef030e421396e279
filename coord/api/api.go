package api

import (
	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/output"
)

// The request and response bodies of the HTTP API (api/openapi.yaml).
// Times are seconds: Unix time on the server's clock, or the client's
// clock in simulation mode, where every request carries now.

// RegisterRequest registers a job.
type RegisterRequest struct {
	ID     string  `json:"id"`
	Nodes  int     `json:"nodes"`
	Bytes  float64 `json:"bytes,omitempty"`
	C      float64 `json:"c,omitempty"`
	R      float64 `json:"r,omitempty"`
	MTBF   float64 `json:"mtbf,omitempty"`
	EY     float64 `json:"ey,omitempty"`
	Work   float64 `json:"work,omitempty"`
	End    float64 `json:"end,omitempty"`
	Method string  `json:"method,omitempty"`
	// JobToken is the job's own secret (16-128 characters); omitted, the
	// server issues one and returns it once.
	JobToken string   `json:"job_token,omitempty"`
	Now      *float64 `json:"now,omitempty"`
}

// RegisterResponse is the registered job, and its token if issued.
type RegisterResponse struct {
	Job      JobView `json:"job"`
	JobToken string  `json:"job_token,omitempty"`
}

// JobView is a job as the API shows it (without its token's hash).
type JobView struct {
	ID             string        `json:"id"`
	Spec           coord.JobSpec `json:"spec"`
	Registered     float64       `json:"registered"`
	LastCheckpoint float64       `json:"last_checkpoint"`
	C              float64       `json:"c"`
	Samples        int           `json:"samples"`
	Checkpoints    int           `json:"checkpoints"`
	Lease          *coord.Lease  `json:"lease,omitempty"`
}

func ViewJob(j coord.Job) JobView {
	j.Spec.AuthHash = ""
	return JobView{ID: j.Spec.ID, Spec: j.Spec, Registered: j.Registered, LastCheckpoint: j.LastCheckpoint,
		C: j.CEst, Samples: j.Samples, Checkpoints: j.Checkpoints, Lease: j.Lease}
}

// NowRequest is a body with only the time (next, status).
type NowRequest struct {
	Now *float64 `json:"now,omitempty"`
}

// AcquireRequest asks for the file system.
type AcquireRequest struct {
	RequestID      string       `json:"request_id"`
	Kind           arbiter.Kind `json:"kind"`
	Bytes          float64      `json:"bytes,omitempty"`
	TTL            float64      `json:"ttl,omitempty"`
	LastCheckpoint float64      `json:"last_checkpoint,omitempty"`
	Now            *float64     `json:"now,omitempty"`
}

// RenewRequest is a heartbeat of a granted lease.
type RenewRequest struct {
	Token uint64   `json:"token"`
	Now   *float64 `json:"now,omitempty"`
}

// ReleaseRequest ends a granted lease.
type ReleaseRequest struct {
	Token uint64 `json:"token"`
	// Duration is the measured checkpoint duration in seconds (0: the
	// time since the grant).
	Duration float64  `json:"duration,omitempty"`
	Now      *float64 `json:"now,omitempty"`
}

// DoneRequest ends a job.
type DoneRequest struct {
	Failed bool     `json:"failed,omitempty"` // the job ended by a node failure
	Now    *float64 `json:"now,omitempty"`
}

// CancelRequest withdraws a job's outstanding request, waiting or granted,
// without counting a checkpoint.
type CancelRequest struct {
	RequestID string   `json:"request_id"`
	Now       *float64 `json:"now,omitempty"`
}

// DoneResponse answers done, with the grants the job's end freed.
type DoneResponse struct {
	Job     string         `json:"job"`
	Status  string         `json:"status"`
	Granted []coord.Notice `json:"granted,omitempty"`
}

// AdviceView is coord.Advice with non-finite numbers as null (at: null =
// never).
type AdviceView struct {
	Job     string        `json:"job"`
	Method  string        `json:"method"`
	C       output.Number `json:"c"`
	MTBF    output.Number `json:"mtbf"`
	EY      output.Number `json:"ey,omitempty"`
	Period  output.Number `json:"period"`
	Optimum output.Number `json:"optimum"`
	At      output.Number `json:"at"`
	In      output.Number `json:"in"` // at − now
	Final   bool          `json:"final,omitempty"`
	None    bool          `json:"none,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

func ViewAdvice(a coord.Advice, now float64) AdviceView {
	return AdviceView{Job: a.Job, Method: a.Method, C: output.Number(a.C), MTBF: output.Number(a.MTBF),
		EY: output.Number(a.EY), Period: output.Number(a.Period), Optimum: output.Number(a.Optimum),
		At: output.Number(a.At), In: output.Number(a.At - now), Final: a.Final, None: a.None, Reason: a.Reason}
}

// StatusView is the coordinator's state.
type StatusView struct {
	Policy    string        `json:"policy"`
	Bandwidth float64       `json:"bandwidth"`
	Jobs      int           `json:"jobs"`
	Waiting   int           `json:"waiting"`
	Holders   int           `json:"holders"`
	NodeMTBF  output.Number `json:"node_mtbf"`
	Meta      coord.Meta    `json:"counters"`
	Now       float64       `json:"now"`
}

// ErrorBody is every error answer.
type ErrorBody struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}
