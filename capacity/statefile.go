package capacity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
)

// MaxProcessors bounds P_max in a state file: the dynamic programs keep
// O(m·P_max²) bytes of traceback.
const MaxProcessors = 1 << 16

// stateFile is the JSON layout read by ReadState.
type stateFile struct {
	PMin   *int      `json:"p_min"`
	PMax   *int      `json:"p_max"`
	Delta  *int      `json:"delta"`
	P      *int      `json:"p"`
	Length *float64  `json:"length"`
	Jobs   []fileJob `json:"jobs"`
}

type fileJob struct {
	P      int      `json:"p"`
	C      float64  `json:"c"`
	R      float64  `json:"r"`
	Status *Status  `json:"status"`
	Yield  *float64 `json:"yield"`
	Work   *float64 `json:"work"`
	Avail  *float64 `json:"avail"`
}

// ReadState reads the state of a section for an online decision, the
// input of `ckpt capacity decide`:
//
//	{"p_min": 80, "p_max": 400, "delta": 40, "p": 350, "length": 100,
//	 "jobs": [{"p": 16, "c": 12, "r": 12, "status": "running", "yield": 0.3}, ...]}
//
// status is running, checkpointed or idle (the job's state at the end of
// the previous section); a job gives its yield so far, or (not both) its
// work l_j and yield denominator avail (1 when left out). With yields
// only, Work = yield and Avail = 1 (infinite jobs share the denominator,
// so only their order matters). Unknown fields, missing fields, a field
// given twice in one object, a yield with work or avail, values of the
// wrong JSON type, times above MaxTime, an empty input and anything after
// the state are errors naming the job and the field; the state is
// validated (State.Validate).
func ReadState(r io.Reader, name string) (*State, error) {
	in, err := decodeState(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for _, f := range []struct {
		name    string
		missing bool
	}{{"p_min", in.PMin == nil}, {"p_max", in.PMax == nil}, {"delta", in.Delta == nil}, {"p", in.P == nil}, {"length", in.Length == nil}} {
		if f.missing {
			return nil, fmt.Errorf("%s: missing field %q", name, f.name)
		}
	}
	if *in.PMax > MaxProcessors {
		return nil, fmt.Errorf("%s: p_max = %d: at most %d supported", name, *in.PMax, MaxProcessors)
	}
	if err := checkTimes(in); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	st := &State{Platform: Platform{PMin: *in.PMin, PMax: *in.PMax, Delta: *in.Delta}, P: *in.P, T: *in.Length}
	for j, jb := range in.Jobs {
		if jb.Status == nil {
			return nil, fmt.Errorf("%s: job %d: missing field \"status\"", name, j)
		}
		st.Jobs = append(st.Jobs, Job{P: jb.P, C: jb.C, R: jb.R})
		st.Status = append(st.Status, *jb.Status)
		work, avail := 0.0, 1.0
		switch {
		case jb.Yield != nil && (jb.Work != nil || jb.Avail != nil):
			return nil, fmt.Errorf("%s: job %d: field \"yield\" given with \"work\" or \"avail\": give the yield, or the work and avail, not both", name, j)
		case jb.Yield != nil:
			work = *jb.Yield
		case jb.Work == nil:
			return nil, fmt.Errorf("%s: job %d: missing field \"yield\" (or \"work\" and \"avail\")", name, j)
		default:
			work = *jb.Work
			if jb.Avail != nil {
				avail = *jb.Avail
			}
		}
		if !(work >= 0) || !(avail >= 0) || math.IsInf(work, 0) || math.IsInf(avail, 0) {
			return nil, fmt.Errorf("%s: job %d: yield, work and avail must be finite and >= 0", name, j)
		}
		if *jb.Status == Done {
			return nil, fmt.Errorf("%s: job %d: status must be running, checkpointed or idle", name, j)
		}
		st.Work = append(st.Work, work)
		st.Avail = append(st.Avail, avail)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return st, nil
}

// decodeState decodes exactly one JSON object from r, with errors in the
// state file's terms (field names of the file, JSON types, byte offsets).
func decodeState(r io.Reader) (*stateFile, error) {
	b, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var in stateFile
	if err := dec.Decode(&in); err != nil {
		return nil, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON state (at byte %d)", dec.InputOffset())
	}
	if where, key, ok := duplicateKey(b); ok {
		return nil, fmt.Errorf("%sfield %q given twice", where, key)
	}
	return &in, nil
}

// duplicateKey finds the first key given twice (ignoring case, as
// encoding/json matches them) in one object of the JSON value b
// (encoding/json keeps the last silently): where is "" for the
// state itself, "job N: " for the N-th job (0-based), "KEY: " for another
// value. b is a valid JSON value (decoded before).
func duplicateKey(b []byte) (where, key string, found bool) {
	type frame struct {
		obj    bool
		keys   map[string]bool
		key    bool   // the next token of the object is a key
		where  string // prefix naming the value
		last   string // the object's current key
		n      int    // the array's elements so far
		inJobs bool   // the array is the state's jobs
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			k, isKey := tok.(string)
			// encoding/json matches keys to fields ignoring case.
			fold := strings.ToLower(strings.ToUpper(k))
			if !isKey { // the closing brace
				stack = stack[:len(stack)-1]
			} else if top.keys[fold] {
				return top.where, k, true
			} else {
				top.keys[fold], top.last, top.key = true, k, false
				continue
			}
		} else if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			f := &frame{obj: d == '{', keys: map[string]bool{}, key: true}
			switch {
			case top == nil:
			case top.obj:
				f.where, f.inJobs = top.where+top.last+": ", top.where == "" && top.last == "jobs"
			case top.inJobs:
				f.where = fmt.Sprintf("job %d: ", top.n)
			default:
				f.where = fmt.Sprintf("%s%d: ", top.where, top.n)
			}
			stack = append(stack, f)
			continue
		} else if ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
		}
		// A value of the enclosing object or array has ended.
		if len(stack) == 0 {
			return "", "", false
		}
		if p := stack[len(stack)-1]; p.obj {
			p.key = true
		} else {
			p.n++
		}
	}
}

