package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Handover replaces this process by the program name (FindProgram), run
// with argv [name, args...] and this process's environment unchanged: its
// exit status, its signals (Ctrl-C) and its standard streams are the
// program's own. It returns only on failure, with an error naming what is
// missing. A process that was itself started as name (argv[0]) refuses:
// handing over to itself would never end.
func Handover(name, env string, args []string) error {
	if len(os.Args) > 0 && filepath.Base(os.Args[0]) == name {
		return fmt.Errorf("this program runs as %s and would hand over to itself: %s must be another build", name, name)
	}
	path, err := FindProgram(name, env)
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{name}, args...), os.Environ())
	return fmt.Errorf("%s: %w", path, err)
}

// FindProgram finds the executable file name: the path in the environment
// variable env if it is set and not empty (an explicit choice, so a bad one is an error,
// not a reason to look elsewhere), else name beside the running executable
// (symbolic links resolved: beside the real file), else name on PATH.
func FindProgram(name, env string) (string, error) {
	if p := os.Getenv(env); env != "" && p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("$%s=%q is not an executable file", env, p)
		}
		return p, nil
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	where := "beside this executable"
	if self != "" {
		where = "beside " + self
	}
	return "", errors.New(name + " not found " + where + ", in $" + env + " or on PATH")
}

// isExecutable reports whether p is a regular file someone may execute.
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
