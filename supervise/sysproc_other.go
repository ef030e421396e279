//go:build unix && !linux

package supervise

import "syscall"

// sysProcAttr puts the application in its own process group (no
// parent-death signal outside Linux).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
