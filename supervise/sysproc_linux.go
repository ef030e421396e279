package supervise

import "syscall"

// sysProcAttr puts the application in its own process group and has the
// kernel kill it when the supervisor's thread dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
