package iosim

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

const cieloYAML = `platform:
  name: cielo
  nodes: 17784
  memory_per_node: 32e9
  bandwidth: 40e9
  node_mtbf: 2y
classes:
  - {name: EAP, nodes: 1024, walltime: 262.4h, input: 0.03, output: 1.05, checkpoint: 1.6, share: 0.66}
  - {name: LAP, nodes: 256, walltime: 64h, input: 0.05, output: 2.2, checkpoint: 1.85, share: 0.055}
  - {name: Silverton, nodes: 2048, walltime: 128h, input: 0.7, output: 0.43, checkpoint: 3.5, regular_io: 0.05, share: 0.165}
  - {name: VPIC, nodes: 1875, walltime: 157.2h, input: 0.1, output: 2.7, checkpoint: 0.85, regular_io: 20, share: 0.12}
`

func TestLoadYAMLMatchesEmbedded(t *testing.T) {
	fh, err := os.Open("testdata/cielo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	c, err := Load(fh)
	if err != nil {
		t.Fatal(err)
	}
	want := Cielo()
	for i := range want.Classes {
		a, b := c.Classes[i], want.Classes[i]
		if math.Abs(float64(a.Walltime-b.Walltime)) > 1e-6 {
			t.Fatalf("class %d walltime %v vs %v", i, a.Walltime, b.Walltime)
		}
		a.Walltime = b.Walltime
		if a != b {
			t.Fatalf("class %d: %+v vs %+v", i, a, b)
		}
	}
	if c.Platform != want.Platform {
		t.Fatalf("%+v vs %+v", c.Platform, want.Platform)
	}
	// Checkpoint times at 40 GB/s are those of the paper's Maple file.
	for i, want := range []float64{1310.72, 378.88, 5734.4, 1275} {
		if got := c.CheckpointTime(i); math.Abs(got-want) > 1e-9 {
			t.Errorf("C_%d = %v, want %v", i, got, want)
		}
	}
}

// The JSON that `ckpt iosim run --print-config` writes loads back.
func TestJSONRoundTrip(t *testing.T) {
	for name, mk := range Platforms {
		want := mk()
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s: %+v != %+v", name, *got, want)
		}
	}
}

