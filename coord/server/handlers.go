package server

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/output"
)

// apiError is an HTTP error answer.
type apiError struct {
	status int
	field  string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func bad(field, format string, a ...any) *apiError {
	return &apiError{http.StatusBadRequest, field, fmt.Sprintf(format, a...)}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.Handle("GET /metrics", s.metrics.handler(s.reg))
	m.HandleFunc("GET /v1/status", s.guard(s.status))
	m.HandleFunc("POST /v1/jobs", s.guard(s.register))
	m.HandleFunc("GET /v1/jobs/{id}", s.guard(s.getJob))
	m.HandleFunc("POST /v1/jobs/{id}/next", s.guard(s.next))
	m.HandleFunc("POST /v1/jobs/{id}/acquire", s.guard(s.jobOp("acquire", s.acquire)))
	m.HandleFunc("POST /v1/jobs/{id}/renew", s.guard(s.jobOp("renew", s.renew)))
	m.HandleFunc("POST /v1/jobs/{id}/release", s.guard(s.jobOp("release", s.release)))
	m.HandleFunc("POST /v1/jobs/{id}/cancel", s.guard(s.jobOp("cancel", s.cancel)))
	m.HandleFunc("POST /v1/jobs/{id}/done", s.guard(s.jobOp("done", s.done)))
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, &apiError{http.StatusNotFound, "path", fmt.Sprintf("no endpoint %s %s", r.Method, clip(r.URL.Path))})
	})
	s.mux = m
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

type handler func(w http.ResponseWriter, r *http.Request) (int, any, error)

// guard applies the rate limit, authentication and the body limit, and
// writes the answer or the error.
func (s *Server) guard(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if s.limiter != nil {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			if !s.limiter.allow(host, start) {
				w.Header().Set("Retry-After", "1")
				s.finish(w, r, start, 0, nil, &apiError{http.StatusTooManyRequests, "", "rate limit exceeded"})
				return
			}
		}
		if !s.authorised(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ckpt"`)
			s.finish(w, r, start, 0, nil, &apiError{http.StatusUnauthorized, "Authorization", "missing or unknown bearer token"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBody)
		code, body, err := h(w, r)
		s.finish(w, r, start, code, body, err)
	}
}

func (s *Server) finish(w http.ResponseWriter, r *http.Request, start time.Time, code int, body any, err error) {
	if err != nil {
		code = writeErr(w, err)
		s.log.Info("refused", "method", r.Method, "path", clip(r.URL.Path), "status", code, "err", err.Error())
	} else {
		writeJSON(w, code, body)
	}
	s.metrics.request(code, time.Since(start))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// writeErr maps err to a status and writes the JSON error; it returns the
// status.
func writeErr(w http.ResponseWriter, err error) int {
	var ae *apiError
	var ce *coord.Error
	body := api.ErrorBody{Error: err.Error()}
	code := http.StatusInternalServerError
	switch {
	case errors.As(err, &ae):
		code, body.Field = ae.status, ae.field
	case errors.As(err, &ce):
		body.Error, body.Field = ce.Msg, ce.Field
		code = map[coord.ErrorKind]int{coord.Invalid: 400, coord.NotFound: 404, coord.Conflict: 409,
			coord.Fenced: 409, coord.Full: 503}[ce.Kind]
		if code == 0 {
			code = 500
		}
	}
	writeJSON(w, code, body)
	return code
}

// decode reads one JSON value of type T, refusing unknown fields,
// trailing data and oversized bodies with the field named.
func decode(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &apiError{http.StatusRequestEntityTooLarge, "body", fmt.Sprintf("body larger than %d bytes", mbe.Limit)}
		}
		return bad("body", "reading the body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return jsonError(err)
	}
	if d.More() {
		return bad("body", "trailing data after the JSON object")
	}
	return nil
}

func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return bad(te.Field, "want %s, got JSON %s", te.Type.Kind(), te.Value)
	case errors.As(err, &se):
		return bad("body", "invalid JSON at byte %d: %v", se.Offset, se)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return bad(clip(f), "unknown field")
	}
	msg := err.Error()
	// UnmarshalText errors (kind) arrive wrapped without a field name.
	if strings.Contains(msg, "kind") {
		return bad("kind", "%s", clip(msg))
	}
	return bad("body", "%s", clip(msg))
}

// now resolves the request's time.
func (s *Server) now(given *float64) (float64, error) {
	if s.opt.ClientClock {
		if given == nil {
			return 0, bad("now", "required: the server runs on the client's clock")
		}
		if math.IsNaN(*given) || math.IsInf(*given, 0) || *given < 0 || *given > 1e15 {
			return 0, bad("now", "%v must be in [0, 1e15]", *given)
		}
		return *given, nil
	}
	if given != nil {
		return 0, bad("now", "only in simulation mode (the server runs on its own clock)")
	}
	return s.wallNow(), nil
}

// apply runs op on the core under the lock, commits its changes and
// returns its result once committed.
func (s *Server) apply(op string, given *float64, f func(now float64) (any, error)) (any, error) {
	s.mu.Lock()
	now, err := s.now(given)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	t0 := time.Now()
	res, err := f(now)
	s.metrics.decision(op, time.Since(t0))
	ack := s.submit()
	s.mu.Unlock()
	if cerr := s.settle(ack); cerr != nil {
		return nil, cerr
	}
	return res, err
}

// settle waits for ack (nil: nothing pending) and maps a failed commit
// to 503.
func (s *Server) settle(ack <-chan error) error {
	if ack != nil && s.wait(ack) != nil {
		return &apiError{http.StatusServiceUnavailable, "", "the database commit failed; the coordinator is stopping"}
	}
	return nil
}

