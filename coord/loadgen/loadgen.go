package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Options of a load run.
type Options struct {
	// URL and Token of the coordinator; URL empty: Run starts its own on
	// 127.0.0.1 with configuration Local on a new database in a
	// temporary folder (fsync on unless NoSync), and stops it at the end.
	// Several comma-separated URLs are the replicas of a replicated
	// coordinator: each request then goes through the Go client's
	// failover (it follows a 307 to the leader, goes to the next URL on a
	// connection error or a 503, and retries with the same body, so the
	// same request id), and its latency includes the retries. With one
	// URL a request is sent once: a failure is an error.
	URL, Token string
	Local      coord.Config
	NoSync     bool
	Jobs       int           // simulated jobs (registered first), 1..1e6
	Clients    int           // concurrent HTTP clients, 1..1e4; each drives Jobs/Clients jobs
	Duration   time.Duration // measured time after registration (> 0); with Checkpoints its bound
	Prefix     string        // job id prefix (distinct runs on one server; default lgNANOS-, from the clock)
	// Sources spreads the clients over this many loopback source
	// addresses, 127.0.0.1 … 127.0.0.Sources (0 or 1: the system's
	// choice), so that a server's per-address rate limit applies to each
	// share of the clients rather than to all of them. Linux routes all of
	// 127.0.0.0/8 to the loopback interface; the server must listen on
	// loopback. At most the clients in use (min(Clients, Jobs)): a
	// source without a client would send nothing.
	Sources int
	// Timeout bounds one request, its retries included (the client's
	// Timeout; 0: 10 s per attempt, no bound on the retries): ckpt coord
	// --timeout.
	Timeout time.Duration
	// Checkpoints, if > 0, is the finishing mode: each job registers,
	// then makes Checkpoints checkpoint cycles (next, acquire, polls until
	// granted, release) and ends (done). A client takes its jobs in turn
	// and stays with one for a whole cycle: it polls a waiting request
	// until the grant and releases a granted lease as its next request, so
	// it holds at most one request and one lease at a time. The run ends
	// when every job is done; Duration bounds it (after registration): a
	// run that hits the bound is an error counting the jobs left. 0: the
	// measuring mode, for Duration. At most MaxCheckpoints.
	Checkpoints int
	// Record, if not empty, is the file of the run's acknowledgements:
	// one JSON line (Ack) per acknowledged grant, release and done, in
	// the order they were acknowledged (each client's in its order),
	// streamed into a temporary file in the same folder and renamed to
	// Record when the run ends (failed runs included); a run that is
	// killed leaves no Record, never a part of one.
	Record string
}

// MaxCheckpoints bounds Options.Checkpoints.
const MaxCheckpoints = 1e6

// Validate checks the options; the error names the field.
func (o Options) Validate() error {
	switch {
	case o.Jobs < 1 || o.Jobs > 1e6:
		return usage.Fieldf("jobs", "%d must be in [1, 1e6]", o.Jobs)
	case o.Clients < 1 || o.Clients > 1e4:
		return usage.Fieldf("clients", "%d must be in [1, 1e4]", o.Clients)
	case o.Duration <= 0:
		return usage.Fieldf("duration", "%v must be > 0", o.Duration)
	case o.Sources < 0 || o.Sources > MaxSources:
		return usage.Fieldf("sources", "%d must be in [0, %d]", o.Sources, MaxSources)
	case o.Sources > min(o.Clients, o.Jobs):
		return usage.Fieldf("sources", "%d must be ≤ the clients in use (%d of --clients %d, --jobs %d): a source would send nothing",
			o.Sources, min(o.Clients, o.Jobs), o.Clients, o.Jobs)
	case o.Checkpoints < 0 || o.Checkpoints > MaxCheckpoints:
		return usage.Fieldf("checkpoints", "%d must be in [0, %d]", o.Checkpoints, int(MaxCheckpoints))
	}
	if err := validRecord(o.Record); err != nil {
		return err
	}
	if o.URL == "" {
		return o.Local.Validate()
	}
	for u := range strings.SplitSeq(o.URL, ",") {
		if o.Sources > 1 && !loopback(u) {
			return usage.Fieldf("sources", "%d loopback source addresses need a server on loopback, not %s", o.Sources, u)
		}
	}
	return nil
}

// loopback tells whether u's host is a loopback address or localhost.
func loopback(u string) bool {
	p, err := neturl.Parse(u)
	if err != nil {
		return false
	}
	ip := net.ParseIP(p.Hostname())
	return p.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())
}

