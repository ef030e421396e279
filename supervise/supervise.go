// Package supervise starts and supervises an application process: the
// one supervisor of ckpt, used by the Slurm runner (slurm.Run, ckpt run)
// and the coordinator's gate (client.Gate, ckpt coord gate).
//
// The application runs in its own process group, so that it and what it
// starts can be killed together: when it exits, whatever it left running
// in its group is killed; on Linux the kernel also kills it (SIGKILL) when
// the supervisor dies, even by kill -9, so that no application outlives
// its reservation. Signals the supervisor sends or forwards go to the
// application itself, which forwards them to its helpers if it must.
//
// One exit-status rule (Process.Status): 0 when the application succeeded,
// its exit code when it exited, 128 + N when signal N killed it, as
// shells report it.
package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is an application started by Start.
type Process struct {
	cmd    *exec.Cmd
	done   chan struct{}
	status int
	err    error
}

// Start starts argv[0] with arguments argv[1:], environment env (nil: the
// supervisor's) and the given output streams, in its own process group.
// Its standard input is empty.
func Start(argv, env []string, stdout, stderr io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no application to start")
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Stdout, c.Stderr = env, stdout, stderr
	c.SysProcAttr = sysProcAttr()
	// A helper the application left running may hold its output open:
	// once the application has exited, its output is waited for this
	// long, then closed (and the helper killed with the group).
	c.WaitDelay = time.Second
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	p := &Process{cmd: c, done: make(chan struct{})}
	go func() {
		err := c.Wait()
		p.killGroup() // what the application left running dies with it
		if c.ProcessState != nil {
			p.status = status(c.ProcessState)
		} else {
			p.err = err
		}
		close(p.done)
	}()
	return p, nil
}

// Signal sends sig to the application (not to its group). A signal to an
// application that has exited is ignored.
func (p *Process) Signal(sig os.Signal) { _ = p.cmd.Process.Signal(sig) }

// Kill kills the application and its process group (SIGKILL).
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	p.killGroup()
}

func (p *Process) killGroup() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }

// Done is closed once the application has exited (and its group has
// been killed); Status then gives its exit status.
func (p *Process) Done() <-chan struct{} { return p.done }

// Status waits for the application and returns its exit status: its exit
// code when it exited (0 when it succeeded), 128 + N when signal N killed
// it, as shells report it. The error is set only when the application
// could not be waited for.
func (p *Process) Status() (int, error) {
	<-p.done
	return p.status, p.err
}

// status is the exit status of a process under the one rule: its exit
// code when it exited (0 when it succeeded); 128 + N when signal N killed
// it.
func status(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Signalled reports whether status is that of a process killed by a
// signal under the rule of Status (128 + N, N a signal number).
func Signalled(status int) bool { return status > 128 && status < 128+65 }
