package trace

import (
	"context"
	"io"
)

// ContextReader returns a reader of r that fails with ctx's error once ctx
// is done, so that a reader of a long log (ReadSWF, ReadBatsim, …) stops
// within one buffer of a cancel (Ctrl-C) instead of parsing to the end.
// The error is ctx.Err() itself; the readers report it inside their own
// (a "read error"), so a caller that sees ctx.Err() != nil returns that.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return ctxIO{ctx: ctx, r: r}
}

// ContextWriter returns a writer to w that fails with ctx's error once ctx
// is done, so that a writer of a long list stops at its next write.
func ContextWriter(ctx context.Context, w io.Writer) io.Writer {
	return ctxIO{ctx: ctx, w: w}
}

type ctxIO struct {
	ctx context.Context
	r   io.Reader
	w   io.Writer
}

func (c ctxIO) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (c ctxIO) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
