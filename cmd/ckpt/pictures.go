package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/report"
)

// addPictureFlags defines --plot FILE.svg|.png and --html FILE.html, which
// a command writes with report.WritePictures.
func addPictureFlags(fl *pflag.FlagSet, plotPath, htmlPath *string, what string) {
	fl.StringVar(plotPath, "plot", "", "draw "+what+" to FILE (.svg or .png)")
	fl.StringVar(htmlPath, "html", "", "write a self-contained HTML page (picture and tables) to FILE")
}

// checkPictureFlags refuses a --plot file of another extension before any
// work is done.
func checkPictureFlags(plotPath string) error {
	if plotPath == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(plotPath)) {
	case ".svg", ".png":
		return nil
	}
	return usagef("--plot %q: want a .svg or .png file", plotPath)
}

// writePage writes an HTML page to path, leaving no partial file on error.
func writePage(path string, page report.Page) error { return page.WriteFile(path) }
