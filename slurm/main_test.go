package slurm

import (
	"flag"
	"os"
	"testing"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestMain removes the binaries the real-Slurm tests built, and runs up
// to 8 parallel tests at once unless -parallel says otherwise: they wait
// on their apps' processes and on real timers, not on the CPU.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "8")
	}
	os.Exit(slurmtest.Main(m))
}
