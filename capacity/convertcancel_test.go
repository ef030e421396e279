package capacity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/trace/tracetest"
)

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
		in := &tracetest.CancelAt{R: strings.NewReader(c.in), K: len(c.in) / 4, Cancel: cancel}
		_, err := RunConvert(ctx, ConvertRequest{In: "-", Out: out, From: c.from, Stdin: in})
		cancel()
		if b, _ := os.ReadFile(out); !errors.Is(err, context.Canceled) || string(b) != "before\n" || in.N > len(c.in)/4+512 {
			t.Errorf("%s: %v, read %d of %d bytes, output %.20q", c.out, err, in.N, len(c.in), b)
		}
	}
}
