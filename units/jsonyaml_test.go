package units

import (
	"encoding/json"
	"testing"

	"go.yaml.in/yaml/v3"
)

// JSONForYAML makes YAML read JSON strings as encoding/json does: a
// surrogate pair (Python's json.dump of an emoji) was refused by the YAML
// parser as "found invalid Unicode character escape code".
func TestJSONForYAML(t *testing.T) {
	for _, in := range []string{
		`{"name": "\ud83d\ude00 run"}`,
		`{"name": "a\\ud83d\ude00\"\ud83d\ude00"}`,
		`{"name": "lone \ud83d then \ude00 and \ud83d\u0041"}`,
		`["\uD83D\uDE00", "é\u00e9", "\\u"]`,
		`{"name": "plain"}`,
	} {
		var want any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		var got any
		if err := yaml.Unmarshal(JSONForYAML([]byte(in)), &got); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("%s: YAML read %s, encoding/json %s", in, gb, wb)
		}
	}
	for _, in := range []string{"a: \"\\ud83d\"\n", `{"a": "\ud83d\ude00"`, `{"name": "plain"}`} {
		if got := JSONForYAML([]byte(in)); string(got) != in {
			t.Errorf("%q changed to %q", in, got)
		}
	}
}
