package profile

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// A profile file (YAML, or JSON, which YAML reads too) describes an App:
//
//	name: slant                 # optional
//	checkpoint:                 # optional: C(V) = latency + V/bandwidth
//	  latency: 4.12             #   a duration (4.12, 5s, 1m, 00:00:05) in [0, MaxSeconds] (default 0)
//	  bandwidth: 0.207          #   GB/s (a plain number) or 207MB/s, >= MinBandwidth (required)
//	  restart: 30s              #   optional: the restart cost R, a duration in [0, MaxSeconds]
//	tasks:                      # at least one, in execution order
//	  - name: preprocessing     # optional
//	    walltime: normal:mu=255,sigma=96.7   # a distribution.Parse spec (seconds)
//	    mem: 3.5                # peak memory in GB, >= 0
//
// Durations follow units.ParseSeconds. A file holds one YAML document of at
// most MaxFileBytes bytes and MaxTasks tasks (larger ones wrap ErrTooLarge),
// mem is at most MaxMem GB, and a task law's quantile 1 − 10⁻⁷ at most
// MaxSeconds. Unknown keys are errors, and so are a
// task law of mean <= 0 (with a Normal law, a task of negative mean), a
// probability outside [0, 1] in a discrete law (discrete:600@0.25,1200@0.75),
// or probabilities that do not sum to 1. Every error is one line naming the
// file and, when the input has one, the line, in the file's vocabulary (keys
// and expected kinds of value, never Go types); a key given twice is an error.
//
// Profile is an App together with the checkpoint cost and the restart cost
// a profile file may carry (nil when absent).
type Profile struct {
	App        *App
	Checkpoint *CheckpointCost
	// Restart is the restart cost R in seconds.
	Restart *float64
}

// The keys of the schema, and how errors describe each level.
var (
	profileKeys    = []string{"name", "checkpoint", "tasks"}
	checkpointKeys = []string{"latency", "bandwidth", "restart"}
	taskKeys       = []string{"name", "walltime", "mem"}
)

// MaxFileBytes is the largest profile file Parse reads (1 MiB: a profile of
// MaxTasks tasks takes about 70 kB).
const MaxFileBytes = 1 << 20

// maxMergeDepth bounds the YAML merge keys followed (<<: *a inside *a …).
const maxMergeDepth = 8

// fileErrors builds the errors of one profile: "name:line: message", or
// "name: message" when there is no line.
type fileErrors string

func (name fileErrors) at(line int, format string, a ...any) error {
	if line <= 0 {
		return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
	}
	return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
}

// tooLarge is the error of a profile beyond a cap: it wraps ErrTooLarge.
func (name fileErrors) tooLarge(line int, format string, a ...any) error {
	at := string(name)
	if line > 0 {
		at = fmt.Sprintf("%s:%d", name, line)
	}
	return fmt.Errorf("%s: %w: %s", at, ErrTooLarge, fmt.Sprintf(format, a...))
}

// Parse reads a YAML or JSON profile (schema above); name is used in errors.
// It walks the YAML node tree rather than decoding into Go types, so that
// every error is made where the problem is found, with its line, in the
// file's vocabulary. O(size of the input).
func Parse(r io.Reader, name string) (*Profile, error) {
	e := fileErrors(name)
	root, err := readDocument(r, e)
	if err != nil {
		return nil, err
	}
	top, err := e.fields(root, "a profile: a mapping of name, checkpoint, tasks", "top-level keys", profileKeys, 0)
	if err != nil {
		return nil, err
	}
	p := &Profile{App: &App{}}
	if n := top["name"]; n != nil {
		if n.Kind != yaml.ScalarNode {
			return nil, e.at(n.Line, "want name: a string, got %s", describe(n))
		}
		p.App.Name = n.Value
	}
	if n := top["checkpoint"]; n != nil {
		if p.Checkpoint, p.Restart, err = e.checkpoint(n); err != nil {
			return nil, err
		}
	}
	tasks := top["tasks"]
	if tasks == nil {
		return nil, e.at(0, "profile has no tasks (want a list of {name, walltime, mem})")
	}
	if tasks.Kind != yaml.SequenceNode {
		return nil, e.at(tasks.Line, "want tasks: a list of {name, walltime, mem}, got %s", describe(tasks))
	}
	if len(tasks.Content) == 0 {
		return nil, e.at(tasks.Line, "profile has no tasks (want a list of {name, walltime, mem})")
	}
	if len(tasks.Content) > MaxTasks {
		return nil, e.tooLarge(tasks.Line, "%d tasks, more than %d", len(tasks.Content), MaxTasks)
	}
	for i, n := range tasks.Content {
		task, err := e.task(deref(n), i+1)
		if err != nil {
			return nil, err
		}
		p.App.Tasks = append(p.App.Tasks, task)
	}
	return p, nil
}

