package iosim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/ckpt-hpc/ckpt/units"
)

// Seconds is a duration in seconds: units.Seconds, which reads a number
// of seconds or any duration of units.ParseSeconds ("262.4h", "730d",
// "2y", "00:10:00") from YAML and JSON.
type Seconds = units.Seconds

// Year is 365 days in seconds, the unit of node MTBFs in the paper.
const Year = units.Year

// Platform is the machine of Section II: N nodes sharing one parallel
// file system.
type Platform struct {
	// Name labels outputs. LoadNamed names a config without one after its
	// file ("custom" when it has no file name).
	Name string `yaml:"name" json:"name"`
	// Nodes is N, the number of compute nodes: a whole number in
	// [1, MaxNodes].
	Nodes int `yaml:"nodes" json:"nodes"`
	// MemoryPerNode is in bytes; I/O volumes are fractions of a job's
	// memory (nodes × MemoryPerNode). Valid range: (0, +∞).
	MemoryPerNode float64 `yaml:"memory_per_node" json:"memory_per_node"`
	// Bandwidth is β, the aggregate file-system bandwidth in bytes/s (in a
	// config a number or a string such as "40GB/s"). Valid range: (0, +∞).
	Bandwidth units.Bandwidth `yaml:"bandwidth" json:"bandwidth"`
	// NodeMTBF is μ_ind, the MTBF of one node in seconds (failures are
	// exponential, independent per node). Valid range: (0, +∞].
	NodeMTBF Seconds `yaml:"node_mtbf" json:"node_mtbf"`
}

// Class is an application class of Section II / Table I.
type Class struct {
	// Name labels the class (EAP, LAP, ...).
	Name string `yaml:"name" json:"name"`
	// Nodes is q, the nodes of every job of the class: a whole number,
	// 1 ≤ q ≤ N.
	Nodes int `yaml:"nodes" json:"nodes"`
	// Walltime is w, the typical work time in seconds; jobs draw their
	// work uniformly in [0.8w, 1.2w] (Section V).
	Walltime Seconds `yaml:"walltime" json:"walltime"`
	// Input, Output and Checkpoint are the initial input, final output
	// and checkpoint sizes as fractions of the job's memory (1.6 = 160%).
	// Input, Output ≥ 0; Checkpoint > 0.
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	Checkpoint float64 `yaml:"checkpoint" json:"checkpoint"`
	// RegularIO is the volume of regular (non-checkpoint) I/O over the
	// whole run as a fraction of the job's memory, spread evenly over the
	// work. ≥ 0.
	RegularIO float64 `yaml:"regular_io" json:"regular_io"`
	// Share is the fraction of the platform's node-hours the class uses;
	// the shares of all classes sum to 1.
	Share float64 `yaml:"share" json:"share"`
}

// Config is a platform with its workload.
type Config struct {
	Platform Platform `yaml:"platform" json:"platform"`
	Classes  []Class  `yaml:"classes" json:"classes"`
}

// JobMemory is the memory of one job of class c in bytes.
func (c *Config) JobMemory(k int) float64 {
	return float64(c.Classes[k].Nodes) * c.Platform.MemoryPerNode
}

// CheckpointTime is C_k = checkpoint bytes / β, the interference-free
// checkpoint (and recovery, R = C) duration of class k.
func (c *Config) CheckpointTime(k int) float64 {
	return c.Classes[k].Checkpoint * c.JobMemory(k) / float64(c.Platform.Bandwidth)
}

// WithBandwidth returns a copy of c with bandwidth β (bytes/s).
func (c Config) WithBandwidth(beta float64) Config {
	c.Platform.Bandwidth = units.Bandwidth(beta)
	c.Classes = append([]Class(nil), c.Classes...)
	return c
}

// WithNodeMTBF returns a copy of c with node MTBF mu (seconds).
func (c Config) WithNodeMTBF(mu float64) Config {
	c.Platform.NodeMTBF = Seconds(mu)
	c.Classes = append([]Class(nil), c.Classes...)
	return c
}

// MaxNodes is the largest platform SimulateContext accepts: six times Fugaku's
// 158 976 nodes. A simulation holds a few hundred bytes per node (its
// failure stream and pending failure event), so this bounds a run's memory
// at a few hundred megabytes.
const MaxNodes = 1_000_000

// MaxScale bounds the platform's aggregate bandwidth (bandwidth × nodes)
// and every class's volume over the whole platform (fraction × memory per
// node × nodes): beyond it the simulator's products and sums of rates and
// bytes could overflow to ±Inf and NaN. It is 10¹⁵⁰ times any machine's.
const MaxScale = 1e300

