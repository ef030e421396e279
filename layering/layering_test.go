package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ckpt-hpc/ckpt/"

// layer of every package of the module; a package missing here fails the
// test, so that a new package is placed on purpose.
var layer = map[string]int{
	"units": 1, "usage": 1, "supervise": 1, "rng": 1, "optimize": 1, "output": 1, "output/jsontest": 1, "registry": 1,
	"datadir": 1, "datadir/datadirtest": 1, "distribution": 1, "des": 1, "runner": 1, "plot": 1, "plot/draw": 1,
	"report": 1, "trace": 1, "trace/tracetest": 1,

	"reservation": 2, "profile": 2, "memplan": 2, "interval": 2, "iosim": 2,
	"iosim/arbiter": 2, "capacity": 2,

	"slurm": 3, "slurm/slurmtest": 3, "advise": 3, "advise/logs": 3, "cmd/internal/askcmd": 3, "coord": 3, "coord/api": 3, "coord/client": 3, "coord/loadgen": 3,
	"coord/server": 3, "coord/store": 3, "coord/replica": 3,
	"repro": 3, "repro/capacity": 3, "repro/cloud": 3, "repro/coop": 3,
	"repro/profiles": 3, "repro/reservation": 3, "repro/slurm": 3, "repro/papers": 3,

	"cmd/ckpt": 4, "cmd/ckpt-advise": 4,

	"layering": 1,
}

// group of every capability package: a capability imports its own group.
var group = map[string]string{
	"reservation": "reservation", "profile": "profiles", "memplan": "profiles",
	"interval": "interval", "iosim": "iosim", "iosim/arbiter": "iosim",
	"capacity": "capacity",
}

// allowed names the edges the layers alone would forbid, each with its
// reason in doc.go.
var allowed = map[[2]string]bool{
	{"memplan", "reservation"}: true,
}

// traceMay is what the log readers may import.
var traceMay = map[string]bool{"units": true, "usage": true, "output": true, "rng": true}

// gonumPlot is gonum/plot's root package, whose init parses every
// Liberation font (12 ms of CPU against 5.3 ms for an empty program, on
// the 2-core VM of issue 25); only the renderer plot/draw imports it.
const gonumPlot = "gonum.org/v1/plot"

// drawsWithGonum says whether importing p links gonum/plot's root: the
// root itself and every package of gonum/plot but vg and font (plotter,
// vg/vgsvg… import the root or a renderer), the lengths and font names a
// picture is described with.
func drawsWithGonum(p string) bool {
	return p == gonumPlot || strings.HasPrefix(p, gonumPlot+"/") && p != gonumPlot+"/vg" && p != gonumPlot+"/font"
}

// mayDraw says whether from may link the renderer: plot/draw itself, the
// reproductions (they run only in the full ckpt) and the commands.
func mayDraw(from string) bool {
	return from == "plot/draw" || from == "repro" || strings.HasPrefix(from, "repro/") || layer[from] == 4
}

// why returns the reason the import from -> to breaks the rule, or "".
func why(from, to string) string {
	lf, lt := layer[from], layer[to]
	switch {
	case (to == "plot/draw" || to == gonumPlot) && !mayDraw(from):
		return "only plot/draw, the reproductions and the commands link gonum/plot's root package (its init parses the fonts: every command would pay for it)"
	case allowed[[2]string{from, to}]:
		return ""
	case lt == 4:
		return "nothing imports cmd/ckpt"
	case lt > lf:
		return "a lower layer imports a higher one"
	case from == "trace" && !traceMay[to]:
		return "trace reads logs; it imports only units, usage, output and rng"
	case lf == 2 && lt == 2 && group[from] != group[to]:
		return "a capability imports another capability"
	case lf == 3 && lt == 3 && !strings.HasPrefix(from, "repro") && strings.HasPrefix(to, "repro"):
		return "a service imports a reproduction"
	}
	return ""
}

