package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/output"
)

// apiError is a refusal of the server itself (the core's are
// *coord.Error): its code, which is its status, and the field at fault.
type apiError struct {
	code  api.Code
	field string
	msg   string
}

func (e *apiError) Error() string { return e.msg }

func refuse(code api.Code, field, format string, a ...any) *apiError {
	return &apiError{code, field, fmt.Sprintf(format, a...)}
}

func bad(field, format string, a ...any) *apiError {
	return refuse(api.CodeInvalid, field, format, a...)
}

// errorBody is the answer to err: a server refusal as is, a core
// refusal by its kind (fields named as the API names them), anything
// else an internal error.
func errorBody(err error) api.ErrorBody {
	var ae *apiError
	var ce *coord.Error
	switch {
	case errors.As(err, &ae):
		return api.ErrorBody{Error: ae.msg, Code: ae.code, Field: ae.field}
	case errors.As(err, &ce):
		return api.ErrorBody{Error: ce.Msg, Code: api.CodeOf(ce.Kind), Field: api.Field(ce.Field)}
	}
	return api.ErrorBody{Error: err.Error(), Code: api.CodeInternal}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("GET /readyz", s.readyz)
	m.Handle("GET /metrics", s.metrics.handler(s.reg))
	m.HandleFunc("GET /v1/status", s.guard(s.status))
	m.HandleFunc("POST /v1/jobs", s.guard(s.register))
	m.HandleFunc("GET /v1/jobs/{id}", s.guard(s.getJob))
	m.HandleFunc("POST /v1/jobs/{id}/next", s.guard(s.next))
	m.HandleFunc("POST /v1/jobs/{id}/acquire", s.guard(jobOp(s, "acquire", s.acquire)))
	m.HandleFunc("POST /v1/jobs/{id}/renew", s.guard(jobOp(s, "renew", s.renew)))
	m.HandleFunc("POST /v1/jobs/{id}/release", s.guard(jobOp(s, "release", s.release)))
	m.HandleFunc("POST /v1/jobs/{id}/cancel", s.guard(jobOp(s, "cancel", s.cancel)))
	m.HandleFunc("POST /v1/jobs/{id}/done", s.guard(jobOp(s, "done", s.done)))
	m.HandleFunc("POST /v1/members", s.guard(func(r *http.Request) (any, error) { return s.members(r, true) }))
	m.HandleFunc("DELETE /v1/members/{id}", s.guard(func(r *http.Request) (any, error) { return s.members(r, false) }))
	if s.opt.Pprof {
		m.HandleFunc("GET /debug/pprof/", s.authOnly(pprof.Index))
		m.HandleFunc("GET /debug/pprof/cmdline", s.authOnly(pprof.Cmdline))
		m.HandleFunc("GET /debug/pprof/profile", s.authOnly(pprof.Profile))
		m.HandleFunc("GET /debug/pprof/symbol", s.authOnly(pprof.Symbol))
		m.HandleFunc("GET /debug/pprof/trace", s.authOnly(pprof.Trace))
	}
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, refuse(api.CodeNotFound, "path", "no endpoint %s %s", r.Method, clip(r.URL.Path)))
	})
	s.mux = m
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// handler answers a request with the body of a 200 or an error.
type handler func(r *http.Request) (any, error)

// authOnly serves h to a request with a bearer token of the API (the
// profiler: no rate limit, no body, answers that are not JSON).
func (s *Server) authOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorised(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ckpt"`)
			s.finish(w, r, time.Now(), nil, refuse(api.CodeUnauthorized, "Authorization", "missing or unknown bearer token"))
			return
		}
		h(w, r)
	}
}

// guard applies authentication, then the rate limit (so that requests
// without a token cannot starve the jobs that have one), then the body
// limit, and writes the answer or the error.
func (s *Server) guard(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if !s.authorised(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ckpt"`)
			s.finish(w, r, start, nil, refuse(api.CodeUnauthorized, "Authorization", "missing or unknown bearer token"))
			return
		}
		if s.limiter != nil {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			if !s.limiter.allow(host, start) {
				w.Header().Set("Retry-After", "1")
				s.finish(w, r, start, nil, refuse(api.CodeRateLimited, "", "rate limit exceeded"))
				return
			}
		}
		if s.redirect(w, r) {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBody)
		body, err := h(r)
		s.finish(w, r, start, body, err)
	}
}

