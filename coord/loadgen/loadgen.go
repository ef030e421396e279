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
	Duration   time.Duration // measured time after registration (> 0)
	Prefix     string        // job id prefix (distinct runs on one server; default lgNANOS-, from the clock)
	// Sources spreads the clients over this many loopback source
	// addresses, 127.0.0.1 … 127.0.0.Sources (0 or 1: the system's
	// choice), so that a server's per-address rate limit applies to each
	// share of the clients rather than to all of them. Linux routes all of
	// 127.0.0.0/8 to the loopback interface; the server must listen on
	// loopback. At most the clients in use (min(Clients, Jobs)): a
	// source without a client would send nothing.
	Sources int
}

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
	case o.URL == "":
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
// failed.
var ErrFailed = errors.New("loadgen: requests failed")

// Result of a load run.
type Result struct {
	Jobs      int `json:"jobs"`
	Clients   int `json:"clients"`
	Decisions int `json:"decisions"` // requests answered (errors excluded)
	Grants    int `json:"grants"`
	Errors    int `json:"errors"` // requests that failed
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
	if r.RateLimited > 0 {
		s += fmt.Sprintf(" (%d refused by the server's per-address rate limit: spread the clients with --sources, or raise the server's --rate)", r.RateLimited)
	}
	return s
}

type job struct {
	id, token string
	rid       string // outstanding request
	lease     uint64
	n         int
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
	}
	for i := range cls {
		tr := &http.Transport{MaxIdleConns: o.Clients * 2, MaxIdleConnsPerHost: o.Clients * 2}
		d := &net.Dialer{}
		if o.Sources > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(i+1))}
		}
		tr.DialContext, dials[i] = d.DialContext, d.DialContext
		defer tr.CloseIdleConnections()
		cls[i] = &client.Client{Base: o.URL, Token: o.Token, HTTP: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Retries: retries}
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
	if err := register(ctx, o, cls, jobs); err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	lat := make([][]float32, o.Clients)
	grants, errs, limited := make([]int, o.Clients), make([]int, o.Clients), make([]int, o.Clients)
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
			for i := 0; runCtx.Err() == nil; i++ {
				j := mine[i%len(mine)]
				t0 := time.Now()
				granted, err := step(runCtx, drivers[w], j)
				if runCtx.Err() != nil {
					return
				}
				if err != nil {
					errs[w]++
					if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Status == http.StatusTooManyRequests {
						limited[w]++
					}
					continue
				}
				lat[w] = append(lat[w], float32(time.Since(t0).Seconds()))
				if granted {
					grants[w]++
				}
			}
		}()
	}
	wg.Wait()
	r := Result{Jobs: o.Jobs, Clients: o.Clients, Seconds: time.Since(start).Seconds(), Sources: o.Sources}
	var all []float64
	for w := range lat {
		for _, x := range lat[w] {
			all = append(all, float64(x))
		}
		r.Grants += grants[w]
		r.Errors += errs[w]
		r.RateLimited += limited[w]
	}
	r.Decisions = len(all)
	r.PerSecond = float64(r.Decisions) / r.Seconds
	slices.Sort(all)
	if len(all) > 0 {
		r.P50, r.P99 = distribution.SampleQuantile(all, 0.5), distribution.SampleQuantile(all, 0.99)
		r.Max = all[len(all)-1]
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if r.Errors > 0 {
		return r, fmt.Errorf("%w: %d of %d", ErrFailed, r.Errors, r.Errors+r.Decisions)
	}
	return r, nil
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

// step advances job j by one request: next, acquire or poll, release.
func step(ctx context.Context, d driver, j *job) (granted bool, err error) {
	switch {
	case j.lease != 0:
		err = d.release(ctx, j)
		j.lease = 0
	case j.rid != "":
		var g coord.Grant
		g, err = d.acquire(ctx, j)
		if err == nil && g.Status != coord.StatusWaiting {
			j.rid = ""
			if g.Status == coord.StatusGranted {
				j.lease, granted = g.Token, true
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
			j.rid, j.lease, granted = "", g.Token, true
		}
	}
	if err != nil {
		j.rid, j.lease = "", 0
	}
	return granted, err
}
