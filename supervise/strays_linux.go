package supervise

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// KillStrays kills (SIGKILL) every process of this machine, other than the
// caller, whose environment (NAME=VALUE entries) match accepts:
// what an application left running when its supervisor died (its
// children do not get the parent-death signal; they keep the
// environment). It returns the process IDs it killed; processes whose
// environment it may not read are left alone. It reads /proc: one pass
// over the processes, each environment read once.
func KillStrays(match func(env []string) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var killed []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !match(split(b)) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}

// split splits a NUL-separated environment.
func split(env []byte) []string {
	var out []string
	for _, kv := range bytes.Split(env, []byte{0}) {
		if len(kv) > 0 {
			out = append(out, string(kv))
		}
	}
	return out
}
