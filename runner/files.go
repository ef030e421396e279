package runner

import (
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"

	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// CreateOutputs opens the CSV file csvPath and the JSON-lines file
// jsonlPath and returns a Sink writing every result to both, with a
// function that ends them once Run has returned, given the run's error.
// An empty path skips that format; "-" writes it to stdout (which is not
// closed; a nil stdout refuses "-"). At least one path must be given; the
// paths are checked as CheckOutputPaths does (usage errors).
//
// The files are written through temporary files in their folders
// (output.Create): the end function renames them over their paths only
// when the run's error is nil, so that a failed or interrupted run leaves
// the previous files as they were. The rows such a run wrote, whole rows
// only (a prefix of the shard's items), are kept beside them as
// PATH.partial; the end function then returns the run's error saying so
// (or, after a successful run, the first error closing the files). When
// such a run finds at PATH a complete shard's output (an end line, see
// Trailer), an earlier run's, it moves it to PATH.prev, so that Merge
// finds this run's shard missing rather than merge two runs' shards.
func CreateOutputs[R any](stdout io.Writer, csvPath, jsonlPath string) (Sink[R], func(runErr error) error, error) {
	if csvPath == "" && jsonlPath == "" {
		return nil, nil, errors.New("runner: no output path given")
	}
	if err := CheckOutputPaths(csvPath, jsonlPath, false); err != nil {
		return nil, nil, err
	}
	var (
		sinks []Sink[R]
		files []*output.File
		paths []string
	)
	finish := func(runErr error, ran bool) error {
		var kept, moved []string
		var first error
		for i, f := range files {
			if runErr == nil {
				if err := f.Commit(); err != nil && first == nil {
					first = fmt.Errorf("runner: %v", err)
				}
				continue
			}
			if k, _ := f.Abort(paths[i] + ".partial"); k != "" {
				kept = append(kept, k)
			}
			if _, ok, _ := ReadTrailer(paths[i]); ran && ok && os.Rename(paths[i], paths[i]+".prev") == nil {
				moved = append(moved, paths[i]+".prev")
			}
		}
		if len(kept) > 0 || len(moved) > 0 {
			return &PartialError{Err: runErr, Paths: kept, Moved: moved}
		}
		if runErr != nil {
			return runErr
		}
		return first
	}
	end := func(runErr error) error { return finish(runErr, true) }
	open := func(path string) (io.Writer, error) {
		if path == "-" {
			if stdout == nil {
				return nil, errors.New(`runner: output "-" needs a stdout writer`)
			}
			return stdout, nil
		}
		f, err := output.Create(path)
		if err != nil {
			return nil, fmt.Errorf("runner: %v", err) // err names path
		}
		files, paths = append(files, f), append(paths, path)
		return f, nil
	}
	if csvPath != "" {
		w, err := open(csvPath)
		if err != nil {
			return nil, nil, err
		}
		sinks = append(sinks, NewCSV[R](w))
	}
	if jsonlPath != "" {
		w, err := open(jsonlPath)
		if err != nil {
			finish(err, false)
			return nil, nil, err
		}
		sinks = append(sinks, NewJSONL[R](w))
	}
	if len(sinks) == 1 {
		return sinks[0], end, nil
	}
	return Tee(sinks...), end, nil
}

// PartialError is the error of a run that failed or was interrupted after
// writing rows to CreateOutputs' files: its rows, whole ones, are kept in
// Paths (PATH.partial beside each output) while the outputs keep their
// previous contents, except an earlier run's complete shard outputs,
// moved to Moved (PATH.prev).
type PartialError struct {
	Err   error
	Paths []string
	Moved []string
}

func (e *PartialError) Error() string { return e.Err.Error() + e.note() }

// note is " (the rows written so far are in A.partial; an earlier run's …
// moved to A.prev)", the parts there are.
func (e *PartialError) note() string {
	var notes []string
	if len(e.Paths) > 0 {
		notes = append(notes, "the rows written so far are in "+strings.Join(e.Paths, " and "))
	}
	if len(e.Moved) > 0 {
		notes = append(notes, "an earlier run's complete shard moved to "+strings.Join(e.Moved, " and ")+", so that merge does not take it for this run's")
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

func (e *PartialError) Unwrap() error { return e.Err }

// PartialNote is " (the rows written so far are in A.partial)" when err
// is or wraps a PartialError, else "": what a command adds to the one
// line that reports an interruption.
func PartialNote(err error) string {
	var pe *PartialError
	if !errors.As(err, &pe) {
		return ""
	}
	return pe.note()
}

// CheckOutputs checks that a sweep's rows go somewhere — to csvPath,
// jsonlPath, or with asJSON to the report's JSON on stdout — and the
// paths as CheckOutputPaths does.
func CheckOutputs(csvPath, jsonlPath string, asJSON bool) error {
	if csvPath == "" && jsonlPath == "" && !asJSON {
		return usage.Errorf("give --csv, --jsonl or --json")
	}
	return CheckOutputPaths(csvPath, jsonlPath, asJSON)
}

// CheckOutputPaths checks, before any work is done, the --csv and --jsonl
// paths of a command whose report (JSON on stdout with asJSON) may come
// with rows or without: at most one of them is stdout ("-"), and the files
// are writable and distinct as output.CheckPaths sees them, neither where
// the other's PATH.partial or PATH.prev would go. Its errors name the
// flags.
func CheckOutputPaths(csvPath, jsonlPath string, asJSON bool) error {
	switch {
	case csvPath == "-" && jsonlPath == "-":
		return usage.Errorf("--csv and --jsonl are both %q: the rows of two formats would interleave in one file", csvPath)
	case asJSON && (csvPath == "-" || jsonlPath == "-"):
		return usage.Errorf("only one of --csv -, --jsonl - and --json can write to stdout")
	}
	c, j := output.Path{Flag: "csv", Path: csvPath}, output.Path{Flag: "jsonl", Path: jsonlPath}
	for _, p := range [][2]output.Path{{c, j}, {j, c}} {
		if p[0].Path == "" || p[0].Path == "-" || p[1].Path == "" || p[1].Path == "-" {
			break
		}
		for _, ext := range []string{".partial", ".prev"} {
			if output.SameFile(p[0].Path+ext, p[1].Path) {
				return usage.Errorf("--%s %q and --%s %q clash: a failed run writes %s, which would overwrite the other output", p[0].Flag, p[0].Path, p[1].Flag, p[1].Path, p[0].Path+ext)
			}
		}
	}
	return output.CheckPaths(c, j)
}

// WithOutputs runs a sweep (run) whose rows go through *sink to the files
// csvPath and jsonlPath (CreateOutputs; none when both are empty), and
// ends the files after it: the files replace their paths only when run
// succeeded. It returns the sweep's error (saying where its rows were
// kept) or the error closing the files.
func WithOutputs[T, R any](stdout io.Writer, csvPath, jsonlPath string, sink *Sink[T], run func() (R, error)) (R, error) {
	end := func(err error) error { return err }
	if csvPath != "" || jsonlPath != "" {
		var err error
		if *sink, end, err = CreateOutputs[T](stdout, csvPath, jsonlPath); err != nil {
			var none R
			return none, err
		}
	}
	rep, err := run()
	return rep, end(err)
}