// bandwidthOverflow says why b B/s on each of nodes nodes exceeds
// MaxScale, or "" when it does not.
func bandwidthOverflow(b float64, nodes int) string {
	if b*float64(nodes) <= MaxScale {
		return ""
	}
	return fmt.Sprintf("%v B/s × %d nodes exceeds %g: the sharing arithmetic would overflow", b, nodes, MaxScale)
}

// ShareTolerance is how far the class shares may sum from 1.
const ShareTolerance = 1e-3

// Validate checks every field; the error is one line naming the field.
func (c *Config) Validate() error {
	p := &c.Platform
	switch {
	case p.Nodes <= 0 || p.Nodes > MaxNodes:
		return fmt.Errorf("platform.nodes: must be in [1, %d], got %d", MaxNodes, p.Nodes)
	case !(p.MemoryPerNode > 0) || math.IsInf(p.MemoryPerNode, 0):
		return fmt.Errorf("platform.memory_per_node: must be a positive number of bytes, got %v", p.MemoryPerNode)
	case !(p.Bandwidth > 0) || math.IsInf(float64(p.Bandwidth), 0):
		return fmt.Errorf("platform.bandwidth: must be a positive number of bytes/s, got %v", p.Bandwidth)
	case bandwidthOverflow(float64(p.Bandwidth), p.Nodes) != "":
		return fmt.Errorf("platform.bandwidth: %s", bandwidthOverflow(float64(p.Bandwidth), p.Nodes))
	case !(p.NodeMTBF > 0):
		return fmt.Errorf("platform.node_mtbf: must be positive, got %v", float64(p.NodeMTBF))
	case len(c.Classes) == 0:
		return errors.New("classes: at least one application class is needed")
	}
	sum := 0.0
	names := map[string]int{}
	for i, k := range c.Classes {
		f := func(field, format string, a ...any) error {
			return fmt.Errorf("classes[%d].%s (%s): %s", i, field, k.Name, fmt.Sprintf(format, a...))
		}
		j, dup := names[k.Name]
		names[k.Name] = i
		switch {
		case dup: // the report keys classes by name
			return f("name", "%q is also the name of classes[%d]", k.Name, j)
		case k.Nodes <= 0:
			return f("nodes", "must be ≥ 1, got %d", k.Nodes)
		case k.Nodes > p.Nodes:
			return f("nodes", "%d nodes is larger than the platform (%d nodes)", k.Nodes, p.Nodes)
		case !(k.Walltime > 0) || math.IsInf(float64(k.Walltime), 0):
			return f("walltime", "must be positive, got %v", float64(k.Walltime))
		case !(k.Input >= 0) || math.IsInf(k.Input, 0):
			return f("input", "must be ≥ 0, got %v", k.Input)
		case !(k.Output >= 0) || math.IsInf(k.Output, 0):
			return f("output", "must be ≥ 0, got %v", k.Output)
		case !(k.Checkpoint > 0) || math.IsInf(k.Checkpoint, 0):
			return f("checkpoint", "must be positive, got %v", k.Checkpoint)
		case !(k.RegularIO >= 0) || math.IsInf(k.RegularIO, 0):
			return f("regular_io", "must be ≥ 0, got %v", k.RegularIO)
		case !(k.Share > 0) || k.Share > 1:
			return f("share", "must be in (0, 1], got %v", k.Share)
		}
		for _, v := range []struct {
			field string
			frac  float64
		}{{"input", k.Input}, {"output", k.Output}, {"checkpoint", k.Checkpoint}, {"regular_io", k.RegularIO}} {
			if b := v.frac * p.MemoryPerNode * float64(p.Nodes); !(b <= MaxScale) {
				return f(v.field, "%v × memory_per_node %v × %d nodes exceeds %g bytes: the volumes' arithmetic would overflow", v.frac, p.MemoryPerNode, p.Nodes, MaxScale)
			}
		}
		sum += k.Share
	}
	if math.Abs(sum-1) > ShareTolerance {
		return fmt.Errorf("classes[].share: shares sum to %v, not 1", sum)
	}
	return nil
}

// MaxConfigBytes is the largest config LoadNamed reads.
const MaxConfigBytes = 1 << 20

// LoadNamed reads a YAML or JSON config (JSON is read as YAML) called
// name (usually its file name), rejects unknown fields, trailing data and
// a second document, and validates it. Errors are one line naming the
// config, with the line when the parser gives one:
//
//	config apex.yaml:3: unknown key "nodez" in platform (known: name, nodes, memory_per_node, bandwidth, node_mtbf)
//	config apex.yaml: platform.nodes: must be ≥ 1, got 0
func LoadNamed(r io.Reader, name string) (*Config, error) {
	where := "config"
	if name != "" {
		where = "config " + name
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", where, MaxConfigBytes)
	}
	data = units.JSONForYAML(data) // JSON's surrogate-pair escapes, which YAML refuses
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, decodeError(where, err)
	}
	if root.Kind == 0 {
		return nil, fmt.Errorf("%s: empty", where)
	}
	if err := checkScalars(&root, ""); err != nil {
		return nil, fmt.Errorf("%s:%v", where, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty", where)
		}
		return nil, decodeError(where, err)
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case err == nil:
		return nil, fmt.Errorf("%s:%d: a second YAML document; a config is one document", where, more.Line)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: unexpected data after the config", where)
	}
	if c.Platform.Name == "" {
		c.Platform.Name = defaultName(name)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &c, nil
}

