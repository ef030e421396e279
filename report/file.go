package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Pictured is a report that draws itself: a picture (.svg or .png, chosen
// by the path's extension) and a self-contained HTML page.
type Pictured interface {
	Plot(path string) error
	Page() (Page, error)
}

// CheckPlotPath refuses, as a usage error, a picture path (--plot) of
// another extension than .svg or .png, before any work is done; "" (no
// picture) passes.
func CheckPlotPath(plotPath string) error {
	switch ext := strings.ToLower(filepath.Ext(plotPath)); {
	case plotPath == "", ext == ".svg", ext == ".png":
		return nil
	}
	return usage.Errorf("--plot %q: want a .svg or .png file", plotPath)
}

// CheckPictures checks a command's --plot and --html before any work is
// done, with its other output files (others, such as --swf): the picture's
// extension (CheckPlotPath), and the files as output.CheckPaths does —
// each folder exists, and no two flags name one file (a picture and a page
// written to pp.svg would leave only the page). Errors are usage errors.
func CheckPictures(plotPath, htmlPath string, others ...output.Path) error {
	if err := CheckPlotPath(plotPath); err != nil {
		return err
	}
	return output.CheckPaths(append([]output.Path{{Flag: "plot", Path: plotPath}, {Flag: "html", Path: htmlPath}}, others...)...)
}

// WritePictures writes r's picture to plotPath and its page to htmlPath,
// each only when its path is not "" (the --plot and --html of a command).
func WritePictures(plotPath, htmlPath string, r Pictured) error {
	if plotPath != "" {
		if err := r.Plot(plotPath); err != nil {
			return err
		}
	}
	if htmlPath == "" {
		return nil
	}
	page, err := r.Page()
	if err != nil {
		return err
	}
	return page.WriteFile(htmlPath)
}

// WriteFile writes the page to path through a temporary file renamed on
// success (output.WriteFile): a failed write leaves whatever path held
// before. An error of the write names the path.
func (p Page) WriteFile(path string) error {
	return output.WriteFile(path, func(w io.Writer) error {
		if err := p.WriteHTML(w); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}
