package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRootBuildsOnlyTheNamedCommand checks newRoot's table against the
// commands themselves: for every command of the full tree, a root built for
// that name holds that command alone (a name in the table that differs from
// the command's own would build the whole tree instead).
func TestRootBuildsOnlyTheNamedCommand(t *testing.T) {
	all := newRoot().Commands()
	if len(all) < 15 {
		t.Fatalf("the full tree has %d commands", len(all))
	}
	for _, c := range all {
		got := newRoot(c.Name(), "--help").Commands()
		if len(got) != 1 || got[0].Name() != c.Name() {
			t.Errorf("newRoot(%q) built %d commands", c.Name(), len(got))
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"help", "interval"}, {"completion", "bash"}, {"nosuch"}, {"--json", "interval"}} {
		if n := len(newRoot(args...).Commands()); n != len(all) {
			t.Errorf("newRoot(%q) built %d commands, want all %d", args, n, len(all))
		}
	}
}

// initCost is what GODEBUG=inittrace=1 reports for one package's
// initialisation: the bytes it allocated (deterministic, unlike its time).
type initCost struct {
	pkg   string
	bytes int
}

func initTrace(t *testing.T, args ...string) []initCost {
	t.Helper()
	cmd := exec.Command(ckptBin(t), args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	out := stderr.String()
	var costs []initCost
	for line := range strings.Lines(out) {
		// init PKG @T ms, D ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unreadable inittrace line %q", line)
		}
		costs = append(costs, initCost{f[1], b})
	}
	if len(costs) < 50 {
		t.Fatalf("inittrace gave %d packages:\n%s", len(costs), out)
	}
	return costs
}

// TestStartupInitIsSmall holds the line on start-up work for commands that
// neither draw nor serve. Go initialises every linked package, so the test
// measures what ckpt controls: its own packages must build nothing large
// at initialisation (tables, regular expressions and registries are built
// on first use), and the sum over all packages, the third-party ones
// included, must stay under a generous bound. Allocated bytes are counted
// rather than times, which a loaded machine multiplies.
func TestStartupInitIsSmall(t *testing.T) {
	const ownLimit = 8 << 10 // one package of ours; the largest was 106 kB (report's patterns)
	const allLimit = 800 << 10
	for _, args := range [][]string{{"--help"}, {"interval", "--te", "441", "--ckpt", "1", "--failures", "2"}} {
		total := 0
		for _, c := range initTrace(t, args...) {
			total += c.bytes
			if (c.pkg == "main" || strings.HasPrefix(c.pkg, "github.com/ckpt-hpc/ckpt")) && c.bytes > ownLimit {
				t.Errorf("ckpt %s: %s allocates %d bytes at initialisation (limit %d): build it on first use (sync.OnceValue)",
					args[0], c.pkg, c.bytes, ownLimit)
			}
		}
		if total > allLimit {
			t.Errorf("ckpt %s: package initialisation allocates %d bytes in all (limit %d)", args[0], total, allLimit)
		}
		t.Logf("ckpt %s: package initialisation allocates %d bytes", args[0], total)
	}
}