// jsonError rewrites a decoding error without Go's type names.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("empty input: want a JSON state {\"p_min\": ..., \"jobs\": [...]}")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("truncated JSON state")
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the state"
		}
		typ := te.Type
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		want := jsonKind(typ.Kind())
		if typ == reflect.TypeFor[Status]() {
			want = "running, checkpointed or idle"
		}
		return fmt.Errorf("field %q: want %s, got a JSON %s (at byte %d)", field, want, te.Value, te.Offset)
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names the JSON type expected for a Go kind.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	}
	return "another type"
}

// Resolution is the shortest checkpoint or recovery time a state file
// may give, as a fraction of the section's length: 2^-44, 2^8 ulps, so
// that length − C and C + work stay distinct from length and work (a C
// below the ulp of the length made the programs plan a checkpoint that
// ends where it starts, and an invalid schedule).
const Resolution = 0x1p-44

// checkTimes refuses times above MaxTime (lengths, C_j, R_j, work, avail),
// whose products with P would overflow or lose their precision, and C_j
// or R_j too short for the section's length to tell apart (Resolution).
func checkTimes(in *stateFile) error {
	if *in.Length > MaxTime {
		return fmt.Errorf("length = %g: at most %g supported", *in.Length, float64(MaxTime))
	}
	res := *in.Length * Resolution
	for j, jb := range in.Jobs {
		for _, f := range []struct {
			name string
			v    float64
		}{{"c", jb.C}, {"r", jb.R}} {
			if f.v > 0 && f.v < res {
				return fmt.Errorf("job %d: %s = %g: below the time resolution of a section of length %g (%.3g = length·2^-44)", j, f.name, f.v, *in.Length, res)
			}
		}
		for _, f := range []struct {
			name string
			v    *float64
		}{{"c", &jb.C}, {"r", &jb.R}, {"yield", jb.Yield}, {"work", jb.Work}, {"avail", jb.Avail}} {
			if f.v != nil && *f.v > MaxTime {
				return fmt.Errorf("job %d: %s = %g: at most %g supported", j, f.name, *f.v, float64(MaxTime))
			}
		}
	}
	return nil
}