func (s *Server) finish(w http.ResponseWriter, r *http.Request, start time.Time, body any, err error) {
	code := http.StatusOK
	if err != nil {
		code = writeErr(w, err)
		s.log.Info("refused", "method", r.Method, "path", clip(r.URL.Path), "status", code, "err", err.Error())
	} else {
		writeJSON(w, code, body)
	}
	s.metrics.request(code, time.Since(start))
}

// contentJSON is the Content-Type of every answer (shared: Header.Set
// would allocate it per answer).
var contentJSON = []string{"application/json"}

// writeJSON writes v as JSON and a newline (json.Marshal's bytes; the
// hot path's answers appended by hand, appendAnswer).
func writeJSON(w http.ResponseWriter, code int, v any) {
	buf := bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer putBuf(buf)
	if b, ok := appendAnswer(buf.AvailableBuffer(), v); ok {
		buf.Write(b)
	} else if err := json.NewEncoder(buf).Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"encoding the answer failed","code":"internal"}` + "\n")
	}
	w.Header()["Content-Type"] = contentJSON
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// writeErr writes the JSON error answer to err and returns its status.
func writeErr(w http.ResponseWriter, err error) int {
	body := errorBody(err)
	code := body.Code.Status()
	writeJSON(w, code, body)
	return code
}

// bufs are the buffers of request and answer bodies, reused.
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		bufs.Put(b)
	}
}

// decode reads one JSON object into the struct *v, refusing unknown
// fields, values of the wrong type, trailing data and oversized bodies,
// each with the field named. Each key is decoded on its own into the
// field whose json name it is, so an error belongs to its key.
//
// A hot request's flat body is read by hand (fastDecode, json's values);
// a body whose top-level keys are all exactly the json names of v's
// fields is decoded in one pass (json.Unmarshal); anything else, or any
// error, takes the key-by-key path, which names the field at fault.
func decode(r *http.Request, v any) error {
	buf := bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer putBuf(buf)
	if _, err := buf.ReadFrom(r.Body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return refuse(api.CodeTooLarge, "body", "body larger than %d bytes", mbe.Limit)
		}
		return bad("body", "reading the body: %v", err)
	}
	return decodeBody(buf.Bytes(), v)
}

// decodeBody is decode of the body b: the hot requests' flat objects by
// hand (fastDecode), else as described at decode.
func decodeBody(b []byte, v any) error {
	// no body (blank as before, any Unicode space), or an empty object
	// within JSON's four whitespace bytes alone (json.Unmarshal's verdict
	// too: no field set, no error; "\f{}" stays invalid JSON)
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.Trim(b, " \t\r\n")) == "{}" || fastDecode(b, v) {
		return nil
	}
	rt := reflect.TypeOf(v).Elem()
	if exactKeys(b, jsonNames(rt)) && json.Unmarshal(b, v) == nil {
		return nil
	}
	return decodeKeys(b, v)
}

// decodeKeys is decode's key-by-key path.
func decodeKeys(b []byte, v any) error {
	var obj map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return bad("body", "invalid JSON at byte %d: %v", se.Offset, se)
		}
		return bad("body", "want a JSON object")
	}
	if d.More() {
		return bad("body", "trailing data after the JSON object")
	}
	rv := reflect.ValueOf(v).Elem()
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i := fieldIndex(rv.Type(), k)
		if i < 0 {
			return bad(clip(k), "unknown field")
		}
		if err := json.Unmarshal(obj[k], rv.Field(i).Addr().Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return bad(k, "want %s, got JSON %s", te.Type.Kind(), te.Value)
			}
			return bad(k, "%s", clip(err.Error()))
		}
	}
	return nil
}

// fieldIndex is the index of t's field whose json name is name, -1 if
// none.
func fieldIndex(t reflect.Type, name string) int {
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name && tag != "-" {
			return i
		}
	}
	return -1
}

// now resolves the request's time.
func (s *Server) now(given *float64) (float64, error) {
	if s.opt.ClientClock {
		if given == nil {
			return 0, bad("now_s", "required: the server runs on the client's clock")
		}
		if math.IsNaN(*given) || math.IsInf(*given, 0) || *given < 0 || *given > 1e15 {
			return 0, bad("now_s", "%v must be in [0, 1e15]", *given)
		}
		return *given, nil
	}
	if given != nil {
		return 0, bad("now_s", "only in simulation mode (the server runs on its own clock)")
	}
	return s.wallNow(), nil
}

// apply runs f on the core under the lock at the request's time, commits
// the changes and returns f's result once they are committed.
func apply[T any](s *Server, op string, given *float64, f func(now float64) (T, error)) (T, error) {
	var zero T
	s.mu.Lock()
	now, err := s.now(given)
	if err != nil {
		s.mu.Unlock()
		return zero, err
	}
	t0 := time.Now()
	res, err := f(now)
	s.metrics.decision(op, time.Since(t0))
	ack := s.submit()
	s.mu.Unlock()
	if cerr := s.settle(ack); cerr != nil {
		return zero, cerr
	}
	return res, err
}

// settle waits for ack (nil: nothing pending) and maps a failed commit
// to 503.
func (s *Server) settle(ack <-chan error) error {
	if ack != nil && s.wait(ack) != nil {
		return refuse(api.CodeUnavailable, "", "the database commit failed; the request was not done (retry)")
	}
	return nil
}

// status shows the coordinator at the wall time, or with the client's
// clock at ?now= or else the latest time a request carried.
func (s *Server) status(r *http.Request) (any, error) {
	var given *float64
	if q := r.URL.Query().Get("now"); q != "" {
		v, err := strconv.ParseFloat(q, 64)
		if err != nil {
			return nil, bad("now", "%q is not a number", clip(q))
		}
		given = &v
	}
	s.mu.Lock()
	st := s.core.Stats()
	now := st.Meta.Now
	var err error
	if given != nil || !s.opt.ClientClock {
		now, err = s.now(given)
	}
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	mtbf := s.core.NodeMTBF(now)
	ack := s.writer.Barrier() // show only committed state
	s.mu.Unlock()
	if err := s.settle(ack); err != nil {
		return nil, err
	}
	v := api.StatusView{Policy: s.opt.Config.Policy.Name, Bandwidth: s.opt.Config.Bandwidth, Jobs: st.Jobs,
		Waiting: st.Waiting, Holders: st.Holders, NodeMTBF: output.Number(mtbf), Counters: api.ViewCounters(st.Meta), Now: now}
	if s.group == nil {
		return v, nil
	}
	return statusView{v, s.group.GroupStatus()}, nil
}

func (s *Server) register(r *http.Request) (any, error) {
	var req api.RegisterRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	tok, issued := req.JobToken, false
	if tok == "" {
		tok, issued = newJobToken(), true
	} else if len(tok) < 16 || len(tok) > 128 {
		return nil, bad("job_token", "must be 16-128 characters")
	}
	spec := req.Spec()
	spec.AuthHash = hashToken(tok)
	j, err := apply(s, "register", req.Now, func(now float64) (coord.Job, error) { return s.core.Register(now, spec) })
	if err != nil {
		return nil, err
	}
	s.log.Info("registered", "job", j.Spec.ID, "nodes", j.Spec.Nodes)
	out := api.RegisterResponse{Job: api.ViewJob(j)}
	if issued {
		out.JobToken = tok
	}
	return out, nil
}

func (s *Server) getJob(r *http.Request) (any, error) {
	s.mu.Lock()
	j, ok := s.core.Job(r.PathValue("id"))
	ack := s.writer.Barrier() // show only committed state
	s.mu.Unlock()
	if err := s.settle(ack); err != nil {
		return nil, err
	}
	if !ok {
		return nil, refuse(api.CodeNotFound, "id", "no job %q", clip(r.PathValue("id")))
	}
	return api.ViewJob(j), nil
}

func (s *Server) next(r *http.Request) (any, error) {
	var req api.NowRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return apply(s, "next", req.Now, func(now float64) (api.AdviceView, error) {
		a, err := s.core.Next(now, r.PathValue("id"))
		return api.ViewAdvice(a, now), err
	})
}

// jobOp runs op for job id; op's core call must first run auth.check
// (under the core lock, so that the job checked is the job acted on).
func jobOp[T any](s *Server, name string, op func(r *http.Request, id string, auth jobAuth) (T, error)) handler {
	return func(r *http.Request) (any, error) {
		id := r.PathValue("id")
		auth := jobAuth{s: s, id: id}
		sum := sha256.Sum256([]byte(r.Header.Get("X-Job-Token")))
		hex.Encode(auth.got[:], sum[:])
		res, err := op(r, id, auth)
		if err != nil {
			return nil, err
		}
		if s.log.Enabled(r.Context(), slog.LevelDebug) { // the arguments alone allocate
			s.log.Debug(name, "job", id, "result", res)
		}
		return res, nil
	}
}

// jobAuth is a request's claim to act for job id: the hex SHA-256 of its
// X-Job-Token (hashToken's, without a string). A value handed down to the
// core call, where a closure over it cost two allocations per request.
type jobAuth struct {
	s   *Server
	id  string
	got [2 * sha256.Size]byte
}

// check (s.mu held) refuses an unknown job (an ended one is known: its
// done is replayed) and a token that is not the job's.
func (a *jobAuth) check() error {
	hash, ok := a.s.core.AuthHash(a.id)
	if !ok {
		return refuse(api.CodeNotFound, "id", "no job %q", clip(a.id))
	}
	if subtle.ConstantTimeCompare(a.got[:], []byte(hash)) != 1 {
		return refuse(api.CodeForbidden, "X-Job-Token", "not this job's token")
	}
	return nil
}

func (s *Server) acquire(r *http.Request, id string, auth jobAuth) (coord.Grant, error) {
	var req api.AcquireRequest
	if err := decode(r, &req); err != nil {
		return coord.Grant{}, err
	}
	return apply(s, "acquire", req.Now, func(now float64) (coord.Grant, error) {
		if err := auth.check(); err != nil {
			return coord.Grant{}, err
		}
		g, err := s.core.Acquire(now, coord.AcquireRequest{Job: id, RequestID: req.RequestID, Kind: req.Kind,
			Bytes: req.Bytes, TTL: req.TTL, LastCheckpoint: req.LastCheckpoint})
		if err == nil && g.Status == coord.StatusGranted {
			s.log.Info("granted", "job", id, "token", g.Token, "request_id", req.RequestID)
		}
		return g, err
	})
}

func (s *Server) renew(r *http.Request, id string, auth jobAuth) (coord.Grant, error) {
	var req api.RenewRequest
	if err := decode(r, &req); err != nil {
		return coord.Grant{}, err
	}
	return apply(s, "renew", req.Now, func(now float64) (coord.Grant, error) {
		if err := auth.check(); err != nil {
			return coord.Grant{}, err
		}
		return s.core.Renew(now, id, req.Token)
	})
}

func (s *Server) release(r *http.Request, id string, auth jobAuth) (coord.Grant, error) {
	var req api.ReleaseRequest
	if err := decode(r, &req); err != nil {
		return coord.Grant{}, err
	}
	return apply(s, "release", req.Now, func(now float64) (coord.Grant, error) {
		if err := auth.check(); err != nil {
			return coord.Grant{}, err
		}
		return s.core.Release(now, id, req.Token, req.Duration)
	})
}

func (s *Server) cancel(r *http.Request, id string, auth jobAuth) (coord.Grant, error) {
	var req api.CancelRequest
	if err := decode(r, &req); err != nil {
		return coord.Grant{}, err
	}
	return apply(s, "cancel", req.Now, func(now float64) (coord.Grant, error) {
		if err := auth.check(); err != nil {
			return coord.Grant{}, err
		}
		return s.core.Cancel(now, id, req.RequestID)
	})
}

func (s *Server) done(r *http.Request, id string, auth jobAuth) (api.DoneResponse, error) {
	var req api.DoneRequest
	if err := decode(r, &req); err != nil {
		return api.DoneResponse{}, err
	}
	return apply(s, "done", req.Now, func(now float64) (api.DoneResponse, error) {
		if err := auth.check(); err != nil {
			return api.DoneResponse{}, err
		}
		if err := s.core.Done(now, id, req.Failed); err != nil {
			return api.DoneResponse{}, err
		}
		return api.DoneResponse{Job: id, Status: "done", Granted: slices.Clone(s.core.Granted())}, nil
	})
}
