package output

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/usage"
)

// Path is a file a command writes and the flag that names it ("csv" for
// --csv).
type Path struct {
	Flag, Path string
}

// CheckPaths checks a command's output files before any work is done,
// naming the flag: each path's folder exists and no two flags name the
// same file (usage errors), and no path is a folder (an error as for a
// file that cannot be created, not a usage error) — compared as cleaned
// absolute paths, and by os.SameFile (of the files, or of their folders
// for the same name) where they exist, so that "out.csv" and "./out.csv",
// or a link to it, are one file. "" (no file) and "-" (stdout) pass.
func CheckPaths(ps ...Path) error {
	type seen struct {
		Path
		abs string
	}
	var prev []seen
	for _, p := range ps {
		if p.Path == "" || p.Path == "-" {
			continue
		}
		abs, err := filepath.Abs(p.Path)
		if err != nil {
			return usage.Errorf("--%s %q: %v", p.Flag, p.Path, err)
		}
		if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
			return usage.Errorf("--%s %q: the folder %s does not exist", p.Flag, p.Path, filepath.Dir(p.Path))
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			return fmt.Errorf("--%s %q: is a folder, want a file", p.Flag, p.Path) // as a file that cannot be created: not a usage error
		}
		for _, q := range prev {
			if sameFile(q.abs, abs) {
				return usage.Errorf("--%s %q and --%s %q are the same file: one output would overwrite the other", q.Flag, q.Path.Path, p.Flag, p.Path)
			}
		}
		prev = append(prev, seen{p, abs})
	}
	return nil
}

// SameFile reports whether the paths a and b name one file, as CheckPaths
// compares them (cleaned absolute paths, os.SameFile of the files or of
// their folders), whether or not the files exist.
func SameFile(a, b string) bool {
	aa, erra := filepath.Abs(a)
	ab, errb := filepath.Abs(b)
	return erra == nil && errb == nil && sameFile(aa, ab)
}

// sameFile reports whether the absolute paths a and b name one file.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, erra := os.Stat(filepath.Dir(a))
	db, errb := os.Stat(filepath.Dir(b))
	return erra == nil && errb == nil && os.SameFile(da, db)
}
