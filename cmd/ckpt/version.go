package main

import (
	"runtime/debug"
	"strings"
)

// versionString is what `ckpt --version` prints: the module version, the
// VCS revision and time the binary was built from, and the Go version,
// all read from the build information the Go toolchain embeds.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "ckpt (no build information)"
	}
	return formatVersion(bi)
}

// formatVersion formats build information as
// "ckpt VERSION (revision REV[+modified], TIME; GOVERSION)".
func formatVersion(bi *debug.BuildInfo) string {
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		r := "revision " + rev
		if modified {
			r += "+modified"
		}
		parts = append(parts, r)
	} else {
		parts = append(parts, "revision unknown")
	}
	if when != "" {
		parts = append(parts, when)
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	return "ckpt " + version + " (" + strings.Join(parts, ", ") + ")"
}
