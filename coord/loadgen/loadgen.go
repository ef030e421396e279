package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/client"
	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// Options of a load run.
type Options struct {
	URL, Token string
	Jobs       int           // simulated jobs (registered first)
	Workers    int           // concurrent HTTP clients; each drives Jobs/Workers jobs
	Duration   time.Duration // measured time after registration
	Prefix     string        // job id prefix (distinct runs on one server)
}

// Result of a load run.
type Result struct {
	Jobs      int     `json:"jobs"`
	Workers   int     `json:"workers"`
	Decisions int     `json:"decisions"` // requests answered (errors excluded)
	Grants    int     `json:"grants"`
	Errors    int     `json:"errors"` // requests that failed
	Seconds   float64 `json:"duration_s"`
	PerSecond float64 `json:"decisions_per_second"`
	// Latency quantiles of the answered requests, seconds.
	P50 float64 `json:"p50_s"`
	P99 float64 `json:"p99_s"`
	Max float64 `json:"max_s"`
}

type job struct {
	id, token string
	rid       string // outstanding request
	lease     uint64
	n         int
}

// Run registers the jobs and drives them for Duration (or until ctx ends).
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Jobs < 1 || o.Workers < 1 || o.Duration <= 0 {
		return Result{}, errors.New("loadgen: jobs, workers and duration must be positive")
	}
	o.Workers = min(o.Workers, o.Jobs)
	tr := &http.Transport{MaxIdleConns: o.Workers * 2, MaxIdleConnsPerHost: o.Workers * 2}
	defer tr.CloseIdleConnections()
	cl := &client.Client{Base: o.URL, Token: o.Token, HTTP: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Retries: -1}
	jobs := make([]*job, o.Jobs)
	for i := range jobs {
		jobs[i] = &job{id: fmt.Sprintf("%s%d", o.Prefix, i), token: fmt.Sprintf("loadgen-token-%d-0123456789", i)}
		spec := api.RegisterRequest{ID: jobs[i].id, Nodes: 1 + i%64, Bytes: float64(1+i%16) * 1e9, MTBF: 86400, JobToken: jobs[i].token}
		if _, err := cl.Register(ctx, spec); err != nil {
			return Result{}, fmt.Errorf("registering %s: %w", jobs[i].id, err)
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	lat := make([][]float32, o.Workers)
	grants, errs := make([]int, o.Workers), make([]int, o.Workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*job // jobs w, w+W, w+2W, …: each job has one driver
			for i := w; i < o.Jobs; i += o.Workers {
				mine = append(mine, jobs[i])
			}
			for i := 0; runCtx.Err() == nil; i++ {
				j := mine[i%len(mine)]
				t0 := time.Now()
				granted, err := step(runCtx, cl, j)
				if runCtx.Err() != nil {
					return
				}
				lat[w] = append(lat[w], float32(time.Since(t0).Seconds()))
				if err != nil {
					errs[w]++
				}
				if granted {
					grants[w]++
				}
			}
		}()
	}
	wg.Wait()
	r := Result{Jobs: o.Jobs, Workers: o.Workers, Seconds: time.Since(start).Seconds()}
	var all []float64
	for w := range lat {
		for _, x := range lat[w] {
			all = append(all, float64(x))
		}
		r.Grants += grants[w]
		r.Errors += errs[w]
	}
	r.Decisions = len(all)
	r.PerSecond = float64(r.Decisions) / r.Seconds
	slices.Sort(all)
	if len(all) > 0 {
		r.P50, r.P99 = distribution.SampleQuantile(all, 0.5), distribution.SampleQuantile(all, 0.99)
		r.Max = all[len(all)-1]
	}
	return r, ctx.Err()
}

// step advances job j by one request: next, acquire or poll, release.
func step(ctx context.Context, cl *client.Client, j *job) (granted bool, err error) {
	switch {
	case j.lease != 0:
		_, err = cl.Release(ctx, j.id, j.token, j.lease, 0, nil)
		j.lease = 0
	case j.rid != "":
		var g coord.Grant
		g, err = cl.Acquire(ctx, j.id, j.token, api.AcquireRequest{RequestID: j.rid, Kind: arbiter.Checkpoint})
		if err == nil && g.Status != coord.StatusWaiting {
			j.rid = ""
			if g.Status == coord.StatusGranted {
				j.lease, granted = g.Token, true
			}
		}
	case j.n%2 == 0:
		_, err = cl.Next(ctx, j.id, nil)
		j.n++
	default:
		j.n++
		j.rid = fmt.Sprint("r", j.n)
		var g coord.Grant
		g, err = cl.Acquire(ctx, j.id, j.token, api.AcquireRequest{RequestID: j.rid, Kind: arbiter.Checkpoint})
		if err == nil && g.Status == coord.StatusGranted {
			j.rid, j.lease, granted = "", g.Token, true
		}
	}
	if err != nil {
		j.rid, j.lease = "", 0
	}
	return granted, err
}
