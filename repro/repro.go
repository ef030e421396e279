package repro

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/runner"
)

// Config is what `ckpt repro` passes to every reproduction.
type Config struct {
	// Dir receives the CSV files and figures.
	Dir string
	// Quick shrinks every experiment to a smoke test that CI can afford.
	Quick bool
	// Workers bounds the parallelism (0 = all cores).
	Workers int
	// Seed, when not nil, replaces the reproduction's own base seed (the
	// one its published outputs were made with; see BaseSeed).
	Seed *uint64
	// Log receives the step headings and the comparison tables (the
	// command's stdout).
	Log io.Writer
	// Accounting names how a reproduction books its results when it
	// offers more than one way ("" is its default; see each reproduction's
	// Accountings). A reproduction refuses a name it does not know.
	Accounting string
	// Progress receives progress bars (the command's stderr); nil means
	// os.Stderr, drawn only when it is a terminal (see runner.Progress).
	Progress io.Writer
	// Data is the data folder given by --data; "" means $CKPT_DATA, else
	// ../shared/data beside the checkout (datadir.Find). Reproductions read
	// their inputs through DataPath.
	Data string
}

// DataPath returns the file or folder rel (slash-separated parts) inside
// the data folder of c (datadir.Path with c.Data), and an error naming it
// and the folder when it does not exist.
func (c Config) DataPath(rel ...string) (string, error) {
	return datadir.Path(c.Data, rel...)
}

// BaseSeed is the base seed of a reproduction whose own default is def:
// *c.Seed when set, else def, so that outputs do not change unless a seed
// is asked for.
func (c Config) BaseSeed(def uint64) uint64 {
	if c.Seed != nil {
		return *c.Seed
	}
	return def
}

// RunnerOptions are the runner.Options of one sweep of a reproduction
// whose own base seed is def: BaseSeed(def), c.Workers, the label of its
// progress bar, drawn on c.Progress.
func (c Config) RunnerOptions(label string, def uint64) runner.Options {
	return runner.Options{Seed: c.BaseSeed(def), Workers: c.Workers, Label: label, ProgressTo: c.Progress}
}

// Path returns the path of an output file inside the output folder,
// creating the folder.
func (c Config) Path(name string) (string, error) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(c.Dir, name), nil
}

// SavePlot draws a figure twice, as name.png and name.svg, in the output
// folder; draw receives each path in turn.
func (c Config) SavePlot(name string, draw func(path string) error) error {
	for _, ext := range []string{".png", ".svg"} {
		p, err := c.Path(name + ext)
		if err != nil {
			return err
		}
		if err := draw(p); err != nil {
			return fmt.Errorf("%s: %w", name+ext, err)
		}
	}
	return nil
}

// Comparison is one published number beside ours.
type Comparison struct {
	Experiment string  // e.g. "Table 2"
	Quantity   string  // e.g. "Exponential ALL-CKPT-PER best tau"
	Paper      float64 // NaN when the paper gives no number
	Ours       float64
	Note       string // why they differ, when they do
}

// Diff is Ours − Paper.
func (c Comparison) Diff() float64 { return c.Ours - c.Paper }

// RelDiff is (Ours − Paper)/|Paper|, NaN when Paper is 0 or missing.
func (c Comparison) RelDiff() float64 {
	if c.Paper == 0 || math.IsNaN(c.Paper) {
		return math.NaN()
	}
	return (c.Ours - c.Paper) / math.Abs(c.Paper)
}

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// WriteComparisons writes the comparisons as CSV (experiment, quantity,
// paper, ours, diff, rel_diff, note).
func WriteComparisons(path string, cs []Comparison) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"experiment", "quantity", "paper", "ours", "diff", "rel_diff", "note"})
	for _, c := range cs {
		w.Write([]string{c.Experiment, c.Quantity, fmtNum(c.Paper), fmtNum(c.Ours), fmtNum(c.Diff()), fmtNum(c.RelDiff()), c.Note})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// PrintComparisons writes the comparisons as an aligned table.
func PrintComparisons(w io.Writer, title string, cs []Comparison) {
	fmt.Fprintf(w, "\n%s\n%s\n", title, strings.Repeat("-", len(title)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "quantity\tpaper\tours\tdiff\tnote")
	for _, c := range cs {
		diff := ""
		if !math.IsNaN(c.Paper) {
			diff = fmt.Sprintf("%+.3g", c.Diff())
			if r := c.RelDiff(); !math.IsNaN(r) {
				diff += fmt.Sprintf(" (%+.1f%%)", 100*r)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Quantity, fmtNum(c.Paper), fmtNum(c.Ours), diff, c.Note)
	}
	tw.Flush()
}