func TestLoadJSON(t *testing.T) {
	js := `{"platform": {"nodes": 10, "memory_per_node": 1e9, "bandwidth": 1e9, "node_mtbf": 86400},
	"classes": [{"name": "a", "nodes": 5, "walltime": "2h", "checkpoint": 1, "share": 1}]}`
	c, err := Load(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if c.Classes[0].Walltime != 7200 || c.Platform.NodeMTBF != 86400 {
		t.Fatalf("%+v", c)
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		edit  func(*Config)
		field string
	}{
		{func(c *Config) { c.Platform.Nodes = 0 }, "platform.nodes"},
		{func(c *Config) { c.Platform.Bandwidth = 0 }, "platform.bandwidth"},
		{func(c *Config) { c.Platform.Bandwidth = -1 }, "platform.bandwidth"},
		{func(c *Config) { c.Platform.NodeMTBF = 0 }, "platform.node_mtbf"},
		{func(c *Config) { c.Platform.MemoryPerNode = math.NaN() }, "platform.memory_per_node"},
		{func(c *Config) { c.Classes[2].Nodes = 20000 }, "classes[2].nodes"},
		{func(c *Config) { c.Classes[0].Share = 0.5 }, "share"},
		{func(c *Config) { c.Classes[1].Checkpoint = 0 }, "classes[1].checkpoint"},
		{func(c *Config) { c.Classes[3].Walltime = -1 }, "classes[3].walltime"},
		{func(c *Config) { c.Classes = nil }, "classes"},
		// Finite fields whose products overflow: β·q in the sharing was
		// +Inf and a transfer's end NaN (a panic in des before MaxScale).
		{func(c *Config) { c.Platform.Bandwidth = 1e297 }, "platform.bandwidth"},
		{func(c *Config) { c.Platform.MemoryPerNode = 1e290; c.Classes[1].Output = 1e7 }, "classes[1].output"},
	}
	for _, tc := range cases {
		c := Cielo()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("want one-line error naming %s, got %v", tc.field, err)
		}
	}
	c := Cielo()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	p := Prospective()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

// A JSON config with a surrogate-pair escape, what Python's json.dump
// writes for an emoji, loads as encoding/json reads it (the YAML parser
// refused it: "found invalid Unicode character escape code").
func TestLoadJSONSurrogatePair(t *testing.T) {
	in := `{"platform": {"name": "c\ud83d\ude00", "nodes": 10, "memory_per_node": 1e9, "bandwidth": 1e9, "node_mtbf": "1y"},
 "classes": [{"name": "a\ud83d\ude00\ud83d", "nodes": 2, "walltime": "1h", "checkpoint": 1, "share": 1}]}`
	c, err := Load(strings.NewReader(in))
	if err != nil || c.Platform.Name != "c\U0001F600" || c.Classes[0].Name != "a\U0001F600\uFFFD" {
		t.Fatalf("%+v, %v", c, err)
	}
}

func TestLoadRejects(t *testing.T) {
	for _, in := range []string{"", "platform: [", "platform: {nodes: 3, bogus: 1}", "platform: {nodes: x}",
		"platform: {nodes: 10, memory_per_node: 1, bandwidth: 1, node_mtbf: 1y}\nclasses: [{name: a, nodes: 20, walltime: 1h, checkpoint: 1, share: 1}]",
		"platform: {nodes: 10, memory_per_node: 1, bandwidth: 1, node_mtbf: 1y}\nclasses: [{name: a, nodes: 2, walltime: 1h, checkpoint: 1, share: 0.3}]",
		"platform: {nodes: 10, memory_per_node: 1, bandwidth: 1, node_mtbf: soon}"} {
		if _, err := Load(strings.NewReader(in)); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v", in, err)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(cieloYAML)
	f.Add(`{"platform": {"nodes": 10}}`)
	f.Add(`{"platform": {"name": "\ud83d\ude00", "nodes": 10, "memory_per_node": 1e9, "bandwidth": 1e9, "node_mtbf": "1y"}, "classes": [{"name": "a\ud83d", "nodes": 2, "walltime": "1h", "checkpoint": 1, "share": 1}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Load(strings.NewReader(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("loaded config fails validation: %v", err)
		}
	})
}

// An unknown key is one line naming the config, the line, the key, its
// section and the keys that section accepts.
func TestLoadUnknownKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"platform:\n  name: x\n  nodez: 10\n", `config apex.yaml:3: unknown key "nodez" in platform (known: name, nodes, memory_per_node, bandwidth, node_mtbf)`},
		{"platform: {nodes: 10}\nclazzes: []\n", `config apex.yaml:2: unknown key "clazzes" at the top level (known: platform, classes)`},
		{"classes:\n  - name: a\n    nodse: 3\n", `config apex.yaml:3: unknown key "nodse" in a class (known: name, nodes, walltime, input, output, checkpoint, regular_io, share)`},
		{"platform: {nodes: 10, x: 1, y: 2}\n", `config apex.yaml:1: unknown key "x" in platform (known: name, nodes, memory_per_node, bandwidth, node_mtbf) (and 1 more)`},
		{"platform: {node_mtbf: soon}\n", `config apex.yaml:1: node_mtbf: invalid duration "soon"`},
		{"platform:\n  nodes: 100.5\n", `config apex.yaml:2: nodes: want a whole number of nodes, got 100.5`},
		{"platform:\n  bandwidth: 20GB/x\n", `config apex.yaml:2: bandwidth: `},
		{"platform:\n  name: a\n   nodes: [\n", `config apex.yaml:3: `},
		{"classes:\n  - nodes: 3\n  - nodes: 2.5\n", `config apex.yaml:3: nodes: want a whole number`},
	} {
		_, err := LoadNamed(strings.NewReader(tc.in), "apex.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
	if _, err := Load(strings.NewReader("platform: {nodez: 1}")); err == nil || !strings.HasPrefix(err.Error(), `config:1: unknown key "nodez" in platform`) {
		t.Errorf("unnamed: %v", err)
	}
}

// Load reads a YAML or JSON config (JSON is read as YAML), rejects
// unknown fields, and validates it. Errors are one line starting with
// "config: " (see LoadNamed).
func Load(r io.Reader) (*Config, error) { return LoadNamed(r, "") }
