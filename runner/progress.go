package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
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

// StepBars returns a progress callback (step, rows done, rows in all)
// that draws one bar per step on w when w is a terminal, for steps of at
// least minRows rows (a solve of a few seconds); nil, drawing nothing,
// when w is not a terminal.
func StepBars(w io.Writer, minRows int) func(step string, done, total int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var mu sync.Mutex
	bars := map[string]*progressbar.ProgressBar{}
	return func(step string, done, total int) {
		if total < minRows {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		b := bars[step]
		if b == nil {
			b = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(step),
				progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			bars[step] = b
		}
		_ = b.Set(done)
	}
}