// defaultName names a platform after its config file: "apex" for
// "conf/apex.yaml", "custom" for standard input or no name.
func defaultName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	if file == "" || file == "-" || base == "" || base == "." || strings.HasPrefix(base, "(") {
		return "custom"
	}
	return base
}

// checkScalars walks the YAML tree before it is decoded and checks the
// scalars whose errors the decoder would report without a line or would
// accept wrongly: node counts must be whole numbers (nodes: 100.5 is not
// 100), durations must read as units.ParseSeconds and bandwidths as
// units.ParseBandwidth. The error starts with the line number.
func checkScalars(n *yaml.Node, key string) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := checkScalars(c, key); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkScalars(n.Content[i+1], n.Content[i].Value); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return checkScalar(n, key)
	}
	return nil
}

func checkScalar(n *yaml.Node, key string) error {
	var err error
	switch key {
	case "nodes":
		if v, perr := strconv.ParseFloat(n.Value, 64); perr == nil && v != math.Trunc(v) {
			err = fmt.Errorf("nodes: want a whole number of nodes, got %s", n.Value)
		}
	case "walltime", "node_mtbf":
		if _, perr := units.ParseSeconds(n.Value); perr != nil {
			err = fmt.Errorf("%s: %v", key, perr)
		}
	case "bandwidth":
		if _, perr := units.ParseBandwidth(n.Value); perr != nil {
			err = fmt.Errorf("%s: %v", key, perr)
		}
	}
	if err != nil {
		return fmt.Errorf("%d: %v", n.Line, err)
	}
	return nil
}

var (
	yamlLine     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	yamlUnknown  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type iosim\.(\w+)$`) })
	yamlTypeName = strings.NewReplacer("iosim.Platform", "the platform section", "iosim.Class", "a class",
		"iosim.Config", "the config", "iosim.Seconds", "a duration", "[]iosim.Class", "the class list")
	// sections name where the fields of each type live, for messages.
	sections = map[string]struct {
		where string
		typ   reflect.Type
	}{
		"Config":   {"at the top level", reflect.TypeFor[Config]()},
		"Platform": {"in platform", reflect.TypeFor[Platform]()},
		"Class":    {"in a class", reflect.TypeFor[Class]()},
	}
)

// decodeError turns a YAML decoding error into one line: the config, the
// line, and for an unknown key the section and its known keys.
func decodeError(where string, err error) error {
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msgs = te.Errors
	}
	msg := strings.TrimSpace(msgs[0])
	loc := where
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		loc, msg = where+":"+m[1], m[2]
	}
	if m := yamlUnknown().FindStringSubmatch(msg); m != nil {
		if sec, ok := sections[m[2]]; ok {
			msg = fmt.Sprintf("unknown key %q %s (known: %s)", m[1], sec.where, strings.Join(yamlKeys(sec.typ), ", "))
		} else {
			msg = fmt.Sprintf("unknown key %q", m[1])
		}
	} else {
		msg = yamlTypeName.Replace(msg)
	}
	if len(msgs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(msgs)-1)
	}
	return fmt.Errorf("%s: %s", loc, strings.ReplaceAll(msg, "\n", "; "))
}

// yamlKeys lists the yaml keys of a struct type in field order.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			out = append(out, k)
		}
	}
	return out
}

// MarshalJSON writes the platform with plain numbers (seconds, bytes/s),
// as --print-config has always written it.
func (p Platform) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string  `json:"name"`
		Nodes         int     `json:"nodes"`
		MemoryPerNode float64 `json:"memory_per_node"`
		Bandwidth     float64 `json:"bandwidth"`
		NodeMTBF      float64 `json:"node_mtbf"`
	}{p.Name, p.Nodes, p.MemoryPerNode, float64(p.Bandwidth), float64(p.NodeMTBF)})
}

// MarshalJSON writes the class with its walltime in seconds.
func (k Class) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name       string  `json:"name"`
		Nodes      int     `json:"nodes"`
		Walltime   float64 `json:"walltime"`
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		Checkpoint float64 `json:"checkpoint"`
		RegularIO  float64 `json:"regular_io"`
		Share      float64 `json:"share"`
	}{k.Name, k.Nodes, float64(k.Walltime), k.Input, k.Output, k.Checkpoint, k.RegularIO, k.Share})
}
