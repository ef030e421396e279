package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Server.
type Options struct {
	Config coord.Config
	// Store is the persistence: the bbolt file of store.Open, or any
	// store.Store (the server depends on nothing else of it).
	Store store.Store
	// Tokens are the accepted bearer tokens; none: no authentication
	// (NoAuth must then be set, to say so).
	Tokens []string
	NoAuth bool
	// ClientClock: requests carry "now" (simulation mode).
	ClientClock bool
	Logger      *slog.Logger
	MaxBody     int64   // bytes (64 KiB if zero)
	Rate        float64 // requests/s per client address (1000 if zero; < 0: unlimited)
	Burst       int     // bucket size (2×Rate if zero)
	// Clock returns the wall time (time.Now if nil).
	Clock func() time.Time
	// CommitWait bounds how long a commit waits for more changes to join
	// its batch (store.Writer's MaxWait; 0: commit at once).
	CommitWait time.Duration
	// Pprof serves the Go profiler at /debug/pprof/, behind the same
	// bearer tokens as the API.
	Pprof bool
}

// Server is a running coordinator.
type Server struct {
	opt     Options
	mu      sync.Mutex
	core    *coord.Coordinator
	writer  *store.Writer
	log     *slog.Logger
	tokens  [][32]byte
	limiter *limiter
	metrics *metrics
	reg     *prometheus.Registry
	failed  chan error // a commit failed: stop serving
	failMu  sync.Once
	mux     *http.ServeMux
	group   Group // the replica group (nil: a single server)
}

// New loads the state from the store, restores the core and returns the
// server (not yet listening).
func New(opt Options) (*Server, error) {
	if opt.Store == nil {
		return nil, errors.New("server: no store")
	}
	if len(opt.Tokens) == 0 && !opt.NoAuth {
		return nil, errors.New("server: no bearer token (give a token file)")
	}
	if opt.MaxBody == 0 {
		opt.MaxBody = 64 << 10
	}
	if opt.Rate == 0 {
		opt.Rate = 1000
	}
	if opt.Burst == 0 {
		opt.Burst = int(2 * opt.Rate)
	}
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	meta, jobs, err := opt.Store.Load()
	if err != nil {
		return nil, err
	}
	core, err := coord.Restore(opt.Config, meta, jobs)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", opt.Store.Name(), err)
	}
	s := &Server{opt: opt, core: core, writer: store.NewWriterWait(opt.Store, opt.CommitWait), log: opt.Logger,
		failed: make(chan error, 1)}
	s.group, _ = opt.Store.(Group)
	for _, t := range opt.Tokens {
		s.tokens = append(s.tokens, sha256.Sum256([]byte(t)))
	}
	if opt.Rate > 0 {
		s.limiter = newLimiter(opt.Rate, float64(opt.Burst))
	}
	s.reg = prometheus.NewRegistry()
	s.metrics = newMetrics(s.reg, s.stats, func() store.WriterStats { return s.writer.Stats() })
	if c, ok := opt.Store.(interface{ Collectors() []prometheus.Collector }); ok {
		s.reg.MustRegister(c.Collectors()...) // a replica's raft metrics
	}
	s.routes()
	st := core.Stats()
	s.log.Info("coordinator restored", "db", opt.Store.Name(), "policy", opt.Config.Policy.Name,
		"jobs", st.Jobs, "waiting", st.Waiting, "holders", st.Holders, "token", st.Meta.Token)
	return s, nil
}

func (s *Server) stats() coord.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Stats()
}

// ServeHTTP answers one request: a Server is the coordinator's
// http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Serve answers on ln until ctx is done (then shuts down gracefully,
// letting requests in flight finish for up to 5 s) or the state cannot
// be reloaded after a failed commit.
// It closes the writer; the caller closes the store.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// handlers see a context cancelled when the server stops, so a long
	// one (a CPU profile of --pprof) ends at once: Ctrl-C stops the
	// server within a second
	hctx, hcancel := context.WithCancel(context.Background())
	defer hcancel()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return hctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	stopTick := make(chan struct{})
	var tickWG sync.WaitGroup
	if !s.opt.ClientClock {
		tickWG.Add(1)
		go func() { defer tickWG.Done(); s.ticker(stopTick) }()
	}
	if s.group != nil {
		tickWG.Add(1)
		go func() { defer tickWG.Done(); s.follow(stopTick) }()
	}
	s.log.Info("listening", "addr", ln.Addr().String(), "client_clock", s.opt.ClientClock)
	var err error
	select {
	case <-ctx.Done():
	case err = <-s.failed:
	case err = <-errc:
	}
	close(stopTick)
	tickWG.Wait()
	hcancel()
	sctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	if e := hs.Shutdown(sctx); e != nil {
		hs.Close() // a handler that ignores its context: cut its connection
	}
	s.writer.Close()
	s.log.Info("stopped", "err", err)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ticker expires leases on the wall clock when no request comes.
func (s *Server) ticker(stop <-chan struct{}) {
	period := time.Duration(s.opt.Config.TTL * float64(time.Second) / 4)
	period = min(max(period, 10*time.Millisecond), time.Second)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if s.group != nil {
				if leader, _ := s.group.Role(); !leader {
					continue // expiries are the leader's, applied as its entries
				}
			}
			s.mu.Lock()
			s.core.Tick(s.wallNow())
			ack := s.submit()
			s.mu.Unlock()
			if ack != nil {
				s.wait(ack)
			}
		}
	}
}

func (s *Server) wallNow() float64 {
	return float64(s.opt.Clock().UnixNano()) / 1e9
}

// submit queues the core's changes (s.mu held). With none, it returns
// the writer's barrier: the answer may show state that an earlier request
// changed and that is still being committed. Nil when nothing is pending.
func (s *Server) submit() <-chan error {
	ch := s.core.TakeChanges()
	if ch.Empty() {
		return s.writer.Barrier()
	}
	s.metrics.observeChanges(ch)
	return s.writer.Submit(ch)
}

// wait waits for a commit; a failed one is rolled back (rollback)
// and fails its request.
func (s *Server) wait(ack <-chan error) error {
	if err := <-ack; err != nil {
		s.rollback()
		return err
	}
	return nil
}

// rollback rebuilds the core from the store after a failed commit: the
// changes of the failed batch and of every later one were not committed,
// so the state goes back to the last committed one and the requests that
// made them fail (503, to be retried). Only a store that cannot be read
// back stops the server.
func (s *Server) rollback() {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.writer.Reset()
	if err == nil {
		return // recovered already by another request
	}
	s.log.Error("commit failed: the state goes back to the last commit", "err", err)
	meta, jobs, lerr := s.opt.Store.Load()
	var core *coord.Coordinator
	if lerr == nil {
		core, lerr = coord.Restore(s.opt.Config, meta, jobs)
	}
	if lerr != nil {
		s.failMu.Do(func() {
			s.log.Error("reloading the state failed: stopping", "err", lerr)
			s.failed <- lerr
		})
		return
	}
	s.core = core
}

func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

func newJobToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) authorised(r *http.Request) bool {
	if s.opt.NoAuth {
		return true
	}
	scheme, tok, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" { // the scheme is case-insensitive (RFC 9110 11.1)
		return false
	}
	got := sha256.Sum256([]byte(tok))
	ok := 0
	for _, t := range s.tokens {
		ok |= subtle.ConstantTimeCompare(got[:], t[:])
	}
	return ok == 1
}
