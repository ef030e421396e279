package slurm

import (
	"os/exec"
	"testing"
)

// TestPythonPackage runs the Python package's standard-library tests
// (python/tests: the runner interface, and the Hugging Face and Lightning
// callbacks against stand-ins that follow the frameworks' documented call
// order). The PyTorch resume test (test_train.py) runs in .ci/run, where
// an interpreter with torch is known.
func TestPythonPackage(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the Python package's tests need it")
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_runtime", "test_callbacks")
	cmd.Dir = "../python/tests"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
}
