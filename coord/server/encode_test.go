package server

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/output/jsontest"
	"pgregory.net/rapid"
)

func encoderBytes(v any) ([]byte, bool) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// TestAppendIsEncoder: every answer appendAnswer writes is, byte for
// byte, what json.Encoder (the path it replaces) writes; when it declines,
// the value has a string that needs escaping or a non-finite float64
// (the oracle is encoding/json itself, on arbitrary values).
func TestAppendIsEncoder(t *testing.T) {
	var tally jsontest.Tally
	rapid.Check(t, func(t *rapid.T) {
		f, s := jsontest.Float(), jsontest.String()
		var v any
		plainAll := true
		str := func(label string) string {
			x := s.Draw(t, label)
			plainAll = plainAll && output.JSONPlain(x)
			return x
		}
		num := func(label string) float64 {
			x := f.Draw(t, label)
			plainAll = plainAll && finite(x)
			return x
		}
		if rapid.Bool().Draw(t, "grant") {
			g := coord.Grant{Job: str("job"), RequestID: str("rid"), Status: str("status"), Token: rapid.Uint64().Draw(t, "token"),
				Expires: num("expires"), Share: num("share"), Waiting: rapid.Int().Draw(t, "waiting"), NonBlocking: rapid.Bool().Draw(t, "nb")}
			for range rapid.IntRange(0, 3).Draw(t, "notices") {
				g.Granted = append(g.Granted, coord.Notice{Job: str("njob"), RequestID: str("nrid"), Token: rapid.Uint64().Draw(t, "ntoken"), Expires: num("nexp")})
			}
			if rapid.Bool().Draw(t, "emptyGranted") && len(g.Granted) == 0 {
				g.Granted = []coord.Notice{} // omitempty: an empty, non-nil slice is omitted too
			}
			v = g
		} else {
			n := func(label string) output.Number { return output.Number(f.Draw(t, label)) } // Number writes null: never declined
			v = api.AdviceView{Job: str("job"), Method: str("method"), C: n("c"), MTBF: n("mtbf"), EY: n("ey"), Period: n("period"),
				Optimum: n("optimum"), At: n("at"), In: n("in"), Final: rapid.Bool().Draw(t, "final"), None: rapid.Bool().Draw(t, "none"), Reason: str("reason")}
		}
		got, ok := appendAnswer(nil, v)
		want, encodable := encoderBytes(v)
		tally.Check(t, v, got, ok, want, encodable, plainAll)
	})
	tally.Both(t)
}

// TestWriteJSONFallsBack: a value appendAnswer declines (a job id to
// escape) or does not know still gets encoding/json's bytes.
func TestWriteJSONFallsBack(t *testing.T) {
	for _, v := range []any{coord.Grant{Job: "<j>", Status: "granted"}, map[string]string{"status": "ok"},
		api.AdviceView{Job: "j\u2028", C: output.Number(math.NaN())}} {
		rec := httptest.NewRecorder()
		writeJSON(rec, 200, v)
		want, _ := json.Marshal(v)
		if got := rec.Body.String(); got != string(want)+"\n" {
			t.Errorf("%#v: wrote %q, want %q", v, got, want)
		}
	}
}

// fillAll sets every field of v, nested structs and slices' one element
// included, to a plain non-zero value (so that no omitempty omits it).
func fillAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(v.Index(0))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i))
			}
		}
	}
}

// TestAppendWritesEveryField: with every field of each answer type set,
// appendAnswer writes encoding/json's bytes; a field added to coord.Grant,
// coord.Notice or api.AdviceView and not to the hand-written encoder fails
// here (TestAppendIsEncoder draws only the fields it knows).
func TestAppendWritesEveryField(t *testing.T) {
	for _, v := range []any{&coord.Grant{}, &api.AdviceView{}} {
		rv := reflect.ValueOf(v).Elem()
		fillAll(rv)
		got, ok := appendAnswer(nil, rv.Interface())
		want, _ := encoderBytes(rv.Interface())
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%T with every field set: appended %q (ok %v), json.Encoder %q", rv.Interface(), got, ok, want)
		}
	}
}
