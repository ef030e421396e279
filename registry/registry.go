package registry

import (
	"fmt"
	"strings"
)

// Entry is one named value.
type Entry[T any] struct {
	Name string
	// Help is a one-line description for --help listings.
	Help  string
	Value T
}

// Registry maps names to values, keeping the order of registration.
type Registry[T any] struct {
	what    string
	entries []Entry[T]
	index   map[string]int
}

// New builds a registry of the given kind ("strategy", "policy",
// "algorithm") from entries. It panics on an empty or duplicate name: the
// entries are a literal in the capability's source, so this is a bug.
func New[T any](what string, entries ...Entry[T]) *Registry[T] {
	r := &Registry[T]{what: what, entries: entries, index: make(map[string]int, len(entries))}
	for i, e := range entries {
		if e.Name == "" {
			panic(fmt.Sprintf("registry %s: entry %d has no name", what, i))
		}
		if _, dup := r.index[e.Name]; dup {
			panic(fmt.Sprintf("registry %s: %q registered twice", what, e.Name))
		}
		r.index[e.Name] = i
	}
	return r
}

// Lookup returns the value registered under name, or an error naming the
// bad value and the known names.
func (r *Registry[T]) Lookup(name string) (T, error) {
	if i, ok := r.index[name]; ok {
		return r.entries[i].Value, nil
	}
	var zero T
	return zero, fmt.Errorf("unknown %s %q (known: %s)", r.what, name, strings.Join(r.Names(), ", "))
}

// Names returns the registered names in registration order.
func (r *Registry[T]) Names() []string {
	out := make([]string, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Name
	}
	return out
}

// Entries returns a copy of the entries in registration order.
func (r *Registry[T]) Entries() []Entry[T] { return append([]Entry[T](nil), r.entries...) }

// LookupList resolves a comma-separated list of names (as --strategies
// takes it): every name must be known, none may be empty or repeated.
func (r *Registry[T]) LookupList(list string) ([]T, []string, error) {
	names, err := SplitList(list)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, len(names))
	for i, n := range names {
		if out[i], err = r.Lookup(n); err != nil {
			return nil, nil, err
		}
	}
	return out, names, nil
}

// SplitList splits a comma-separated list of names, trimming spaces, and
// refuses an empty list, an empty item or an item given twice.
func SplitList(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("empty list")
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("empty item in list %q", list)
		}
		if seen[p] {
			return nil, fmt.Errorf("%q listed twice in %q", p, list)
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}
