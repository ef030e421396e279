package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes the file at path through write, atomically: into a
// temporary file in path's folder, renamed over path only when write and
// the close succeed (Create, then Commit or Abort). A failed write leaves
// whatever path held before and no temporary file. A path that is not a
// regular file (a device such as /dev/stdout or /dev/full, a pipe) is
// written in place, since a rename cannot replace it.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort("")
		return err
	}
	return f.Commit()
}

// File is an output file written through a temporary file in its path's
// folder: Commit renames it over the path, Abort leaves the path as it
// was. A path that is not a regular file (a device, a pipe) is written in
// place: Commit and Abort only close it.
type File struct {
	f    *os.File
	path string
	temp bool // f is a temporary file beside path
	n    int64
}

// Create opens a temporary file beside path (".NAME.tmp-*", mode 0644 once
// committed), or path itself when it is not a regular file.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if pe, ok := err.(*os.PathError); ok {
		pe.Path = path // the file asked for, not the temporary one
	}
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path, temp: true}, nil
}

// Write writes p to the file; an error names the file's path, not the
// temporary file's.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	f.n += int64(n)
	if pe, ok := err.(*os.PathError); ok {
		pe.Path = f.path
	}
	return n, err
}

// Commit closes the file and renames it over its path. On error the
// temporary file is removed and the path keeps what it held; the error
// names the path.
func (f *File) Commit() error {
	if !f.temp {
		return f.f.Close()
	}
	err := f.f.Chmod(0o644)
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.f.Name())
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return nil
}

// Abort closes the file and leaves its path as it was. The temporary
// file is removed, or, when keep is not "" and something was written to
// it, renamed to keep (replacing a file there); Abort returns keep when it
// kept the file, else "".
func (f *File) Abort(keep string) (kept string, err error) {
	err = f.f.Close()
	if !f.temp {
		return "", err
	}
	if keep == "" || f.n == 0 || err != nil {
		os.Remove(f.f.Name())
		return "", err
	}
	if err := os.Chmod(f.f.Name(), 0o644); err != nil {
		os.Remove(f.f.Name())
		return "", err
	}
	if err := os.Rename(f.f.Name(), keep); err != nil {
		os.Remove(f.f.Name())
		return "", err
	}
	return keep, nil
}
