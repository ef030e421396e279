package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile writes the file at path through write, atomically: into a
// temporary file in path's folder, renamed over path only when write and
// the close succeed (Create, then Commit or Abort). A failed write leaves
// whatever path held before and no temporary file. A path that is not a
// regular file (a device such as /dev/stdout or /dev/full, a pipe) is
// written in place, since a rename cannot replace it, as is a file with
// several hard links; a symbolic link is written through (see Create).
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
// place (as are hard-linked files and links through /dev or /proc, see
// Create): Commit and Abort only close it.
type File struct {
	f      *os.File
	path   string
	target string // the file the temporary file replaces (path, links followed)
	temp   bool   // f is a temporary file beside target
	n      int64
}

// Create opens a temporary file beside path (".NAME.tmp-*"), or path
// itself when it is not a regular file. A symbolic link is followed and
// the file it names is written (the temporary file made beside it); a link
// through /dev or /proc (/dev/stdout, /proc/self/fd/N) and a file with more
// than one hard link are written in place, as devices are, so that the
// rename replaces neither the link nor one name of the file. Once
// committed, the file has the permissions of the file it replaces, or
// 0666 less the umask for a new one; a file that may not be written is
// refused (as opening it would be).
func Create(path string) (*File, error) {
	target, inPlace, err := resolve(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(target)
	if inPlace || err == nil && (!fi.Mode().IsRegular() || nlink(fi) > 1) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path}, nil
	}
	if err == nil { // a regular file: refused when it may not be written
		w, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, renamePathError(err, path)
		}
		w.Close()
	}
	f, err := createTemp(target)
	if err != nil {
		return nil, renamePathError(err, path)
	}
	if fi != nil {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, renamePathError(err, path)
		}
	}
	return &File{f: f, path: path, target: target, temp: true}, nil
}

// resolve follows the symbolic links of path's last element to the file
// they name (which may not exist yet); inPlace reports that path or a link
// on the way is a link in /dev or /proc (a regular file there, as in
// /dev/shm, is not written in place).
func resolve(path string) (target string, inPlace bool, err error) {
	target = path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return target, false, nil
		}
		if abs, err := filepath.Abs(target); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
			return path, true, nil
		}
		if hops == 40 {
			return "", false, &os.PathError{Op: "open", Path: path, Err: errors.New("too many levels of symbolic links")}
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", false, renamePathError(err, path)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
}

// createTemp creates a new file ".NAME.tmp-N" beside target with mode
// 0666, so that the umask applies to it.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for range 1000 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "createtemp", Path: target, Err: fs.ErrExist}
}

// renamePathError makes a *os.PathError err name path (the file asked
// for, not the temporary one or a link's target).
func renamePathError(err error, path string) error {
	if pe, ok := err.(*os.PathError); ok {
		pe.Path = path
	}
	return err
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
	err := f.f.Close()
	if err == nil {
		err = os.Rename(f.f.Name(), f.target)
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
	if err := os.Rename(f.f.Name(), keep); err != nil {
		os.Remove(f.f.Name())
		return "", err
	}
	return keep, nil
}
