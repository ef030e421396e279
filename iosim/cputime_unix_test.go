//go:build unix

package iosim

import "syscall"

// processCPU is the process's user + system CPU time in nanoseconds (the
// benchmarks report it per event beside the wall time: on a loaded
// machine it is the steadier figure).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
