package logs

import (
	"os"
	"testing"

	"github.com/ckpt-hpc/ckpt/slurm/slurmtest"
)

// TestMain removes the binaries the real-Slurm tests built.
func TestMain(m *testing.M) { os.Exit(slurmtest.Main(m)) }
