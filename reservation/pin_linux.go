package reservation

import (
	"runtime"
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

// pinWorker binds the calling goroutine to its thread and that thread to
// one CPU of those the thread may use, the id-th (modulo their number),
// so that the system cannot run two workers on one core while another
// is free; it returns the function that restores the thread's CPUs and
// unbinds it. With one CPU allowed, or when the system refuses, it does
// nothing.
func pinWorker(id int) func() {
	runtime.LockOSThread()
	var all cpuMask
	if !schedAffinity(sysGetAffinity, &all) {
		runtime.UnlockOSThread()
		return func() {}
	}
	var cpus []int
	for i := range len(all) * 64 {
		if all[i/64]&(1<<(i%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) < 2 {
		runtime.UnlockOSThread()
		return func() {}
	}
	var one cpuMask
	c := cpus[id%len(cpus)]
	one[c/64] = 1 << (c % 64)
	if !schedAffinity(sysSetAffinity, &one) {
		runtime.UnlockOSThread()
		return func() {}
	}
	return func() {
		if schedAffinity(sysSetAffinity, &all) {
			runtime.UnlockOSThread()
		}
		// Otherwise the thread stays locked: the goroutine's end then
		// ends the thread rather than return a pinned one to the pool.
	}
}
