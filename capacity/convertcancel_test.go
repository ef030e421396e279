package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cancelAt is a reader that cancels its context once k bytes are read.
type cancelAt struct {
	r      io.Reader
	k, n   int
	cancel context.CancelFunc
}

func (c *cancelAt) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), 512)])
	if c.n += n; c.n >= c.k {
		c.cancel()
	}
	return n, err
}

// A conversion cancelled while reading (SWF or Batsim) stops there,
// returns ctx's error and leaves the output as it was (it read to the
// end and wrote the output, exit 0).
func TestRunConvertCancel(t *testing.T) {
	var swf strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&swf, "%d %d 0 %d 4 -1 -1 4 600 -1 1 1 1 1 1 1 -1 -1\n", i, i*60, 100+i%300)
	}
	var bw strings.Builder
	if _, _, err := Convert(strings.NewReader(swf.String()), &bw, ConvertOptions{From: FormatSWF, To: FormatBatsim, Name: "w.swf"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ in, from, out string }{{swf.String(), "swf", "o.json"}, {bw.String(), "batsim", "o.swf"}} {
		out := filepath.Join(dir, c.out)
		os.WriteFile(out, []byte("before\n"), 0o644)
		ctx, cancel := context.WithCancel(context.Background())
		in := &cancelAt{r: strings.NewReader(c.in), k: len(c.in) / 4, cancel: cancel}
		_, err := RunConvert(ctx, ConvertRequest{In: "-", Out: out, From: c.from, Stdin: in})
		cancel()
		if b, _ := os.ReadFile(out); !errors.Is(err, context.Canceled) || string(b) != "before\n" || in.n > len(c.in)/4+512 {
			t.Errorf("%s: %v, read %d of %d bytes, output %.20q", c.out, err, in.n, len(c.in), b)
		}
	}
}
