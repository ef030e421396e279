package capacity

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Algorithm decides the schedule of one section from what is known at its
// start. Implementations may keep scratch memory between calls (they are
// not safe for concurrent use); Plan must not modify the state.
type Algorithm interface {
	Name() string
	Plan(st *State) (*Plan, error)
}

// Factory builds an algorithm from its numeric parameter (ignored by the
// algorithms that have none).
type Factory struct {
	New      func(param float64) Algorithm
	HasParam bool
	Doc      string
}

var registry = map[string]Factory{}

// register is called by each algorithm's file from an init function.
func register(name string, f Factory) { registry[name] = f }

// Names lists the registered algorithms, sorted.
func Names() []string {
	ns := make([]string, 0, len(registry))
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// New builds the algorithm named spec: "dp-goodput", or "dp-bic:15",
// "target-yield:0.5", "target-goodput:0.9" for the parameterised ones.
func New(spec string) (Algorithm, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	p := 0.0
	switch {
	case f.HasParam && !hasArg:
		return nil, fmt.Errorf("algorithm %q needs a parameter, e.g. %s:15", name, name)
	case !f.HasParam && hasArg:
		return nil, fmt.Errorf("algorithm %q takes no parameter (got %q)", name, arg)
	case hasArg:
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("algorithm %q: bad parameter %q (want a number >= 0)", name, arg)
		}
		p = v
	}
	return f.New(p), nil
}
