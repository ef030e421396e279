package logs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// ReadLog reads a `sacct --parsable2` dump (ReadSacct; told by its
// header), else an SWF log or CQSim result file (advise.ReadSWF).
func ReadLog(r io.Reader, name string) (advise.Log, error) {
	br := bufio.NewReader(r)
	if isSacct(br) {
		return ReadSacct(br, filepath.Base(name))
	}
	return advise.ReadSWF(br, name)
}

// ReadLogFile opens and reads path (a missing file is a usage error),
// stopping with ctx's error within one buffer of its cancel.
func ReadLogFile(ctx context.Context, path string) (advise.Log, error) {
	f, err := usage.Open(path)
	if err != nil {
		return advise.Log{}, err
	}
	defer f.Close()
	l, err := ReadLog(trace.ContextReader(ctx, f), path)
	if ctx.Err() != nil {
		return advise.Log{}, ctx.Err()
	}
	if err != nil {
		return l, fmt.Errorf("%w", err)
	}
	return l, nil
}
