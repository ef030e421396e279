package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"pgregory.net/rapid"
)

// decodeBefore is decodeBody as it was before fastDecode (c8b8a5b), the
// oracle: the blank and {} bodies, then exactKeys with json.Unmarshal,
// then the key-by-key path.
func decodeBefore(b []byte, v any) error {
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.Trim(b, " \t\r\n")) == "{}" {
		return nil
	}
	if exactKeys(b, jsonNames(reflect.TypeOf(v).Elem())) && json.Unmarshal(b, v) == nil {
		return nil
	}
	return decodeKeys(b, v)
}

// hotRequests are new values of the request types fastDecode reads.
var hotRequests = []func() any{
	func() any { return new(api.AcquireRequest) }, func() any { return new(api.ReleaseRequest) },
	func() any { return new(api.RenewRequest) }, func() any { return new(api.NowRequest) },
	func() any { return new(api.CancelRequest) }, func() any { return new(api.DoneRequest) },
}

// sameAsBefore checks body b on every hot request type: where fastDecode
// accepts it, the decode before gives no error and the same struct;
// where it declines, it left the struct untouched. It reports how many
// types fastDecode accepted b for.
func sameAsBefore(t interface {
	Fatalf(string, ...any)
}, b []byte) int {
	accepted := 0
	for _, mk := range hotRequests {
		fast, before := mk(), mk()
		if !fastDecode(b, fast) {
			if !reflect.DeepEqual(fast, mk()) {
				t.Fatalf("fastDecode declined %q for %T but changed it: %+v", b, fast, fast)
			}
			continue
		}
		accepted++
		if err := decodeBefore(b, before); err != nil {
			t.Fatalf("fastDecode accepted %q for %T (%+v); the decode before refuses it: %v", b, fast, fast, err)
		}
		if !reflect.DeepEqual(fast, before) {
			t.Fatalf("body %q for %T: fastDecode %+v, the decode before %+v", b, fast, deref(fast), deref(before))
		}
	}
	return accepted
}

func deref(v any) string {
	s, _ := json.Marshal(v)
	return string(s)
}

// bodyGen draws request bodies near the hot requests': mostly their
// keys with values of the right type, and at every token, now and then,
// something else: other keys (another case, escaped, unknown), values of
// the wrong type, numbers json refuses or reads oddly (1e400, 01, 1., -0,
// 18446744073709551616, 1e2 for a token), strings with escapes, control
// and non-ASCII bytes, null, duplicates, JSON and non-JSON whitespace,
// wrong separators, trailing data, truncation; and arbitrary bytes.
var groups = [][]string{{"request_id", "kind", "size_bytes", "ttl_s", "last_checkpoint_s", "now_s"},
	{"token", "duration_s", "now_s"}, {"token", "now_s"}, {"now_s"}, {"request_id", "now_s"}, {"failed", "now_s"}}
var oddKeys = []string{"Request_ID", "TOKEN", "now_S", `now\u005fs`, "bogus", "", "job", "re\"q", "kind", "token", "failed", "size_bytes"}
var good = map[string][]string{
	"request_id": {`"r1"`, `"a<b>&c"`, `""`, `"x y"`, `"job-0001:r.7_"`},
	"kind":       {`"checkpoint"`, `"recovery"`, `"regular-io"`, `"output"`, `"input"`},
	"token":      {`0`, `1`, `42`, `18446744073709551615`},
	"failed":     {`true`, `false`},
	"":           {`0`, `-0`, `1`, `42`, `1795906630.2549033`, `1e-7`, `1E5`, `1e+2`, `-3.5`, `5e-324`, `1.7976931348623157e308`},
}
var ws = []string{"", "", "", "", " ", "\n", "\t", "\r\n "}
var oddWS = []string{"\f", "\u00a0", "\v", "\x00", "\xef\xbb\xbf"}
var oddVals = []string{`"Checkpoint"`, `"bogus"`, `"r\"1"`, `"r\u0031"`, `"r\\"`, "\"r\x01\"", `"é"`, "\"\xff\"", `"1"`,
	`1e400`, `-1e400`, `1e-400`, `01`, `1.`, `.5`, `-`, `+1`, `18446744073709551616`, `-1`, `1.0`, `1e2`, `42`, `true`,
		`null`, `tru`, `{}`, `[]`, `[1]`, `{"a":1}`, `NaN`, `Infinity`, `0x10`, `"`, `1 2`}
