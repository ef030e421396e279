package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// A profile file (YAML, or JSON, which YAML reads too) describes an App:
//
//	name: slant                 # optional
//	checkpoint:                 # optional: C(V) = latency + V/bandwidth
//	  latency: 4.12             #   seconds, >= 0 (default 0)
//	  bandwidth: 0.207          #   GB/s, > 0 (required)
//	tasks:                      # at least one, in execution order
//	  - name: preprocessing     # optional
//	    walltime: normal:mu=255,sigma=96.7   # a distribution.Parse spec (seconds)
//	    mem: 3.5                # peak memory in GB, >= 0
//
// Unknown keys are errors, and so are a task law of mean <= 0 (with a
// Normal law, a task of negative mean), a probability outside [0, 1] in a
// discrete law (discrete:600@0.25,1200@0.75), or probabilities that do not
// sum to 1. Every error is one line naming the file and, when the input
// has one, the line.
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
		return nil, fmt.Errorf("%s%s", name, yamlError(err))
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty profile", name)
	}
	var fp fileProfile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fp); err != nil {
		return nil, fmt.Errorf("%s%s", name, yamlError(err))
	}
	// at names the line when the node has one (a value reached through a
	// YAML merge key or an alias may not).
	at := func(line int, format string, a ...any) error {
		if line <= 0 {
			return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
		}
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	doc := root.Content[0]
	if len(fp.Tasks) == 0 {
		if v := mapValue(doc, "tasks"); v != nil {
			return nil, at(v.Line, "profile has no tasks (want a list of {name, walltime, mem})")
		}
		return nil, fmt.Errorf("%s: profile has no tasks (want a list of {name, walltime, mem})", name)
	}
	p := &Profile{App: &App{Name: fp.Name}, Checkpoint: fp.Checkpoint}
	if c := p.Checkpoint; c != nil {
		ck := mapValue(doc, "checkpoint")
		line := 0
		if ck != nil {
			line = ck.Line
		}
		if !(c.Latency >= 0) || math.IsInf(c.Latency, 0) {
			if v := mapValue(ck, "latency"); v != nil {
				line = v.Line
			}
			return nil, at(line, "checkpoint: latency %v s, want a finite value >= 0", c.Latency)
		}
		if !(c.Bandwidth > 0) || math.IsInf(c.Bandwidth, 0) {
			v := mapValue(ck, "bandwidth")
			if v == nil {
				return nil, at(line, "checkpoint has no bandwidth (GB/s)")
			}
			return nil, at(v.Line, "checkpoint: bandwidth %v GB/s, want a finite value > 0", c.Bandwidth)
		}
	}
	taskLine := func(i int) int {
		if v := mapValue(doc, "tasks"); v != nil && v.Kind == yaml.SequenceNode && i < len(v.Content) {
			return v.Content[i].Line
		}
		return 0
	}
	for i, t := range fp.Tasks {
		if t.Walltime.Kind == 0 {
			return nil, at(taskLine(i), "task %d has no walltime", i+1)
		}
		if t.Walltime.Kind != yaml.ScalarNode {
			return nil, at(t.Walltime.Line, "task %d: walltime must be a spec string such as normal:mu=255,sigma=96.7", i+1)
		}
		d, err := distribution.Parse(t.Walltime.Value)
		if err != nil {
			return nil, at(t.Walltime.Line, "task %d: walltime: %v", i+1, err)
		}
		if m := d.Mean(); !(m > 0) {
			return nil, at(t.Walltime.Line, "task %d: walltime %s has mean %v s, want a law of positive durations", i+1, t.Walltime.Value, m)
		}
		if t.Mem.Kind == 0 {
			return nil, at(taskLine(i), "task %d has no mem", i+1)
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

// mapValue is the value node of key in mapping node m (nil if absent).
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

var (
	yamlLine    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknown = regexp.MustCompile(`^field (.+) not found in type (\S+)$`)
	yamlType    = regexp.MustCompile(`^cannot unmarshal !!(\w+)(?: (.*))? into (\S+)$`)
)

// yamlTypes names the Go types of the schema as a user knows them.
var yamlTypes = map[string]string{
	"profile.fileProfile":     "a profile: a mapping of name, checkpoint, tasks",
	"[]profile.fileTask":      "tasks: a list of {name, walltime, mem}",
	"profile.fileTask":        "a task: a mapping of name, walltime, mem",
	"*profile.CheckpointCost": "checkpoint: a mapping of latency, bandwidth",
	"profile.CheckpointCost":  "checkpoint: a mapping of latency, bandwidth",
	"float64":                 "a number",
	"string":                  "a string",
}

// yamlKeys lists the keys allowed where a Go type of the schema is decoded.
var yamlKeys = map[string]string{
	"profile.fileProfile":    "top-level keys are name, checkpoint, tasks",
	"profile.fileTask":       "task keys are name, walltime, mem",
	"profile.CheckpointCost": "checkpoint keys are latency, bandwidth",
}

// yamlError renders a YAML decoding error as ":LINE: message" (or ": message"
// when it has no line), one line, in the profile's vocabulary rather than
// the Go types'.
func yamlError(err error) string {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return ": " + strings.TrimPrefix(msg, "yaml: ")
	}
	line, rest := m[1], m[2]
	if u := yamlUnknown.FindStringSubmatch(rest); u != nil {
		rest = fmt.Sprintf("unknown key %q", u[1])
		if keys, ok := yamlKeys[u[2]]; ok {
			rest += " (" + keys + ")"
		}
	} else if t := yamlType.FindStringSubmatch(rest); t != nil {
		want, ok := yamlTypes[t[3]]
		if !ok {
			want = t[3]
		}
		got := "a " + map[string]string{"seq": "list", "map": "mapping", "str": "string", "int": "number", "float": "number", "bool": "boolean", "null": "null"}[t[1]]
		if got == "a " {
			got = "!!" + t[1]
		}
		if t[2] != "" {
			got += " " + t[2]
		}
		rest = fmt.Sprintf("want %s, got %s", want, got)
	}
	return ":" + line + ": " + rest
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
			a.Tasks = append(a.Tasks, Task{Name: fmt.Sprintf("task%d", i+1), Walltime: distribution.Normal{Mu: mu[i], Sigma: sd[i]}, Mem: mem[i]})
		}
		return a, true
	case "macruise":
		mu := []float64{50, 66, 181}
		sd := []float64{12, 12.5, 43}
		mem := []float64{7.5, 5.5, 2.75}
		a := &App{Name: "macruise"}
		for i := range mu {
			a.Tasks = append(a.Tasks, Task{Name: fmt.Sprintf("task%d", i+1), Walltime: distribution.Normal{Mu: 60 * mu[i], Sigma: 60 * sd[i]}, Mem: mem[i]})
		}
		return a, true
	}
	return nil, false
}

// Builtins lists the names Builtin knows.
var Builtins = []string{"slant", "macruise"}
