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
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	rev := "revision unknown"
	if r := vcs["vcs.revision"]; r != "" {
		rev = "revision " + r
		if vcs["vcs.modified"] == "true" {
			rev += "+modified"
		}
	}
	parts := []string{rev}
	for _, p := range []string{vcs["vcs.time"], bi.GoVersion} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return "ckpt " + version + " (" + strings.Join(parts, ", ") + ")"
}
