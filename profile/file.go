package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ckpt-hpc/ckpt/dist"
)

// A profile file (YAML, or JSON, which YAML reads too) describes an App:
//
//	name: slant                 # optional
//	checkpoint:                 # optional: C(V) = latency + V/bandwidth
//	  latency: 4.12             #   seconds, >= 0
//	  bandwidth: 0.207          #   GB/s, > 0
//	tasks:                      # at least one, in execution order
//	  - name: preprocessing     # optional
//	    walltime: normal:mu=255,sigma=96.7   # a dist.Parse spec (seconds)
//	    mem: 3.5                # peak memory in GB, >= 0
//
// Unknown keys are errors. Every error names the file and the line.
type fileProfile struct {
	Name       string          `yaml:"name"`
	Checkpoint *CheckpointCost `yaml:"checkpoint"`
	Tasks      []fileTask      `yaml:"tasks"`
}

type fileTask struct {
	Name     string    `yaml:"name"`
	Walltime yaml.Node `yaml:"walltime"`
	Mem      yaml.Node `yaml:"mem"`
}

// Profile is an App together with the checkpoint cost a profile file may
// carry (nil when absent).
type Profile struct {
	App        *App
	Checkpoint *CheckpointCost
}

// Parse reads a YAML or JSON profile (schema above); name is used in errors.
func Parse(r io.Reader, name string) (*Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %s", name, oneLine(err))
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty profile", name)
	}
	var fp fileProfile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fp); err != nil {
		return nil, fmt.Errorf("%s: %s", name, oneLine(err))
	}
	at := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	if len(fp.Tasks) == 0 {
		return nil, fmt.Errorf("%s: profile has no tasks", name)
	}
	p := &Profile{App: &App{Name: fp.Name}, Checkpoint: fp.Checkpoint}
	if p.Checkpoint != nil {
		if err := p.Checkpoint.Validate(); err != nil {
			return nil, fmt.Errorf("%s: checkpoint: %w", name, err)
		}
	}
	for i, t := range fp.Tasks {
		if t.Walltime.Kind == 0 {
			return nil, fmt.Errorf("%s: task %d has no walltime", name, i+1)
		}
		if t.Walltime.Kind != yaml.ScalarNode {
			return nil, at(t.Walltime.Line, "task %d: walltime must be a spec string such as normal:mu=255,sigma=96.7", i+1)
		}
		d, err := dist.Parse(t.Walltime.Value)
		if err != nil {
			return nil, at(t.Walltime.Line, "task %d: walltime: %v", i+1, err)
		}
		if t.Mem.Kind == 0 {
			return nil, fmt.Errorf("%s: task %d has no mem", name, i+1)
		}
		var mem float64
		if t.Mem.Kind != yaml.ScalarNode || t.Mem.Decode(&mem) != nil {
			return nil, at(t.Mem.Line, "task %d: mem %q is not a number of GB", i+1, t.Mem.Value)
		}
		if math.IsNaN(mem) || math.IsInf(mem, 0) || mem < 0 {
			return nil, at(t.Mem.Line, "task %d: mem %v GB is negative or not finite", i+1, t.Mem.Value)
		}
		tn := t.Name
		if tn == "" {
			tn = fmt.Sprintf("task%d", i+1)
		}
		p.App.Tasks = append(p.App.Tasks, Task{Name: tn, Walltime: d, Mem: mem})
	}
	return p, nil
}

func oneLine(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return te.Errors[0]
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// Load reads a profile file.
func Load(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Builtin returns a built-in application: "slant" (Table 2's Normal fits
// with the task peaks of Section 2.3: 3.5, 10, 6, 10, 50, 3.5 and 10 GB) or
// "macruise" (Table 3: Normal laws of means 50, 66 and 181 min, standard
// deviations 12, 12.5 and 43 min, peaks 7.5, 5.5 and 2.75 GB).
func Builtin(name string) (*App, bool) {
	switch strings.ToLower(name) {
	case "slant":
		mu := []float64{255, 871, 588, 459, 3050, 804, 1130}
		sd := []float64{96.7, 322, 76.8, 48.1, 263, 393, 568}
		mem := []float64{3.5, 10, 6, 10, 50, 3.5, 10}
		a := &App{Name: "slant"}
		for i := range mu {
			a.Tasks = append(a.Tasks, Task{Name: fmt.Sprintf("task%d", i+1), Walltime: dist.Normal{Mu: mu[i], Sigma: sd[i]}, Mem: mem[i]})
		}
		return a, true
	case "macruise":
		mu := []float64{50, 66, 181}
		sd := []float64{12, 12.5, 43}
		mem := []float64{7.5, 5.5, 2.75}
		a := &App{Name: "macruise"}
		for i := range mu {
			a.Tasks = append(a.Tasks, Task{Name: fmt.Sprintf("task%d", i+1), Walltime: dist.Normal{Mu: 60 * mu[i], Sigma: 60 * sd[i]}, Mem: mem[i]})
		}
		return a, true
	}
	return nil, false
}

// Builtins lists the names Builtin knows.
var Builtins = []string{"slant", "macruise"}