// MaxSources bounds Options.Sources: 127.0.0.1 … 127.0.0.254.
const MaxSources = 254

// ErrFailed is returned, with the Result, by a run in which a request
// failed, or (finishing mode) that left jobs not done.
var ErrFailed = errors.New("loadgen: requests failed")

// jobsLeft is the error of a finishing run that left jobs: an ErrFailed.
type jobsLeft string

func (e jobsLeft) Error() string      { return string(e) }
func (jobsLeft) Is(target error) bool { return target == ErrFailed }

// Result of a load run.
type Result struct {
	Jobs      int `json:"jobs"`
	Clients   int `json:"clients"`
	Decisions int `json:"decisions"` // requests answered (errors excluded)
	Grants    int `json:"grants"`    // grants acknowledged
	Releases  int `json:"releases"`  // releases acknowledged
	// Checkpoints per job (finishing mode) and Dones, the dones
	// acknowledged: the jobs done (a job refused on the way is left).
	Checkpoints int `json:"checkpoints,omitempty"`
	Dones       int `json:"dones"`
	Errors      int `json:"errors"` // requests that failed
	// RateLimited of the Errors were refused by the server's rate limit
	// (429: the limit, per client address, not the server, bounded them).
	RateLimited int     `json:"rate_limited"`
	Sources     int     `json:"sources,omitempty"` // loopback source addresses
	Seconds     float64 `json:"duration_s"`
	PerSecond   float64 `json:"decisions_per_second"`
	// Latency quantiles of the answered requests, seconds.
	P50 float64 `json:"p50_s"`
	P99 float64 `json:"p99_s"`
	Max float64 `json:"max_s"`
}

// Text is the result in one line.
func (r Result) Text() string {
	s := fmt.Sprintf("%d jobs, %d clients: %d decisions in %.1fs = %.0f/s; latency p50 %.2f ms, p99 %.2f ms, max %.1f ms; %d grants, %d errors",
		r.Jobs, r.Clients, r.Decisions, r.Seconds, r.PerSecond, r.P50*1e3, r.P99*1e3, r.Max*1e3, r.Grants, r.Errors)
	if r.Checkpoints > 0 {
		s += fmt.Sprintf("; %d checkpoints each: %d releases, %d of %d jobs done", r.Checkpoints, r.Releases, r.Dones, r.Jobs)
	}
	if r.RateLimited > 0 {
		s += fmt.Sprintf(" (%d refused by the server's per-address rate limit: spread the clients with --sources, or raise the server's --rate)", r.RateLimited)
	}
	return s
}

type job struct {
	id, token string
	rid       string // outstanding request
	lease     uint64
	n         int  // next and acquire requests made (even: a next is due)
	cycles    int  // checkpoint cycles ended by a release (finishing mode)
	done      bool // its done was acknowledged (finishing mode)
}

// Run registers the jobs and drives them for Duration (or until ctx
// ends). A request that fails is an error, not a decision: its latency is
// not measured, and Run returns the Result with ErrFailed.
func Run(ctx context.Context, o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if o.Prefix == "" {
		o.Prefix = fmt.Sprintf("lg%d-", time.Now().UnixNano())
	}
	if o.URL == "" {
		dir, err := os.MkdirTemp("", "ckpt-loadgen")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(dir)
		url, stop, err := StartLocal(ctx, o.Local, dir, o.NoSync)
		if err != nil {
			return Result{}, err
		}
		defer stop()
		o.URL, o.Token = url, LocalToken
	}
	return drive(ctx, o)
}