// readDocument reads the one YAML document of r (at most MaxFileBytes
// bytes) and returns its top node; an empty document, a larger input and a
// second document are refused.
func readDocument(r io.Reader, e fileErrors) (*yaml.Node, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, e.at(0, "%v", err)
	}
	if len(data) > MaxFileBytes {
		return nil, e.tooLarge(0, "more than %d bytes", MaxFileBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(units.JSONForYAML(data))) // JSON's surrogate-pair escapes, which YAML refuses
	var root yaml.Node
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		return nil, yamlSyntaxError(e, err)
	}
	if len(root.Content) == 0 || isNull(root.Content[0]) {
		return nil, e.at(0, "empty profile")
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
		return root.Content[0], nil
	case err != nil:
		return nil, yamlSyntaxError(e, err)
	}
	return nil, e.at(next.Line, "a second YAML document: a profile file holds one")
}

// fields returns the values of mapping n by key, following aliases and
// merge keys (explicit keys win over merged ones); null values count as
// absent. It refuses another kind of node (want describes the mapping), a
// key not in keys (listed as "<which> are …") and a key given twice.
func (e fileErrors) fields(n *yaml.Node, want, which string, keys []string, depth int) (map[string]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, e.at(n.Line, "want %s, got %s", want, describe(n))
	}
	out := map[string]*yaml.Node{}
	seen := map[string]bool{}
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			v = deref(v)
			if v.Kind == yaml.SequenceNode {
				merged = append(merged, v.Content...)
			} else {
				merged = append(merged, v)
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, e.at(k.Line, "want a key, got %s", describe(k))
		}
		if !slices.Contains(keys, k.Value) {
			return nil, e.at(k.Line, "unknown key %s (%s are %s)", quote(k.Value), which, strings.Join(keys, ", "))
		}
		if seen[k.Value] {
			return nil, e.at(k.Line, "key %q given twice", k.Value)
		}
		seen[k.Value] = true
		if v = deref(v); !isNull(v) {
			out[k.Value] = v
		}
	}
	if len(merged) > 0 && depth >= maxMergeDepth {
		return nil, e.at(n.Line, "merge keys nested more than %d deep", maxMergeDepth)
	}
	for _, m := range merged {
		sub, err := e.fields(m, want, which, keys, depth+1)
		if err != nil {
			return nil, err
		}
		for k, v := range sub {
			if !seen[k] {
				out[k], seen[k] = v, true
			}
		}
	}
	return out, nil
}

// checkpoint reads the checkpoint section n.
func (e fileErrors) checkpoint(n *yaml.Node) (*CheckpointCost, *float64, error) {
	f, err := e.fields(n, "checkpoint: a mapping of latency, bandwidth, restart", "checkpoint keys", checkpointKeys, 0)
	if err != nil {
		return nil, nil, err
	}
	var cost CheckpointCost
	if l := f["latency"]; l != nil {
		if cost.Latency, err = durationNode(l); err != nil {
			return nil, nil, e.at(l.Line, "checkpoint: latency %v", err)
		}
	}
	b := f["bandwidth"]
	if b == nil {
		return nil, nil, e.at(deref(n).Line, "checkpoint has no bandwidth (GB/s)")
	}
	if cost.Bandwidth, err = bandwidthNode(b); err != nil {
		return nil, nil, e.at(b.Line, "checkpoint: bandwidth %v", err)
	}
	var restart *float64
	if r := f["restart"]; r != nil {
		v, err := durationNode(r)
		if err != nil {
			return nil, nil, e.at(r.Line, "checkpoint: restart %v", err)
		}
		restart = &v
	}
	return &cost, restart, nil
}