var oddness int // per body: 0 none, else one token in 8·oddness is odd

func bodyGen() *rapid.Generator[[]byte] {
	pick := func(t *rapid.T, label string, good, odd []string) string {
		if oddness > 0 && rapid.IntRange(0, 8*oddness-1).Draw(t, label+"?") == 0 {
			return rapid.SampledFrom(odd).Draw(t, label)
		}
		return rapid.SampledFrom(good).Draw(t, label)
	}
	structured := rapid.Custom(func(t *rapid.T) []byte {
		g := rapid.SampledFrom(groups).Draw(t, "type")
		oddness = rapid.IntRange(0, 3).Draw(t, "oddness")
		var sb strings.Builder
		sb.WriteString(pick(t, "ws0", ws, oddWS) + "{")
		n := rapid.IntRange(0, len(g)+1).Draw(t, "n")
		for i, k := range rapid.Permutation(g).Draw(t, "keys") {
			if i >= n {
				break
			}
			if i > 0 {
				sb.WriteString(pick(t, "wsc", ws, oddWS) + pick(t, "comma", []string{","}, []string{";", ",,", ""}))
			}
			k = pick(t, "key", []string{k}, oddKeys)
			sb.WriteString(pick(t, "wsk", ws, oddWS) + `"` + k + `"` + pick(t, "wsa", ws, oddWS))
			sb.WriteString(pick(t, "colon", []string{":"}, []string{"=", "::", ""}) + pick(t, "wsv", ws, oddWS))
			v, ok := good[k]
			if !ok {
				v = good[""]
			}
			sb.WriteString(pick(t, "val", v, oddVals))
		}
		sb.WriteString(pick(t, "wse", ws, oddWS) + pick(t, "end", []string{"}"}, []string{"", "}}", "} {}", "}x", "},", "]"}) + pick(t, "ws1", ws, oddWS))
		return []byte(sb.String())
	})
	return rapid.OneOf(structured, structured, structured, rapid.SliceOfN(rapid.Byte(), 0, 40))
}

// TestFastDecodeGrid: every key (the requests' and odd ones) with
// every value (each type's and odd ones), alone and after a valid field,
// and every whitespace (JSON's and not) at every place of a valid body,
// on every hot request type: fastDecode's verdict is the decode before.
func TestFastDecodeGrid(t *testing.T) {
	var keys []string
	for _, g := range groups {
		keys = append(keys, g...)
	}
	keys = append(keys, oddKeys...)
	var vals []string
	for _, v := range good {
		vals = append(vals, v...)
	}
	vals = append(vals, oddVals...)
	accepted := 0
	for _, k := range keys {
		for _, v := range vals {
			for _, pre := range []string{"", `"now_s":7,`, `"request_id":"r2",`, `"token":3,`} {
				accepted += sameAsBefore(t, []byte(`{`+pre+`"`+k+`":`+v+`}`))
			}
		}
	}
	body := []string{"", "{", "", `"request_id"`, "", ":", "", `"r1"`, "", ",", "", `"kind"`, "", ":", "", `"checkpoint"`, "", "}", ""}
	for i := 0; i < len(body); i += 2 {
		for _, w := range append(ws, oddWS...) {
			b := slices.Clone(body)
			b[i] = w
			accepted += sameAsBefore(t, []byte(strings.Join(b, "")))
		}
	}
	if accepted < 500 {
		t.Fatalf("accepted %d bodies: the grid must exercise the fast path", accepted)
	}
}