func drive(ctx context.Context, o Options) (Result, error) {
	o.Clients = min(o.Clients, o.Jobs)
	cls := make([]*client.Client, max(o.Sources, 1)) // client w uses cls[w%len(cls)]
	dials := make([]func(context.Context, string, string) (net.Conn, error), len(cls))
	retries := -1 // one server: a failed request is an error
	if strings.Contains(o.URL, ",") {
		retries = 0 // the client's default for a group: about 9 s of backoff, enough for an election
		if o.Checkpoints > 0 {
			// a finishing run resends a failed request anyway: a budget of
			// about 29 s (60 retries, 0.5 s apart at most) keeps a slow
			// election from counting as a failure; Duration still bounds it
			retries = 60
		}
	}
	for i := range cls {
		tr := &http.Transport{MaxIdleConns: o.Clients * 2, MaxIdleConnsPerHost: o.Clients * 2}
		d := &net.Dialer{}
		if o.Sources > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(i+1))}
		}
		tr.DialContext, dials[i] = d.DialContext, d.DialContext
		defer tr.CloseIdleConnections()
		var rt http.RoundTripper = tr
		if o.Record != "" {
			rt = answered{tr}
		}
		cls[i] = &client.Client{Base: o.URL, Token: o.Token, HTTP: &http.Client{Transport: rt, Timeout: 10 * time.Second}, Retries: retries, Timeout: o.Timeout}
	}
	// the measured requests: one connection per client on one plain-http
	// server (wire), the Go client otherwise
	drivers := make([]driver, o.Clients)
	for w := range drivers {
		drivers[w] = viaClient{cls[w%len(cls)]}
		if retries < 0 {
			if wr, ok := newWire(o.URL, o.Token, dials[w%len(dials)]); ok {
				drivers[w] = wr
			}
		}
		defer drivers[w].close()
	}
	jobs := make([]*job, o.Jobs)
	for i := range jobs {
		jobs[i] = &job{id: fmt.Sprintf("%s%d", o.Prefix, i), token: fmt.Sprintf("loadgen-token-%d-0123456789", i)}
	}
	var rec *recorder
	if o.Record != "" {
		rec = &recorder{}
	}
	var r Result
	var bound bool // the run hit Duration
	var regErr error
	err := withRecord(o.Record, rec, func() error {
		if regErr = register(ctx, o, cls, jobs); regErr != nil {
			return regErr
		}
		r, bound = load(ctx, o, drivers, jobs, rec)
		return nil
	})
	switch {
	case err != nil && err != regErr:
		return r, fmt.Errorf("--record %s: %w", o.Record, err)
	case err != nil:
		return r, err
	case ctx.Err() != nil:
		return r, ctx.Err()
	}
	return r, r.verdict(o, bound, jobs)
}

// verdict is the error of a run that ended (bound: at o.Duration): jobs
// left in the finishing mode (the first few named), else failed requests,
// else nil.
func (r Result) verdict(o Options, bound bool, jobs []*job) error {
	if left := r.Jobs - r.Dones; o.Checkpoints > 0 && left > 0 {
		why := "within --duration " + o.Duration.String()
		if !bound {
			why = "(refused)"
		}
		failed := "requests"
		if r.Errors == 1 {
			failed = "request"
		}
		return jobsLeft(fmt.Sprintf("loadgen: %d of %d jobs not done %s: %s; %d %s failed", left, r.Jobs, why, firstLeft(jobs, left), r.Errors, failed))
	}
	if r.Errors > 0 {
		return fmt.Errorf("%w: %d of %d", ErrFailed, r.Errors, r.Errors+r.Decisions)
	}
	return nil
}

// namedLeft is how many of the jobs left an error names.
const namedLeft = 5

// firstLeft names the first jobs not done (registration order), with
// "and N more" after namedLeft of them; left is their number.
func firstLeft(jobs []*job, left int) string {
	var ids []string
	for _, j := range jobs {
		if !j.done && len(ids) < namedLeft {
			ids = append(ids, j.id)
		}
	}
	s := strings.Join(ids, ", ")
	if left > len(ids) {
		s += fmt.Sprintf(" and %d more", left-len(ids))
	}
	return s
}

// tally is one client's count of a run.
type tally struct {
	lat                                    []float32
	grants, releases, dones, errs, limited int
}

// fail counts a failed request.
func (c *tally) fail(err error) {
	c.errs++
	if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Status == http.StatusTooManyRequests {
		c.limited++
	}
}

