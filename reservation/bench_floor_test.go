package reservation

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// defaultPlanOptions is what `ckpt reserve` asks with no arguments: the
// paper's neuroscience LogNormal, C = R = 600 s, ε = 1, baselines and the
// certified lower bound.
func defaultPlanOptions(b *testing.B) (distribution.Distribution, Options) {
	d, err := distribution.Parse("lognormal:mean=21.4h,sd=19.7h")
	if err != nil {
		b.Fatal(err)
	}
	return d, Options{Costs: Costs{Alpha: 1, C: 600, R: 600}, Algorithm: AlgoDynProgCount, Epsilon: 1,
		MaxN: DefaultMaxN, Baselines: true, LowerBound: true}
}

// BenchmarkReserveDefault is `ckpt reserve` with no arguments, in process
// (n = 16 653: the plan's dynamic program, the lower bound read off it, and
// the baselines), at GOMAXPROCS 1 and 2.
func BenchmarkReserveDefault(b *testing.B) { benchReserveDefault(b, false) }

// BenchmarkReserveDefaultBusyCore is BenchmarkReserveDefault while a
// competing process keeps one core busy: two workers must not be slower
// than one.
func BenchmarkReserveDefaultBusyCore(b *testing.B) { benchReserveDefault(b, true) }

func benchReserveDefault(b *testing.B, busy bool) {
	d, o := defaultPlanOptions(b)
	if busy {
		defer busyCore(b)()
	}
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			defer reportProcessCPU(b)()
			for b.Loop() {
				if _, err := PlanContext(context.Background(), d, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPipeline is one DynProgCount at n = 16 653 (a discrete law: one
// solve, its rows pipelined over GOMAXPROCS workers), on a quiet machine
// and with a competing process keeping one core busy.
func BenchmarkPipeline(b *testing.B) {
	values, probs := benchLaw(16653)
	for _, busy := range []bool{false, true} {
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("busy=%v/procs=%d", busy, procs), func(b *testing.B) {
				if busy {
					defer busyCore(b)()
				}
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				defer reportProcessCPU(b)()
				for b.Loop() {
					if _, _, err := DynProgCount(values, probs, benchCosts, Mixed); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// busyCore starts a process that keeps one core busy (a shell busy loop)
// and returns the function that stops it.
func busyCore(b *testing.B) func() {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		b.Skip("no shell for the busy loop:", err)
	}
	return func() { _ = busy.Process.Kill(); _ = busy.Wait() }
}

// BenchmarkHullDP is one sequential solve of the mixed class (no
// pipelining) on a smooth law: n²/2 inner steps. Divide ns/op by n²/2 for
// the cost of an inner step.
//
// The sub-benchmark "reserve" is the plan's dynamic program of `ckpt
// reserve` with no arguments (the discretised neuroscience LogNormal,
// n = 16 653, C = R = 600 s), whose steps pop far fewer lines and move the
// query more often than the smooth law's.
func BenchmarkHullDP(b *testing.B) {
	type law struct {
		name string
		sup  *support
		c    Costs
	}
	var laws []law
	for _, n := range []int{2000, 16653} {
		values, probs := benchLaw(n)
		sup, err := newSupport(values, probs)
		if err != nil {
			b.Fatal(err)
		}
		laws = append(laws, law{fmt.Sprintf("n=%d", n), sup, benchCosts})
	}
	sup, o := defaultPlanSupport(b)
	laws = append(laws, law{"reserve/n=16653", sup, o.Costs})
	for _, l := range laws {
		sup, n := l.sup, l.sup.n()
		b.Run(l.name, func(b *testing.B) {
			// The solve runs on this thread alone: its CPU time is the
			// kernel's, whatever else the machine runs.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPU()
			for b.Loop() {
				s := newSolver(sup, l.c, Mixed)
				s.workers = 1
				s.solve()
			}
			steps := float64(n) * float64(n+1) / 2 * float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
			b.ReportMetric(float64(threadCPU()-cpu0)/steps, "cpu-ns/step")
		})
	}
}

// threadCPU is the CPU time of the calling OS thread, in nanoseconds.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportProcessCPU returns the function that reports the process's CPU
// time per iteration since the call (cpu-s/op): on a loaded machine it
// moves far less than the wall time, and it shows what a second worker
// costs.
func reportProcessCPU(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	cpu0 := cpu()
	return func() { b.ReportMetric(float64(cpu()-cpu0)/1e9/float64(b.N), "cpu-s/op") }
}

// BenchmarkLowerBound is the certified lower bound of `ckpt reserve` with
// no arguments (n = 16 653, β = 0) once the plan's dynamic program is
// solved: read off it (shared, O(n)) or by a second dynamic program on the
// lower grid (full, O(n²), one worker).
func BenchmarkLowerBound(b *testing.B) {
	d, err := distribution.Parse("lognormal:mean=21.4h,sd=19.7h")
	if err != nil {
		b.Fatal(err)
	}
	x, _, err := Law(d, 0)
	if err != nil {
		b.Fatal(err)
	}
	c := Costs{Alpha: 1, C: 600, R: 600}
	const n = 16653
	y, err := distribution.Discretize(x, n)
	if err != nil {
		b.Fatal(err)
	}
	lo, hi := x.Support()
	lower := lowerGrid(y.Values, lo, hi, n)
	plan, _, err := solveLaw(context.Background(), y.Values, y.Probs, c, Mixed, nil, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			if _, ok := sharedLowerBound(plan, lower, y.Probs); !ok {
				b.Fatal("not shared")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := dynProgCount(context.Background(), lower, y.Probs, c, Mixed, nil, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBestPeriodic is the two periodic baselines of `ckpt reserve`
// with no arguments (ALL-CKPT-PER and NO-CKPT-PER, τ = 1 … 1000 on the
// neuroscience LogNormal, C = R = 600 s).
func BenchmarkBestPeriodic(b *testing.B) {
	d, o := defaultPlanOptions(b)
	x, _, err := Law(d, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, ckpt := range []bool{true, false} {
		b.Run(fmt.Sprintf("ckpt=%v", ckpt), func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := BestPeriodic(x, o.Costs, ckpt, DefaultMaxTau); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The floors of the row kernel. A step of the mixed class carries two
// values from the step before, each through a dependent chain:
//
//   - the row value: E(i_c, i_l) = min(m_h·x + q_h + x·k0, m1[i_l] + x·k1),
//     where q_h is E(i_c, i_l + 1) when the head of the hull is the line
//     just added — an add, an add and a select after the product, which
//     does not wait;
//   - the hull's head: whether the query moves is a comparison of the
//     next line's value at x (a load at the head, a product and an add)
//     with the head's, and the next step starts from its outcome — a load,
//     a multiply-add and a select.
//
// A step cannot finish before the longer of the two chains unless it
// guesses (branch prediction); the kernel guesses, and pays a
// misprediction where the guess fails: on the plan of `ckpt reserve` the
// query moves in about two steps in three, with no pattern. The floors
// below run each chain alone, branch-free (the select is a conditional
// move or a minimum, never a branch), over the same rows, the same arrays
// and the same number of steps as the solve (n(n+1)/2), so that
// kernel/floor is a ratio of two figures of one run on one machine.

// chainValue is the row value's chain alone: every step's value is the
// line just added (slope αv_j, intercept the value of the step before)
// evaluated at x, against the checkpoint option. It returns the last
// value so that nothing is optimised away.
func chainValue(sup *support, c Costs, slope, m1, row []float64) float64 {
	n := sup.n()
	S := sup.surv[:n+1]
	slope, m1, row = slope[:n+1], m1[:n+1], row[:n+1]
	for ic := n - 1; ic >= 0; ic-- {
		b, rho := 0.0, 0.0
		if ic > 0 {
			b, rho = sup.v[ic], c.R
		}
		k0 := c.Alpha*(rho-b) + c.Beta*rho + c.Gamma
		k1 := k0 + c.Alpha*c.C
		prev := row[n]
		for il := n - 1; il >= ic; il-- {
			x := S[il]
			best := min(slope[il+1]*x+prev+x*k0, m1[il]+x*k1)
			row[il], prev = best, best
		}
	}
	return row[0]
}

// chainQuery is the hull head's chain alone: at each step the head moves
// to the next line when that line is no higher at x, decided by a
// conditional move. The lines are the slopes αv_j with the checkpoint
// envelope as intercepts (any finite values give the same latency).
func chainQuery(sup *support, slope, m1, row []float64) float64 {
	n := sup.n()
	S := sup.surv[:n+1]
	slope, m1, row = slope[:n+1], m1[:n+1], row[:n+1]
	for ic := n - 1; ic >= 0; ic-- {
		h := ic
		for il := n - 1; il >= ic; il-- {
			x := S[il]
			h = min(h, n-1)
			cur := slope[h]*x + m1[h]
			next := slope[h+1]*x + m1[h+1]
			d := 0
			if next <= cur {
				d = 1
			}
			h += d
			row[il] = cur
		}
	}
	return row[0]
}

// BenchmarkKernelFloor measures the row kernel against its floors in
// pairs: each iteration solves the plan's dynamic program of `ckpt
// reserve` with no arguments (n = 16 653, one worker, the thread's CPU
// time) and runs the two chains over the same steps right after it, so
// that a change of load between iterations moves both figures of a pair.
// It reports the CPU per step of each and the median over the pairs of
// kernel/value-chain (kernel/floor) and kernel/query-chain.
func BenchmarkKernelFloor(b *testing.B) {
	sup, o := defaultPlanSupport(b)
	n := sup.n()
	steps := float64(n) * float64(n+1) / 2
	// The chains read the solved envelope m1 and the slopes, and write a
	// scratch row.
	ref := newSolver(sup, o.Costs, Mixed)
	ref.workers = 1
	ref.solve()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var kernel, value, query []float64
	timed := func(f func()) float64 {
		t0 := threadCPU()
		f()
		return float64(threadCPU()-t0) / steps
	}
	sink := 0.0
	for b.Loop() {
		kernel = append(kernel, timed(func() {
			s := newSolver(sup, o.Costs, Mixed)
			s.workers = 1
			sink += s.solve()
		}))
		value = append(value, timed(func() { sink += chainValue(sup, o.Costs, ref.slope, ref.m1, ref.row) }))
		query = append(query, timed(func() { sink += chainQuery(sup, ref.slope, ref.m1, ref.row) }))
	}
	if sink == 0 {
		b.Log(sink) // keeps the results alive
	}
	ratio := func(a, b []float64) float64 {
		r := make([]float64, len(a))
		for i := range a {
			r[i] = a[i] / b[i]
		}
		return median(r)
	}
	b.ReportMetric(median(kernel), "kernel-cpu-ns/step")
	b.ReportMetric(median(value), "value-chain-cpu-ns/step")
	b.ReportMetric(median(query), "query-chain-cpu-ns/step")
	b.ReportMetric(ratio(kernel, value), "kernel/floor")
	b.ReportMetric(ratio(kernel, query), "kernel/query-chain")
}

// defaultPlanSupport is the support of the plan's dynamic program of
// `ckpt reserve` with no arguments (its law on n = 16 653 points) and its
// options.
func defaultPlanSupport(b *testing.B) (*support, Options) {
	d, o := defaultPlanOptions(b)
	x, _, err := Law(d, 0)
	if err != nil {
		b.Fatal(err)
	}
	y, err := distribution.Discretize(x, 16653)
	if err != nil {
		b.Fatal(err)
	}
	sup, err := newSupport(y.Values, y.Probs)
	if err != nil {
		b.Fatal(err)
	}
	return sup, o
}

// median is the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// BenchmarkPipelineBusyCore is the plan's dynamic program of `ckpt
// reserve` with no arguments (n = 16 653), one solve per iteration on one
// worker and on two, while a competing process keeps one core busy (run it
// under `taskset -c 0,1`). Besides the time and the process CPU it reports,
// per solve, what the two workers did about each other: the time they
// slept for want of a piece (the oldest row's, held by the other), the
// pieces a rescuer published first (held by a worker running late), and
// the time a worker blocked on the pipeline's lock.
func BenchmarkPipelineBusyCore(b *testing.B) {
	sup, o := defaultPlanSupport(b)
	defer busyCore(b)()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			defer reportProcessCPU(b)()
			var st pipeStats
			for b.Loop() {
				s := newSolver(sup, o.Costs, Mixed)
				s.workers = workers
				s.solve()
				st.waits += s.stats.waits
				st.waited += s.stats.waited
				st.rescued += s.stats.rescued
				st.blockedFor += s.stats.blockedFor
			}
			per := float64(b.N)
			b.ReportMetric(float64(st.waits)/per, "sleeps/op")
			b.ReportMetric(st.waited.Seconds()*1e3/per, "slept-ms/op")
			b.ReportMetric(float64(st.rescued)/per, "rescued/op")
			b.ReportMetric(st.blockedFor.Seconds()*1e3/per, "blocked-ms/op")
		})
	}
}
