package server

import (
	"strconv"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// The bodies of the job operations (acquire, release, renew, cancel,
// done, next) are small flat objects. fastDecode reads the common case
// by hand — each key exactly a json name of the request, once; each value
// a number, a boolean, or a string of printable ASCII without escapes,
// of the field's type — into the values json.Unmarshal gives (the same
// strconv parse of the same literal); anything else (null, escapes,
// non-ASCII, nested values, a duplicate key, a number json would refuse,
// trailing data) it declines, untouched, to decode's general path. So
// the verdict is decode's in every case (TestFastDecodeIsDecode: equal
// structs, no error, on every body it accepts; FuzzFastDecode).
// O(len(b)).

// field is one key and its value's literal in a flat object.
type field struct {
	key, val []byte
	kind     byte // '"' a plain string (val without its quotes), '0' a number, 't' or 'f' a boolean
}

// maxFields bounds the keys fastDecode reads (the largest hot request
// has 6 fields).
const maxFields = 8

// fastDecode decodes b into *v if v is a hot request type and b a flat
// object it fully recognises; false leaves *v untouched.
func fastDecode(b []byte, v any) bool {
	var fs [maxFields]field
	n, ok := scanFlat(b, &fs)
	if !ok {
		return false
	}
	f := fs[:n]
	switch v := v.(type) {
	case *api.AcquireRequest:
		return fields(f, v, func(r *api.AcquireRequest, x field) bool {
			switch string(x.key) {
			case "request_id":
				return x.str(&r.RequestID)
			case "kind":
				return x.kindOf(&r.Kind)
			case "size_bytes":
				return x.float(&r.Bytes)
			case "ttl_s":
				return x.float(&r.TTL)
			case "last_checkpoint_s":
				return x.float(&r.LastCheckpoint)
			case "now_s":
				return x.floatPtr(&r.Now)
			}
			return false
		})
	case *api.ReleaseRequest:
		return fields(f, v, func(r *api.ReleaseRequest, x field) bool {
			switch string(x.key) {
			case "token":
				return x.uint(&r.Token)
			case "duration_s":
				return x.float(&r.Duration)
			case "now_s":
				return x.floatPtr(&r.Now)
			}
			return false
		})
	case *api.RenewRequest:
		return fields(f, v, func(r *api.RenewRequest, x field) bool {
			switch string(x.key) {
			case "token":
				return x.uint(&r.Token)
			case "now_s":
				return x.floatPtr(&r.Now)
			}
			return false
		})
	case *api.NowRequest:
		return fields(f, v, func(r *api.NowRequest, x field) bool {
			return string(x.key) == "now_s" && x.floatPtr(&r.Now)
		})
	case *api.CancelRequest:
		return fields(f, v, func(r *api.CancelRequest, x field) bool {
			switch string(x.key) {
			case "request_id":
				return x.str(&r.RequestID)
			case "now_s":
				return x.floatPtr(&r.Now)
			}
			return false
		})
	case *api.DoneRequest:
		return fields(f, v, func(r *api.DoneRequest, x field) bool {
			switch string(x.key) {
			case "failed":
				return x.bool(&r.Failed)
			case "now_s":
				return x.floatPtr(&r.Now)
			}
			return false
		})
	}
	return false
}

// fields decodes f into a fresh T, a field at a time (set false: a key T
// does not have, or a value not of its field's type), and stores it in *v
// only if every field was set.
func fields[T any](f []field, v *T, set func(r *T, x field) bool) bool {
	var r T
	for _, x := range f {
		if !set(&r, x) {
			return false
		}
	}
	*v = r
	return true
}

func (x field) str(p *string) bool {
	if x.kind != '"' {
		return false
	}
	*p = string(x.val)
	return true
}

// float is json's float64: strconv.ParseFloat of the literal (json
// refuses what it refuses: out of range).
func (x field) float(p *float64) bool {
	if x.kind != '0' {
		return false
	}
	f, err := strconv.ParseFloat(string(x.val), 64)
	*p = f
	return err == nil
}

func (x field) floatPtr(p **float64) bool {
	var f float64
	if !x.float(&f) {
		return false
	}
	*p = &f
	return true
}

// uint is json's uint64: strconv.ParseUint of the literal in base 10
// (json refuses a sign, a fraction, an exponent, an overflow).
func (x field) uint(p *uint64) bool {
	if x.kind != '0' {
		return false
	}
	u, err := strconv.ParseUint(string(x.val), 10, 64)
	*p = u
	return err == nil
}

func (x field) bool(p *bool) bool {
	if x.kind != 't' && x.kind != 'f' {
		return false
	}
	*p = x.kind == 't'
	return true
}

// kindOf is arbiter.Kind's UnmarshalText on a string: a kind's name.
func (x field) kindOf(p *arbiter.Kind) bool {
	if x.kind != '"' {
		return false
	}
	for k := arbiter.Input; k <= arbiter.Output; k++ {
		if string(x.val) == k.String() {
			*p = k
			return true
		}
	}
	return false
}

// scanFlat splits b, a JSON object with JSON whitespace around its
// tokens, into at most maxFields distinct keys and their values, each a
// plain string, a number (JSON's grammar) or true/false; false for
// anything else or more.
func scanFlat(b []byte, fs *[maxFields]field) (int, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	n := 0
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return 0, skipSpace(b, i+1) == len(b)
	}
	for {
		if n == maxFields {
			return 0, false
		}
		key, j, ok := plainString(b, i)
		if !ok {
			return 0, false
		}
		for _, f := range fs[:n] {
			if string(f.key) == string(key) {
				return 0, false // a duplicate: json keeps the last; left to it
			}
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipSpace(b, i+1)
		f := field{key: key}
		switch {
		case i >= len(b):
			return 0, false
		case b[i] == '"':
			f.kind = '"'
			if f.val, i, ok = plainString(b, i); !ok {
				return 0, false
			}
		case b[i] == 't' && hasAt(b, i, "true"):
			f.kind, i = 't', i+4
		case b[i] == 'f' && hasAt(b, i, "false"):
			f.kind, i = 'f', i+5
		default:
			j := number(b, i)
			if j < 0 {
				return 0, false
			}
			f.kind, f.val, i = '0', b[i:j], j
		}
		fs[n] = f
		n++
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '}':
			return n, skipSpace(b, i+1) == len(b)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, false
		}
	}
}

// plainString reads the string at b[i]: its contents (printable ASCII
// without escapes: json reads them as themselves) and the index after
// its closing quote.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func hasAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// number returns the index after the JSON number at b[i] (-?(0|[1-9]d*)
// (.d+)?([eE][+-]?d+)?), -1 if there is none.
func number(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