// load drives the registered jobs for o.Duration (measuring mode) or
// until they are done (finishing mode) and returns the Result and whether
// the run hit o.Duration.
func load(ctx context.Context, o Options, drivers []driver, jobs []*job, rec *recorder) (Result, bool) {
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	tallies := make([]tally, o.Clients)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*job // jobs w, w+W, w+2W, …: each job has one driver
			for i := w; i < o.Jobs; i += o.Clients {
				mine = append(mine, jobs[i])
			}
			ctx, server := runCtx, func() string { return o.URL }
			if rec != nil {
				var answered string // the replica that answered the client's last request
				ctx = context.WithValue(runCtx, answeredKey{}, &answered)
				if _, ok := drivers[w].(viaClient); ok {
					server = func() string { return answered }
				}
			}
			c := &tally{}
			if o.Checkpoints > 0 {
				finish(ctx, drivers[w], mine, o.Checkpoints, c, rec.ack(w, server))
			} else {
				measure(ctx, drivers[w], mine, c, rec.ack(w, server))
			}
			tallies[w] = *c
		}()
	}
	wg.Wait()
	bound := runCtx.Err() != nil && ctx.Err() == nil
	r := Result{Jobs: o.Jobs, Clients: o.Clients, Seconds: time.Since(start).Seconds(), Sources: o.Sources, Checkpoints: o.Checkpoints}
	var all []float64
	for _, c := range tallies {
		for _, x := range c.lat {
			all = append(all, float64(x))
		}
		r.Grants += c.grants
		r.Releases += c.releases
		r.Dones += c.dones
		r.Errors += c.errs
		r.RateLimited += c.limited
	}
	r.Decisions = len(all)
	r.PerSecond = float64(r.Decisions) / r.Seconds
	slices.Sort(all)
	if len(all) > 0 {
		r.P50, r.P99 = distribution.SampleQuantile(all, 0.5), distribution.SampleQuantile(all, 0.99)
		r.Max = all[len(all)-1]
	}
	return r, bound
}

// measure is a client of the measuring mode: it takes its jobs in turn,
// one request each (step), until ctx ends.
func measure(ctx context.Context, d driver, mine []*job, c *tally, ack func(op, job string, token uint64)) {
	for i := 0; ctx.Err() == nil; i++ {
		j := mine[i%len(mine)]
		t0 := time.Now()
		op, token, err := step(ctx, d, j)
		if err != nil {
			if ctx.Err() != nil {
				return // ended by ctx, not failed: an answer read is counted below
			}
			c.fail(err)
			continue
		}
		c.lat = append(c.lat, float32(time.Since(t0).Seconds()))
		switch op {
		case OpGrant:
			c.grants++
		case OpRelease:
			c.releases++
		}
		if op != "" {
			ack(op, j.id, token)
		}
	}
}

// register registers the jobs, each client its own (jobs w, w+W, …,
// from its source address) and all clients at once, so that the
// registrations share group commits; a registration refused by the rate
// limit is retried after a pause. The first failure is the error.
func register(ctx context.Context, o Options, cls []*client.Client, jobs []*job) error {
	errc := make(chan error, o.Clients)
	for w := range o.Clients {
		go func() {
			cl := cls[w%len(cls)]
			for i := w; i < len(jobs); i += o.Clients {
				spec := api.RegisterRequest{ID: jobs[i].id, Nodes: 1 + i%64, Bytes: float64(1+i%16) * 1e9, MTBF: 86400, JobToken: jobs[i].token}
				for try := 0; ; try++ {
					_, err := cl.Register(ctx, spec)
					if ce := (*client.Error)(nil); try < 50 && errors.As(err, &ce) && ce.Status == http.StatusTooManyRequests {
						time.Sleep(100 * time.Millisecond) // the limit refused it: it was not done
						continue
					}
					if err != nil {
						errc <- fmt.Errorf("registering %s: %w", jobs[i].id, err)
						return
					}
					break
				}
			}
			errc <- nil
		}()
	}
	var first error
	for range o.Clients {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// step advances job j by one request: next, acquire or poll, release. It
// returns the write acknowledged (OpGrant, OpRelease or "") and its lease
// token.
func step(ctx context.Context, d driver, j *job) (op string, token uint64, err error) {
	switch {
	case j.lease != 0:
		err = d.release(ctx, j)
		if err == nil {
			op, token = OpRelease, j.lease
		}
		j.lease = 0
	case j.rid != "":
		var g coord.Grant
		g, err = d.acquire(ctx, j)
		if err == nil && g.Status != coord.StatusWaiting {
			j.rid = ""
			if g.Status == coord.StatusGranted {
				j.lease, op, token = g.Token, OpGrant, g.Token
			}
		}
	case j.n%2 == 0:
		err = d.next(ctx, j)
		j.n++
	default:
		j.n++
		j.rid = "r" + strconv.Itoa(j.n)
		var g coord.Grant
		g, err = d.acquire(ctx, j)
		if err == nil && g.Status == coord.StatusGranted {
			j.rid, j.lease, op, token = "", g.Token, OpGrant, g.Token
		}
	}
	if err != nil {
		j.rid, j.lease = "", 0
	}
	return op, token, err
}
