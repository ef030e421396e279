package report

import (
	"fmt"
	"io"
	"os"
)

// Pictured is a report that draws itself: a picture (.svg or .png, chosen
// by the path's extension) and a self-contained HTML page.
type Pictured interface {
	Plot(path string) error
	Page() (Page, error)
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

// WriteFile writes the page to path (WriteFile of WriteHTML); an error of
// the write names the path.
func (p Page) WriteFile(path string) error {
	return WriteFile(path, func(w io.Writer) error {
		if err := p.WriteHTML(w); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// WriteFile creates the file at path and writes it through write, leaving
// no partial file on error: what a failed write left is removed when it is
// a regular file, never a device (--html /dev/full), a pipe or a folder.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() {
			os.Remove(path)
		}
		return err
	}
	return f.Close()
}
