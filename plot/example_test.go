package plot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/plot"
	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: without it, drawing returns plot.ErrNoRenderer
)

// A normalised line plot on a log x axis with the reference line y = 1,
// and a clustered box plot of waste per strategy and bandwidth.
func Example() {
	dir, _ := os.MkdirTemp("", "ckpt-plot")
	defer os.RemoveAll(dir)

	costs := []float64{1, 10, 100, 1000}
	err := plot.Lines(filepath.Join(dir, "makespan.svg"), plot.Figure{
		Title: "Makespan / optimal", XLabel: "checkpoint cost (s)", YLabel: "ratio",
		LogX: true, RefY: []float64{1}, Legend: plot.LegendTopLeft,
	},
		plot.Series{Name: "Young", X: costs, Y: []float64{1.01, 1.02, 1.05, 1.2}, Markers: true},
		plot.Series{Name: "Daly", X: costs, Y: []float64{1.0, 1.01, 1.03, 1.1}, Markers: true},
	)
	if err != nil {
		log.Fatal(err)
	}

	err = plot.Box(filepath.Join(dir, "waste.png"), plot.Figure{XLabel: "bandwidth", YLabel: "waste"},
		plot.BoxGroup{Category: "1 GB/s", Series: "Young", Values: []float64{0.20, 0.22, 0.25, 0.31}},
		plot.BoxGroup{Category: "1 GB/s", Series: "lazy", Values: []float64{0.15, 0.18, 0.19, 0.40}},
		plot.BoxGroup{Category: "10 GB/s", Series: "Young", Values: []float64{0.08, 0.09, 0.11, 0.12}},
		plot.BoxGroup{Category: "10 GB/s", Series: "lazy", Values: []float64{0.05, 0.06, 0.07, 0.15}},
	)
	if err != nil {
		log.Fatal(err)
	}

	svg, _ := os.ReadFile(filepath.Join(dir, "makespan.svg"))
	fmt.Println("makespan.svg is SVG:", bytes.Contains(svg, []byte("<svg")), "with its title:", bytes.Contains(svg, []byte("Makespan / optimal")))
	f, err := os.Open(filepath.Join(dir, "waste.png"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f) // the default 6 × 4 inches at 150 dpi

	fmt.Println("waste.png:", cfg.Width, "×", cfg.Height, err)
	// Output:
	// makespan.svg is SVG: true with its title: true
	// waste.png: 900 × 600 <nil>
}
