package replica

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets the cluster tests run 4 at a time unless -parallel is
// given: they wait on raft's timers (heartbeats, elections), not on the
// CPU, and go test's default (GOMAXPROCS, 2 on the project's machine)
// would run them nearly one after the other.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}