func (s *Server) status(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	s.mu.Lock()
	now := s.wallNow()
	st := s.core.Stats()
	mtbf := s.core.NodeMTBF(now)
	ack := s.writer.Barrier() // show only committed state
	s.mu.Unlock()
	if err := s.settle(ack); err != nil {
		return 0, nil, err
	}
	return 200, api.StatusView{Policy: s.opt.Config.Policy.Name, Bandwidth: s.opt.Config.Bandwidth, Jobs: st.Jobs,
		Waiting: st.Waiting, Holders: st.Holders, NodeMTBF: output.Number(mtbf), Meta: st.Meta, Now: now}, nil
}

func (s *Server) register(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	var req api.RegisterRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	tok, issued := req.JobToken, false
	if tok == "" {
		tok, issued = newJobToken(), true
	} else if len(tok) < 16 || len(tok) > 128 {
		return 0, nil, bad("job_token", "must be 16-128 characters")
	}
	spec := coord.JobSpec{ID: req.ID, Nodes: req.Nodes, Bytes: req.Bytes, C: req.C, R: req.R, MTBF: req.MTBF,
		EY: req.EY, Work: req.Work, End: req.End, Method: req.Method, AuthHash: hashToken(tok)}
	res, err := s.apply("register", req.Now, func(now float64) (any, error) { return s.core.Register(now, spec) })
	if err != nil {
		return 0, nil, err
	}
	j := res.(coord.Job)
	s.log.Info("registered", "job", j.Spec.ID, "nodes", j.Spec.Nodes)
	out := api.RegisterResponse{Job: api.ViewJob(j)}
	if issued {
		out.JobToken = tok
	}
	return 200, out, nil
}

func (s *Server) getJob(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	s.mu.Lock()
	j, ok := s.core.Job(r.PathValue("id"))
	ack := s.writer.Barrier() // show only committed state
	s.mu.Unlock()
	if err := s.settle(ack); err != nil {
		return 0, nil, err
	}
	if !ok {
		return 0, nil, &apiError{http.StatusNotFound, "id", fmt.Sprintf("no job %q", clip(r.PathValue("id")))}
	}
	return 200, api.ViewJob(j), nil
}

func (s *Server) next(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	var req api.NowRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	var at float64
	res, err := s.apply("next", req.Now, func(now float64) (any, error) {
		at = now
		return s.core.Next(now, r.PathValue("id"))
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, api.ViewAdvice(res.(coord.Advice), at), nil
}

// jobOp runs op for job id; op's core call must first run auth (under
// the core lock, so that the job checked is the job acted on).
func (s *Server) jobOp(name string, op func(r *http.Request, id string, auth func() error) (any, error)) handler {
	return func(_ http.ResponseWriter, r *http.Request) (int, any, error) {
		id := r.PathValue("id")
		got := hashToken(r.Header.Get("X-Job-Token"))
		auth := func() error { // s.mu held
			j, ok := s.core.Job(id)
			if !ok {
				return &apiError{http.StatusNotFound, "id", fmt.Sprintf("no job %q", clip(id))}
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(j.Spec.AuthHash)) != 1 {
				return &apiError{http.StatusForbidden, "X-Job-Token", "not this job's token"}
			}
			return nil
		}
		res, err := op(r, id, auth)
		if err != nil {
			return 0, nil, err
		}
		s.log.Debug(name, "job", id, "result", res)
		return 200, res, nil
	}
}

func (s *Server) acquire(r *http.Request, id string, auth func() error) (any, error) {
	var req api.AcquireRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.apply("acquire", req.Now, func(now float64) (any, error) {
		if err := auth(); err != nil {
			return nil, err
		}
		g, err := s.core.Acquire(now, coord.AcquireRequest{Job: id, RequestID: req.RequestID, Kind: req.Kind,
			Bytes: req.Bytes, TTL: req.TTL, LastCheckpoint: req.LastCheckpoint})
		if err == nil && g.Status == coord.StatusGranted {
			s.log.Info("granted", "job", id, "token", g.Token, "request_id", req.RequestID)
		}
		return g, err
	})
}

func (s *Server) renew(r *http.Request, id string, auth func() error) (any, error) {
	var req api.RenewRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.apply("renew", req.Now, func(now float64) (any, error) {
		if err := auth(); err != nil {
			return nil, err
		}
		return s.core.Renew(now, id, req.Token)
	})
}

func (s *Server) release(r *http.Request, id string, auth func() error) (any, error) {
	var req api.ReleaseRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.apply("release", req.Now, func(now float64) (any, error) {
		if err := auth(); err != nil {
			return nil, err
		}
		return s.core.Release(now, id, req.Token, req.Duration)
	})
}

func (s *Server) cancel(r *http.Request, id string, auth func() error) (any, error) {
	var req api.CancelRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.apply("cancel", req.Now, func(now float64) (any, error) {
		if err := auth(); err != nil {
			return nil, err
		}
		return s.core.Cancel(now, id, req.RequestID)
	})
}

func (s *Server) done(r *http.Request, id string, auth func() error) (any, error) {
	var req api.DoneRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.apply("done", req.Now, func(now float64) (any, error) {
		if err := auth(); err != nil {
			return nil, err
		}
		if err := s.core.Done(now, id, req.Failed); err != nil {
			return nil, err
		}
		return api.DoneResponse{Job: id, Status: "done", Granted: slices.Clone(s.core.Granted())}, nil
	})
}
