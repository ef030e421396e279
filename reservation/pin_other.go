//go:build !linux

package reservation

// pinWorker does nothing where the CPUs of a thread cannot be set.
func pinWorker() func() { return func() {} }
