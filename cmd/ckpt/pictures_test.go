package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A page that cannot be written fails with exit 1, and what is at the
// path is removed only when it is a regular file the write left behind:
// --html /dev/full must not delete the device.
func TestHTMLWriteFailureKeepsDevices(t *testing.T) {
	fi, err := os.Stat("/dev/full")
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Skip("no /dev/full on this system")
	}
	_, errOut, code := run(t, "", "interval", "--te", "200", "--ckpt", "5", "--failures", "2", "--html", "/dev/full")
	if code != 1 || !strings.Contains(errOut, "/dev/full") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/full is gone or no longer a device after a failed --html write: %v", err)
	}
}

// A time scale that is not a usable factor is a usage error naming it,
// before anything runs (NaN and 1e-300 once reached the runner and the
// cluster).
func TestScaleRefused(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scale", "NaN", "--chain-dir", t.TempDir(), "--reservation", "1", "--", "true"},
		{"run", "--scale", "1e-300", "--chain-dir", t.TempDir(), "--reservation", "1", "--", "true"},
		{"repro", "slurm", "--resummarize", "--scale", "-1", "--out", t.TempDir()},
	} {
		_, errOut, code := run(t, "", args...)
		v := args[slices.Index(args, "--scale")+1]
		if code != 2 || !strings.Contains(errOut, "--scale "+v) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
