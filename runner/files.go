package runner

import (
	"github.com/ckpt-hpc/ckpt/usage"

	"errors"
	"fmt"
	"io"
	"os"
)

// CreateOutputs creates the CSV file csvPath and the JSON-lines file
// jsonlPath and returns a Sink writing every result to both, with a
// function that closes the files once Run has returned. An empty path
// skips that format; "-" writes it to stdout (which is not
// closed; a nil stdout refuses "-"). At least one path must be given.
func CreateOutputs[R any](stdout io.Writer, csvPath, jsonlPath string) (Sink[R], func() error, error) {
	if csvPath == "" && jsonlPath == "" {
		return nil, nil, errors.New("runner: no output path given")
	}
	if csvPath == jsonlPath {
		return nil, nil, usage.Errorf("--csv and --jsonl are both %q: the rows of two formats would interleave in one file", csvPath)
	}
	var (
		sinks []Sink[R]
		files []*os.File
	)
	closeAll := func() error {
		var first error
		for _, f := range files {
			if err := f.Close(); err != nil && first == nil {
				first = fmt.Errorf("runner: %v", err)
			}
		}
		return first
	}
	open := func(path string) (io.Writer, error) {
		if path == "-" {
			if stdout == nil {
				return nil, errors.New(`runner: output "-" needs a stdout writer`)
			}
			return stdout, nil
		}
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("runner: %v", err)
		}
		files = append(files, f)
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
			closeAll()
			return nil, nil, err
		}
		sinks = append(sinks, NewJSONL[R](w))
	}
	if len(sinks) == 1 {
		return sinks[0], closeAll, nil
	}
	return Tee(sinks...), closeAll, nil
}

// CheckOutputs checks that a sweep's rows go somewhere — to csvPath,
// jsonlPath, or with asJSON to the report's JSON on stdout — and that at most
// one of them is stdout ("-").
func CheckOutputs(csvPath, jsonlPath string, asJSON bool) error {
	switch {
	case csvPath == "" && jsonlPath == "" && !asJSON:
		return usage.Errorf("give --csv, --jsonl or --json")
	case asJSON && (csvPath == "-" || jsonlPath == "-") || csvPath == "-" && jsonlPath == "-":
		return usage.Errorf("only one of --csv -, --jsonl - and --json can write to stdout")
	}
	return nil
}

// WithOutputs runs a sweep (run) whose rows go through *sink to the files
// csvPath and jsonlPath (CreateOutputs; none when both are empty), and
// closes the files after it: the first error of the sweep and the close.
func WithOutputs[T, R any](stdout io.Writer, csvPath, jsonlPath string, sink *Sink[T], run func() (R, error)) (R, error) {
	closeOut := func() error { return nil }
	if csvPath != "" || jsonlPath != "" {
		var err error
		if *sink, closeOut, err = CreateOutputs[T](stdout, csvPath, jsonlPath); err != nil {
			var none R
			return none, err
		}
	}
	rep, err := run()
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return rep, err
}
