package slurm

import (
	"os"
	"os/exec"
	"testing"
)

// needSlurm skips a test that submits real jobs unless CKPT_SLURM_TESTS=1
// says which cluster to use (the one answering sinfo here: .ci/run sets it
// after scripts/slurm-localhost.sh started a local one). Tests never submit
// to a cluster they were not told to use; told to, they fail when it does
// not answer.
func needSlurm(t *testing.T) {
	t.Helper()
	if os.Getenv("CKPT_SLURM_TESTS") != "1" {
		t.Skip("set CKPT_SLURM_TESTS=1 to submit jobs to the Slurm cluster that answers sinfo (scripts/slurm-localhost.sh starts one)")
	}
	if out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput(); err != nil {
		t.Fatalf("CKPT_SLURM_TESTS=1 but sinfo fails: %v: %s", err, out)
	}
}
