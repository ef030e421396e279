package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
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
