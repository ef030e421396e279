package reservation

import (
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

const (
	sysGetAffinity = syscall.SYS_SCHED_GETAFFINITY
	sysSetAffinity = syscall.SYS_SCHED_SETAFFINITY
)

// cpuMask is a Linux CPU set of up to 1 024 CPUs.
type cpuMask [16]uint64

func schedAffinity(call uintptr, m *cpuMask) bool {
	_, _, e := syscall.RawSyscall(call, 0, unsafe.Sizeof(*m), uintptr(unsafe.Pointer(m)))
	return e == 0
}

// pinned holds the CPUs bound to a worker of a solve in progress, so
// that solves running side by side (approximate's plan and lower bound,
// a reproduction's instances) never bind two workers to one CPU.
var pinned struct {
	sync.Mutex
	taken cpuMask
}

// pinWorker binds the calling goroutine to its thread and that thread to
// one CPU of those the thread may use, the first no other worker holds,
// so that the system cannot run two workers on one core while another
// is free; it returns the function that restores the thread's CPUs,
// frees the CPU and unbinds the thread. With one CPU allowed, every
// allowed CPU held, or when the system refuses, it does nothing.
func pinWorker() func() {
	runtime.LockOSThread()
	var all cpuMask
	if !schedAffinity(sysGetAffinity, &all) {
		runtime.UnlockOSThread()
		return func() {}
	}
	pinned.Lock()
	defer pinned.Unlock()
	n, c := 0, -1
	for i := range len(all) * 64 {
		if all[i/64]&(1<<(i%64)) != 0 {
			n++
			if c < 0 && pinned.taken[i/64]&(1<<(i%64)) == 0 {
				c = i
			}
		}
	}
	var one cpuMask
	if c >= 0 {
		one[c/64] = 1 << (c % 64)
	}
	if n < 2 || c < 0 || !schedAffinity(sysSetAffinity, &one) {
		runtime.UnlockOSThread()
		return func() {}
	}
	pinned.taken[c/64] |= one[c/64]
	return func() {
		restored := schedAffinity(sysSetAffinity, &all)
		pinned.Lock()
		pinned.taken[c/64] &^= one[c/64]
		pinned.Unlock()
		if restored {
			runtime.UnlockOSThread()
		}
		// Otherwise the thread stays locked: the goroutine's end then
		// ends the thread rather than return a pinned one to the pool.
	}
}