// TestFastDecodeIsDecode: on every body, fastDecode's verdict is the
// decode before it (the oracle: c8b8a5b's decode, key by key or in one
// json.Unmarshal): a body it accepts decodes there without error into the
// same struct; and it does accept the bodies the clients send (the Go
// client's json.Marshal of any request with an id of [A-Za-z0-9._:-]).
func TestFastDecodeIsDecode(t *testing.T) {
	var accepted, declined int
	rapid.Check(t, func(t *rapid.T) {
		for _, b := range rapid.SliceOfN(bodyGen(), 1, 30).Draw(t, "bodies") {
			if sameAsBefore(t, b) > 0 {
				accepted++
			} else {
				declined++
			}
		}
	})
	if accepted < 50 || declined < 50 {
		t.Fatalf("accepted %d bodies, declined %d: both must be exercised", accepted, declined)
	}
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.StringMatching(`[A-Za-z0-9._:-]{1,40}`).Draw(t, "id")
		f := rapid.Float64Range(-1e20, 1e20)
		now := f.Draw(t, "now")
		var reqs []any
		switch rapid.IntRange(0, 5).Draw(t, "type") {
		case 0:
			reqs = append(reqs, &api.AcquireRequest{RequestID: id, Kind: arbiter.Kind(rapid.IntRange(0, 4).Draw(t, "kind")),
				Bytes: f.Draw(t, "bytes"), TTL: f.Draw(t, "ttl"), LastCheckpoint: f.Draw(t, "last"), Now: &now})
		case 1:
			reqs = append(reqs, &api.ReleaseRequest{Token: rapid.Uint64().Draw(t, "token"), Duration: f.Draw(t, "d")})
		case 2:
			reqs = append(reqs, &api.RenewRequest{Token: rapid.Uint64().Draw(t, "token"), Now: &now})
		case 3:
			reqs = append(reqs, &api.NowRequest{Now: &now})
		case 4:
			reqs = append(reqs, &api.CancelRequest{RequestID: id})
		case 5:
			reqs = append(reqs, &api.DoneRequest{Failed: rapid.Bool().Draw(t, "failed"), Now: &now})
		}
		b, _ := json.Marshal(reqs[0])
		got := reflect.New(reflect.TypeOf(reqs[0]).Elem()).Interface()
		if !fastDecode(b, got) {
			t.Fatalf("fastDecode declined the client's body %s for %T", b, got)
		}
		if !reflect.DeepEqual(got, reqs[0]) {
			t.Fatalf("body %s: got %s", b, deref(got))
		}
		sameAsBefore(t, b)
	})
}

// FuzzFastDecode: fastDecode accepts nothing the decode before refuses
// or reads otherwise.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{`{"request_id":"r1","kind":"checkpoint"}`, `{"token":17}`, `{"token":17,"duration_s":0.5,"now_s":3}`,
		`{"now_s":1e-7}`, ` { "failed" : true } `, `{"request_id":"r1","kind":"checkpoint","size_bytes":1e9,"ttl_s":30,"last_checkpoint_s":2,"now_s":5}`,
		`{"token":1e2}`, `{"now_s":1e400}`, `{"token":1,"token":2}`, `{"request_id":"r\u0031"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameAsBefore(t, b) })
}

// BenchmarkDecodeAcquire: the load generator's acquire body by the
// decode before (exactKeys and json.Unmarshal) and by fastDecode.
func BenchmarkDecodeAcquire(b *testing.B) {
	body := []byte(`{"request_id":"r123456","kind":"checkpoint"}`)
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var r api.AcquireRequest
			if decodeBefore(body, &r) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			var r api.AcquireRequest
			if decodeBody(body, &r) != nil {
				b.Fatal("refused")
			}
		}
	})
}
