// Package datadirtest finds the shared data for a test: a package of its
// own so that the product's binaries, which import datadir, do not link
// package testing.
package datadirtest

import (
	"os"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
)

// ForTest returns the path of rel inside the data folder for a test. When
// the data are missing the test is skipped with the missing file's name,
// except under CI (CI=true), which has the data: there a missing file fails
// the test, so that a data test cannot pass by not running.
func ForTest(t testing.TB, rel ...string) string {
	t.Helper()
	p, err := datadir.Path("", rel...)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI has the shared data, but: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return p
}
