package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/iosim"
)

// ckpt coord simulate: the self-started coordinator makes the in-process
// decisions (the oracle: the in-process run of the same seed); a
// strategy without a token is a usage error.
func TestCoordSimulate(t *testing.T) {
	out, errOut, code := run(t, "", "coord", "simulate", "--strategy", "ordered-nb-daly", "--span", "3d", "--skip", "1d", "--seed", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep iosim.ClosedLoopReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Same || rep.Diverged != -1 || rep.LocalDecisions < 50 || rep.LocalWaste != rep.RemoteWaste {
		t.Fatalf("closed loop: %+v", rep)
	}
	if _, errOut, code := run(t, "", "coord", "simulate", "--strategy", "oblivious-daly"); code != 2 || !strings.Contains(errOut, "oblivious-daly") {
		t.Fatalf("oblivious: exit %d, %s", code, errOut)
	}
}

// Every example of coord simulate's help runs (the second, at 10 GB/s and
// a 1-year MTBF, was refused: its Silverton class cannot make progress).
func TestCoordSimulateHelpExamplesRun(t *testing.T) {
	exs, err := helpExamples(findCommand(t, newRoot(), "coord", "simulate").Example)
	if err != nil || len(exs) < 2 {
		t.Fatalf("%d examples: %v", len(exs), err)
	}
	for _, ex := range exs {
		if out, errOut, code := run(t, "", ex.args...); code != 0 || !strings.Contains(out, "identical") && !strings.Contains(out, `"same": true`) {
			t.Errorf("%s: exit %d, %s%s", ex.line, code, out, errOut)
		}
	}
}