// task reads task k (1-based), node n.
func (e fileErrors) task(n *yaml.Node, k int) (Task, error) {
	f, err := e.fields(n, "a task: a mapping of name, walltime, mem", "task keys", taskKeys, 0)
	if err != nil {
		return Task{}, err
	}
	w := f["walltime"]
	if w == nil {
		return Task{}, e.at(n.Line, "task %d has no walltime", k)
	}
	if w.Kind != yaml.ScalarNode {
		return Task{}, e.at(w.Line, "task %d: walltime must be a spec string such as normal:mu=255,sigma=96.7, got %s", k, describe(w))
	}
	d, err := distribution.Parse(w.Value)
	if err != nil {
		return Task{}, e.at(w.Line, "task %d: walltime: %v", k, err)
	}
	if m := d.Mean(); !(m > 0) {
		return Task{}, e.at(w.Line, "task %d: walltime %s has mean %v s, want a law of positive durations", k, w.Value, m)
	}
	if q := d.Quantile(1 - lawTail); !(q <= MaxSeconds) {
		return Task{}, e.at(w.Line, "task %d: walltime %s reaches %.3g s (its quantile 1-%g), beyond the limit of %.0e s; check the units (seconds)",
			k, w.Value, q, lawTail, float64(MaxSeconds))
	}
	m := f["mem"]
	if m == nil {
		return Task{}, e.at(n.Line, "task %d has no mem", k)
	}
	var mem float64
	if m.Kind != yaml.ScalarNode {
		return Task{}, e.at(m.Line, "task %d: mem must be a number of GB, got %s", k, describe(m))
	}
	if m.Decode(&mem) != nil {
		return Task{}, e.at(m.Line, "task %d: mem %s is not a number of GB", k, quote(m.Value))
	}
	if math.IsNaN(mem) || math.IsInf(mem, 0) || mem < 0 {
		return Task{}, e.at(m.Line, "task %d: mem %v GB is negative or not finite", k, m.Value)
	}
	if mem > MaxMem {
		return Task{}, e.at(m.Line, "task %d: mem %v GB exceeds the limit of %.0e GB; check the units of mem (GB)", k, m.Value, float64(MaxMem))
	}
	name := fmt.Sprintf("task%d", k)
	if t := f["name"]; t != nil {
		if t.Kind != yaml.ScalarNode {
			return Task{}, e.at(t.Line, "task %d: want name: a string, got %s", k, describe(t))
		}
		name = t.Value
	}
	return Task{Name: name, Walltime: d, Mem: mem}, nil
}

// lawTail is the upper tail mass of a task law allowed beyond MaxSeconds.
const lawTail = 1e-7

// durationNode reads a scalar in the grammar of units.ParseSeconds, in
// [0, MaxSeconds].
func durationNode(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a duration such as 5, 30s, 1m or 00:01:00, got %s", describe(n))
	}
	v, err := units.ParseSeconds(n.Value)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", quote(n.Value), err)
	}
	if !(v >= 0 && v <= MaxSeconds) {
		return 0, fmt.Errorf("%v s, want a value in [0, %.0e]", n.Value, float64(MaxSeconds))
	}
	return v, nil
}

// maxPlainGBps is the largest plain number a bandwidth field reads as
// GB/s (1 PB/s, a hundred times the fastest parallel file systems): above
// it the number is bytes/s written without a unit (40e9 for 40 GB/s was
// read as 4e10 GB/s, checkpoints of no cost).
const maxPlainGBps = 1e6

// bandwidthNode reads a bandwidth in GB/s: a plain number of GB/s (at
// most maxPlainGBps), or a value in the grammar of units.ParseBandwidth
// (207MB/s). It must be finite and > 0.
func bandwidthNode(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a number of GB/s or a bandwidth such as 200MB/s, got %s", describe(n))
	}
	var v float64
	if n.Decode(&v) == nil {
		if v > maxPlainGBps {
			return 0, fmt.Errorf("%s: a plain number is GB/s, and %s GB/s is beyond 1 PB/s: give bytes/s with a unit (e.g. 40GB/s)", quote(n.Value), n.Value)
		}
	} else {
		bps, err := units.ParseBandwidth(n.Value)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", quote(n.Value), err)
		}
		v = bps / 1e9
	}
	if !(v >= MinBandwidth) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s GB/s, want a finite value >= %g", n.Value, MinBandwidth)
	}
	return v, nil
}

// deref follows alias nodes (bounded: an alias names an earlier anchor).
func deref(n *yaml.Node) *yaml.Node {
	for range maxMergeDepth {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			return n
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// describe names the kind of a YAML node as a user knows it.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!str":
		return "a string " + quote(n.Value)
	case "!!int", "!!float":
		return "a number " + quote(n.Value)
	case "!!bool":
		return "a boolean " + quote(n.Value)
	case "!!null":
		return "null"
	}
	return "a value tagged " + quote(n.ShortTag())
}

// quote renders a value of the file for an error message, as trace.Quote
// does for every reader: quoted, escaped onto one line, cut to a readable
// length.
func quote(s string) string { return trace.Quote(s) }

// yamlLine matches the line yaml's syntax errors carry.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })

// yamlSyntaxError reports a YAML syntax error as "name:LINE: message" on
// one line. go.yaml.in/yaml/v3 gives the line only inside its message.
func yamlSyntaxError(e fileErrors, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return e.at(line, "%s", m[2])
	}
	return e.at(0, "%s", strings.TrimPrefix(msg, "yaml: "))
}

// Load reads a profile file; a missing or unreadable file is a usage.Error
// naming the path.
func Load(path string) (*Profile, error) {
	f, err := usage.Open(path)
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
