package profile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// manyTasks is a profile of n Normal tasks.
func manyTasks(n int) string {
	var b strings.Builder
	b.WriteString("name: many\ntasks:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - walltime: normal:mu=%d,sigma=%d\n    mem: %d\n", 100+i%50, 10+i%7, 1+i%13)
	}
	return b.String()
}

// TestParseRefusesWhatThePlannerCannotUse: a mem whose checkpoint and
// restart costs overflow, a second YAML document (silently ignored before),
// and profiles beyond the caps are refused in one line naming the file, the
// line and the key; the caps wrap ErrTooLarge.
func TestParseRefusesWhatThePlannerCannotUse(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		tooLarge       bool
	}{
		{"mem 1e308", "tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 1e308\n",
			"p.yaml:3: task 1: mem 1e308 GB exceeds the limit of 1e+09 GB", false},
		{"mem just above the cap", "tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 1.0000001e9\n",
			"p.yaml:3: task 1: mem 1.0000001e9 GB exceeds", false},
		{"second document", "tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 3\n---\ntasks:\n  - walltime: normal:mu=1,sigma=1\n    mem: 1\n",
			"p.yaml:4: a second YAML document: a profile file holds one", false},
		{"second empty document", "tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 3\n---\n",
			"a second YAML document", false},
		{"walltime beyond the bound", "tasks:\n  - walltime: normal:mu=1e308,sigma=1\n    mem: 3\n",
			"p.yaml:2: task 1: walltime normal:mu=1e308,sigma=1 reaches 1e+308 s", false},
		{"walltime spread beyond the bound", "tasks:\n  - walltime: normal:mu=100,sigma=1e308\n    mem: 3\n",
			"p.yaml:2: task 1: walltime normal:mu=100,sigma=1e308 reaches +Inf s", false},
		{"latency 1e308", "checkpoint:\n  latency: 1e308\n  bandwidth: 1\ntasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 3\n",
			"p.yaml:2: checkpoint: latency 1e308 s, want a value in [0, 1e+10]", false},
		{"restart 1e308", "checkpoint:\n  bandwidth: 1\n  restart: 1e308\ntasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 3\n",
			"p.yaml:3: checkpoint: restart 1e308 s, want a value in [0, 1e+10]", false},
		{"bandwidth 5e-324", "checkpoint:\n  bandwidth: 5e-324\ntasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 3\n",
			"p.yaml:2: checkpoint: bandwidth 5e-324 GB/s, want a finite value >= 1e-09", false},
		{"too many tasks", manyTasks(MaxTasks + 1), fmt.Sprintf("p.yaml:3: profile too large: %d tasks, more than %d", MaxTasks+1, MaxTasks), true},
		{"too many bytes", "name: x\n" + strings.Repeat("# padding\n", MaxFileBytes/10+1), "p.yaml: profile too large: more than", true},
	} {
		_, err := Parse(strings.NewReader(c.in), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
			continue
		}
		if errors.Is(err, ErrTooLarge) != c.tooLarge {
			t.Errorf("%s: errors.Is(%v, ErrTooLarge) = %v", c.name, err, !c.tooLarge)
		}
	}
	// At the caps, the profile is read.
	p, err := Parse(strings.NewReader(manyTasks(MaxTasks)), "p.yaml")
	if err != nil || len(p.App.Tasks) != MaxTasks {
		t.Fatalf("%d tasks: %v", MaxTasks, err)
	}
	if _, err := Parse(strings.NewReader("tasks:\n  - walltime: normal:mu=100,sigma=10\n    mem: 1e9\n"), "p.yaml"); err != nil {
		t.Fatalf("mem 1e9: %v", err)
	}
}

// TestAppValidateCaps: an App built in Go (a fit of many phases) meets the
// same caps as a file.
func TestAppValidateCaps(t *testing.T) {
	p, err := Parse(strings.NewReader(manyTasks(3)), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := p.App
	a.Tasks[1].Mem = 2e9
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "task 2: memory 2e+09 GB exceeds") {
		t.Errorf("mem 2e9: %v", err)
	}
	a.Tasks[1].Mem = 1
	for len(a.Tasks) <= MaxTasks {
		a.Tasks = append(a.Tasks, a.Tasks[0])
	}
	if err := a.Validate(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d tasks: %v, want ErrTooLarge", len(a.Tasks), err)
	}
}

// TestTimelineStopsWithItsContext: a cancelled context stops NewTimeline
// and Needs with its error.
func TestTimelineStopsWithItsContext(t *testing.T) {
	a, _ := Builtin("slant")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewTimeline(ctx, a, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("NewTimeline: %v, want context.Canceled", err)
	}
	tl, err := NewTimeline(context.Background(), a, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := tl.Needs(ctx, []float64{600, 3600}, 0.1, 0.1, false, CRIU); !errors.Is(err, context.Canceled) {
		t.Errorf("Needs: %v, want context.Canceled", err)
	}
}
