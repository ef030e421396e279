package runner

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// bar wraps an optional progress bar; the nil *bar does nothing.
type bar struct {
	pb *progressbar.ProgressBar
	w  io.Writer
}

func newBar(opts Options, count int) *bar {
	w := opts.ProgressTo
	if w == nil {
		w = os.Stderr
	}
	switch opts.Progress {
	case ProgressOff:
		return nil
	case ProgressOn:
	default:
		f, ok := w.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return nil
		}
	}
	if count == 0 {
		return nil
	}
	return &bar{w: w, pb: progressbar.NewOptions(count,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(opts.Label),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("items"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
	)}
}

func (b *bar) add() {
	if b != nil {
		_ = b.pb.Add(1)
	}
}

func (b *bar) finish(complete bool) {
	if b == nil {
		return
	}
	if complete {
		_ = b.pb.Finish()
	} else {
		_ = b.pb.Exit()
	}
	fmt.Fprintln(b.w)
}
