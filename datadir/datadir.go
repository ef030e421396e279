package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Env is the environment variable that names the data folder.
const Env = "CKPT_DATA"

// ErrNotFound is wrapped by every error that reports missing data.
var ErrNotFound = errors.New("data not found")

// Find returns the data folder chosen by the rules of the package comment.
// A folder named by the flag or the environment must exist; the fallback is
// returned only when it exists.
func Find(flag string) (string, error) {
	for _, c := range []struct{ dir, from string }{{flag, "--data"}, {os.Getenv(Env), "$" + Env}} {
		if c.dir == "" {
			continue
		}
		if fi, err := os.Stat(c.dir); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%w: %s=%s is not a folder", ErrNotFound, c.from, c.dir)
		}
		return c.dir, nil
	}
	if d := besideCheckout(); d != "" {
		return d, nil
	}
	return "", fmt.Errorf("%w: give --data DIR or set %s to the shared data folder", ErrNotFound, Env)
}

// Path returns the file or folder rel (slash-separated parts) inside the
// data folder, and an error naming it when it does not exist.
func Path(flag string, rel ...string) (string, error) {
	dir, err := Find(flag)
	if err != nil {
		what := filepath.Join(rel...)
		if what == "" {
			what = "the data folder (shared/data beside the checkout)"
		}
		return "", fmt.Errorf("%s: %w", what, err)
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %s (data folder %s; give --data DIR or set %s)", ErrNotFound, p, dir, Env)
	}
	return p, nil
}

// besideCheckout looks for shared/data in the parents of the working
// directory, stopping at the first folder above a go.mod's folder.
func besideCheckout() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; {
		parent := filepath.Dir(d)
		if c := filepath.Join(parent, "shared", "data"); isDir(c) {
			return c
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil || parent == d {
			return ""
		}
		d = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
