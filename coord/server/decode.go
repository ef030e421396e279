package server

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// names caches jsonNames per request type.
var names sync.Map // reflect.Type -> []string

// jsonNames are the json names of struct type t's fields.
func jsonNames(t reflect.Type) []string {
	if n, ok := names.Load(t); ok {
		return n.([]string)
	}
	var n []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			n = append(n, tag)
		}
	}
	names.Store(t, n)
	return n
}

// exactKeys tells whether b is a JSON object whose every top-level key,
// free of escapes, is one of names exactly (encoding/json would match a
// key of another case too, which decode refuses). It only scans: false
// is "not sure", never a verdict on b. O(len(b)).
func exactKeys(b []byte, names []string) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(b) && b[end] != '"' && b[end] != '\\' {
			end++
		}
		if end >= len(b) || b[end] != '"' || !slices.Contains(names, string(b[i+1:end])) {
			return false
		}
		i = skipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		if i = skipValue(b, skipSpace(b, i+1)); i < 0 {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the value at b[i] (a string, an
// object or array with its nesting, or a scalar up to a delimiter), -1 if
// the input ends first. It does not validate: json.Unmarshal does.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return -1
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i < len(b) && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}