// imports maps each package of the module below root to the module's
// packages its non-test files import, and gonumPlot if they import it.
func imports(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if strings.HasPrefix(p, module) {
				out[pkg][strings.TrimPrefix(p, module)] = true
			}
			if drawsWithGonum(p) {
				out[pkg][gonumPlot] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportsFollowTheLayers(t *testing.T) {
	all := imports(t, "..")
	var pkgs []string
	for p := range all {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages: the walk is broken", len(pkgs))
	}
	for _, from := range pkgs {
		if _, ok := layer[from]; !ok {
			t.Errorf("package %s has no layer: place it in layering_test.go and doc.go", from)
			continue
		}
		var tos []string
		for to := range all[from] {
			tos = append(tos, to)
		}
		sort.Strings(tos)
		for _, to := range tos {
			if _, ok := layer[to]; !ok && to != gonumPlot {
				continue // reported as its own package
			}
			if r := why(from, to); r != "" {
				t.Errorf("%s imports %s: %s", from, to, r)
			}
		}
	}
}

// TestRuleCatchesWhatItForbids checks the rule itself on edges it must
// refuse and accept, so that a rule loosened by mistake fails here.
func TestRuleCatchesWhatItForbids(t *testing.T) {
	for _, c := range []struct {
		from, to string
		bad      bool
	}{
		{"trace", "distribution", true},
		{"reservation", "interval", true},
		{"memplan", "reservation", false},
		{"reservation", "memplan", true},
		{"distribution", "reservation", true},
		{"slurm", "reservation", false},
		{"coord", "interval", false},
		{"coord", "repro", true},
		{"repro/slurm", "slurm", false},
		{"slurm", "repro/slurm", true},
		{"repro/capacity", "capacity", false},
		{"repro", "cmd/ckpt", true},
		{"iosim", "iosim/arbiter", false},
		{"cmd/ckpt", "coord/server", false},
		{"interval", "plot/draw", true},
		{"plot", gonumPlot, true},
		{"reservation", gonumPlot, true},
		{"cmd/internal/askcmd", "plot/draw", true},
		{"plot/draw", gonumPlot, false},
		{"repro/coop", "plot/draw", false},
		{"repro", gonumPlot, false},
		{"cmd/ckpt", "plot/draw", false},
	} {
		if got := why(c.from, c.to) != ""; got != c.bad {
			t.Errorf("%s -> %s: forbidden=%v, want %v", c.from, c.to, got, c.bad)
		}
	}
}

// light are the packages a command that neither draws nor serves links:
// the capabilities and the services' clients.
// The lite ckpt itself (cmd/ckpt under -tags lite) is listed too: go list
// then reports what that binary links.
var light = []string{"reservation", "memplan", "slurm", "advise/logs", "capacity", "interval", "iosim", "coord", "coord/client", "cmd/ckpt"}

// heavyIn returns the packages of deps whose initialisation a light
// command must not pay for: gonum/plot's root (fonts), the renderer that
// imports it, the Prometheus client, Raft, and package testing (a test
// helper in a product package links it: datadir/datadirtest is why that
// helper has a package of its own).
func heavyIn(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if d == gonumPlot || d == module+"plot/draw" || d == "testing" ||
			strings.HasPrefix(d, "github.com/prometheus/client_golang") || strings.HasPrefix(d, "github.com/hashicorp/raft") {
			bad = append(bad, d)
		}
	}
	return bad
}

// TestLightPackagesLinkNothingHeavy: go list -deps of every light package
// has none of heavyIn's packages, so that a build of the light commands
// (ckpt -tags lite) starts without their package initialisation (issue 25:
// gonum/plot's alone costs 6.7 ms of CPU at start-up).
func TestLightPackagesLinkNothingHeavy(t *testing.T) {
	args := []string{"list", "-tags", "lite", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}
	for _, p := range light {
		args = append(args, module+p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(light) {
		t.Fatalf("go list gave %d lines for %d packages", len(lines), len(light))
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 10 || !strings.HasPrefix(f[0], module) {
			t.Fatalf("go list line %q: not a package and its dependencies", l)
		}
		for _, b := range heavyIn(f[1:]) {
			t.Errorf("%s links %s", strings.TrimPrefix(f[0], module), b)
		}
	}
}

// TestDrawsWithGonumCatches: gonum/plot's packages other than vg and font
// count as its root (plotter and the vg backends import it or draw).
func TestDrawsWithGonumCatches(t *testing.T) {
	for p, want := range map[string]bool{gonumPlot: true, gonumPlot + "/plotter": true, gonumPlot + "/vg/vgsvg": true,
		gonumPlot + "/vg/draw": true, gonumPlot + "/vg": false, gonumPlot + "/font": false, "gonum.org/v1/plotx": false, "gonum.org/v1/gonum/mat": false} {
		if got := drawsWithGonum(p); got != want {
			t.Errorf("drawsWithGonum(%s) = %v, want %v", p, got, want)
		}
	}
}

// TestHeavyInCatches checks heavyIn on names it must and must not flag.
func TestHeavyInCatches(t *testing.T) {
	deps := []string{"fmt", "gonum.org/v1/plot/vg", gonumPlot, module + "plot", module + "plot/draw",
		"github.com/prometheus/client_golang/prometheus", "github.com/hashicorp/raft", "github.com/hashicorp/raft-boltdb/v2",
		"gonum.org/v1/gonum/mat", "testing", "testing/iotest"}
	got := strings.Join(heavyIn(deps), " ")
	want := strings.Join([]string{gonumPlot, module + "plot/draw", "github.com/prometheus/client_golang/prometheus",
		"github.com/hashicorp/raft", "github.com/hashicorp/raft-boltdb/v2", "testing"}, " ")
	if got != want {
		t.Errorf("heavyIn = %s\nwant %s", got, want)
	}
}
