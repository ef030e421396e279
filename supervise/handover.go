package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// HandedOver is the environment variable Handover sets, in the program it
// starts, to the path of the program that handed over. A program that
// finds it set when it is about to hand over was itself started by a
// hand-over, so it refuses: a "ckpt-full" that is a wrapper script of the
// program handing over would otherwise run it again, for ever. The program
// handed to clears it (os.Unsetenv) so that the processes it starts hand
// over as usual.
const HandedOver = "CKPT_HANDED_OVER"

// Handover replaces this process by the program name (FindProgram), run
// with argv [name, args...] and this process's environment plus
// HandedOver: its exit status, its signals (Ctrl-C) and its standard
// streams are the program's own. It returns only on failure, with an error
// naming what is missing. A process that was itself started as name
// (argv[0]) or by a hand-over (HandedOver set) refuses: handing over again
// would never end.
func Handover(name, env string, args []string) error {
	if len(os.Args) > 0 && filepath.Base(os.Args[0]) == name {
		return fmt.Errorf("this program runs as %s and would hand over to itself: %s must be another build", name, name)
	}
	if from := os.Getenv(HandedOver); from != "" {
		return fmt.Errorf("%s handed over to a program that hands over again (this one): %s must be the full build, not a wrapper of %s", from, name, from)
	}
	path, err := FindProgram(name, env)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	envv := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, HandedOver+"=") }) // set but empty
	err = syscall.Exec(path, append([]string{name}, args...), append(envv, HandedOver+"="+self))
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
