package main

import (
	"cmp"
	"runtime/debug"
	"slices"
	"strings"
)

// versionString is what `ckpt --version` prints: the module version, the
// VCS revision and time the binary was built from, and the Go version,
// all read from the build information the Go toolchain embeds.
func versionString() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return formatVersion(bi)
	}
	return "ckpt (no build information)"
}

// formatVersion formats build information as
// "ckpt VERSION (revision REV[+modified], TIME; GOVERSION)".
func formatVersion(bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	rev := "revision unknown"
	if r := vcs["vcs.revision"]; r != "" && vcs["vcs.modified"] == "true" {
		rev = "revision " + r + "+modified"
	} else if r != "" {
		rev = "revision " + r
	}
	parts := slices.DeleteFunc([]string{rev, vcs["vcs.time"], bi.GoVersion}, func(p string) bool { return p == "" })
	return "ckpt " + cmp.Or(bi.Main.Version, "(devel)") + " (" + strings.Join(parts, ", ") + ")"
}
