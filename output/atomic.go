package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes the file at path through write, atomically: into a
// temporary file in path's folder, renamed over path only when write and
// the close succeed. A failed write leaves whatever path held before and
// no temporary file. A path that is not a regular file (a device such as
// /dev/stdout or /dev/full, a pipe) is written in place, since a rename
// cannot replace it.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeInPlace writes a file that is not a regular one (a device, a pipe).
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
