package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
)

// Field is one named column of an output row.
//
// Value is formatted by its kind, so named types work too:
//   - floats: strconv.FormatFloat(v, 'g', -1, 64) (bit size 32 for float32),
//     which gives "NaN", "+Inf" and "-Inf" for the non-finite values; JSON
//     lines carry those three as strings, every other float as a number;
//   - signed and unsigned integers: decimal (a time.Duration is therefore its
//     count of nanoseconds);
//   - bool: true or false;
//   - string: as is (JSON-escaped in JSON lines);
//   - nil: the empty CSV cell, JSON null;
//   - any other type that implements fmt.Stringer or error: its String or
//     Error text, as a string (a dist.Distribution gives its spec string).
//
// Anything else (slices, maps, plain structs) is an error.
type Field struct {
	Name  string
	Value any
}

// Rower is implemented by results that choose their own columns. Row must
// return the same names in the same order for every result of a sweep.
type Rower interface {
	Row() []Field
}

// The leading columns of every output row.
var leading = [...]string{"item", "point", "rep", "seed"}

func isLeading(name string) bool {
	for _, l := range leading {
		if name == l {
			return true
		}
	}
	return false
}

// RowOf returns the columns of a result v, in this order of preference:
//   - if v implements Rower, v.Row();
//   - if v is a struct (or a non-nil pointer to one), one field per exported
//     struct field in declaration order, named by its `row:"name"` tag or
//     else by the Go field name; the tag `row:"-"` skips a field;
//   - if v is a single value of a kind Field accepts, one field "value".
//
// Names must be non-empty, unique, and not one of the leading columns item,
// point, rep and seed.
func RowOf(v any) ([]Field, error) {
	var fs []Field
	if r, ok := v.(Rower); ok {
		fs = r.Row()
	} else {
		rv := reflect.ValueOf(v)
		for rv.Kind() == reflect.Pointer && !rv.IsNil() {
			if _, ok := rv.Interface().(fmt.Stringer); ok {
				break
			}
			rv = rv.Elem()
		}
		if rv.Kind() == reflect.Struct && !isStringer(rv) {
			fs = structRow(rv)
		} else {
			fs = []Field{{Name: "value", Value: v}}
		}
	}
	if err := checkNames(fs); err != nil {
		return nil, err
	}
	return fs, nil
}

func isStringer(rv reflect.Value) bool {
	if !rv.CanInterface() {
		return false
	}
	switch rv.Interface().(type) {
	case fmt.Stringer, error:
		return true
	}
	return false
}

func checkNames(fs []Field) error {
	if len(fs) == 0 {
		return fmt.Errorf("result has no columns")
	}
	seen := make(map[string]bool, len(fs))
	for _, f := range fs {
		switch {
		case f.Name == "":
			return fmt.Errorf("result has a column with an empty name")
		case isLeading(f.Name):
			return fmt.Errorf("result column %q clashes with a leading column (item, point, rep, seed)", f.Name)
		case seen[f.Name]:
			return fmt.Errorf("result column %q appears twice", f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}

type structField struct {
	index int
	name  string
}

var structPlans sync.Map // reflect.Type → []structField

func structRow(rv reflect.Value) []Field {
	t := rv.Type()
	plan, ok := structPlans.Load(t)
	if !ok {
		var p []structField
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name := sf.Name
			if tag, ok := sf.Tag.Lookup("row"); ok {
				if tag == "-" {
					continue
				}
				if tag != "" {
					name = tag
				}
			}
			p = append(p, structField{index: i, name: name})
		}
		plan, _ = structPlans.LoadOrStore(t, p)
	}
	sfs := plan.([]structField)
	fs := make([]Field, len(sfs))
	for i, sf := range sfs {
		fs[i] = Field{Name: sf.name, Value: rv.Field(sf.index).Interface()}
	}
	return fs
}

// formatValue returns the CSV text of v and appends its JSON form to js.
func formatValue(v any, js *bytes.Buffer) (string, error) {
	if v == nil {
		js.WriteString("null")
		return "", nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		bits := 64
		if rv.Kind() == reflect.Float32 {
			bits = 32
		}
		f := rv.Float()
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			js.WriteByte('"')
			js.WriteString(s)
			js.WriteByte('"')
		} else {
			js.WriteString(s)
		}
		return s, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := strconv.FormatInt(rv.Int(), 10)
		js.WriteString(s)
		return s, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s := strconv.FormatUint(rv.Uint(), 10)
		js.WriteString(s)
		return s, nil
	case reflect.Bool:
		s := strconv.FormatBool(rv.Bool())
		js.WriteString(s)
		return s, nil
	case reflect.String:
		s := rv.String()
		writeJSONString(js, s)
		return s, nil
	}
	var s string
	switch x := v.(type) {
	case fmt.Stringer:
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			js.WriteString("null")
			return "", nil
		}
		s = x.String()
	case error:
		s = x.Error()
	default:
		return "", fmt.Errorf("unsupported type %T (want a number, bool, string, fmt.Stringer or error)", v)
	}
	writeJSONString(js, s)
	return s, nil
}

func writeJSONString(js *bytes.Buffer, s string) {
	enc := json.NewEncoder(js)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)         // cannot fail for a string
	js.Truncate(js.Len() - 1) // drop Encode's newline
}
