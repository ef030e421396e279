package distribution

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// families lists the spec names Parse accepts, in Table 1 order, then
// Normal and Discrete.
var families = []string{
	"exponential", "weibull", "gamma", "lognormal", "pareto",
	"truncnormal", "uniform", "beta", "boundedpareto", "normal", "discrete",
}

// Families returns the family names Parse accepts.
func Families() []string { return append([]string(nil), families...) }

// paramKind says how a spec value is read.
type paramKind int

const (
	plain    paramKind = iota // a bare number (rates, shapes, log-scale parameters)
	duration                  // a time: seconds or a duration as units.ParseSeconds reads it
)

// paramSpec describes one key of a family's spec.
type paramSpec struct {
	key  string
	kind paramKind
}

// familyKeys lists, for each parametric family, the keys Parse accepts.
var familyKeys = map[string][]paramSpec{
	"exponential":   {{"rate", plain}, {"mean", duration}},
	"weibull":       {{"k", plain}, {"lambda", duration}},
	"gamma":         {{"alpha", plain}, {"beta", plain}},
	"lognormal":     {{"mu", plain}, {"sigma", plain}, {"mean", duration}, {"sd", duration}},
	"pareto":        {{"xm", duration}, {"alpha", plain}},
	"truncnormal":   {{"mu", duration}, {"sigma", duration}, {"a", duration}, {"b", duration}},
	"uniform":       {{"a", duration}, {"b", duration}},
	"beta":          {{"alpha", plain}, {"beta", plain}, {"a", duration}, {"b", duration}},
	"boundedpareto": {{"l", duration}, {"h", duration}, {"alpha", plain}},
	"normal":        {{"mu", duration}, {"sigma", duration}},
}

// Parse reads a distribution spec, "family:key=value,key=value,…":
//
//	exponential:rate=R            or exponential:mean=DURATION
//	weibull:k=K,lambda=DURATION
//	gamma:alpha=A,beta=B          (beta is the rate, per second)
//	lognormal:mu=M,sigma=S        (of log X, in log-seconds)
//	                              or lognormal:mean=DURATION,sd=DURATION
//	pareto:xm=DURATION,alpha=A
//	truncnormal:mu=D,sigma=D,a=D,b=D
//	uniform:a=D,b=D
//	beta:alpha=A,beta=B[,a=D,b=D] (a, b default to 0 and 1)
//	boundedpareto:l=D,h=D,alpha=A
//	normal:mu=D,sigma=D
//	discrete:v1@p1,v2@p2,…        (values are durations)
//	truncated[LO,HI]:SPEC         (SPEC truncated to [LO, HI], durations)
//
// Every family also takes the optional keys loc=D, a=D and b=D (a
// placement): the law is first shifted by loc (X + loc, scipy's loc), then
// truncated to [a, b] and renormalised, an absent bound being the end of
// the shifted support, so "exponential:rate=0.667,loc=1,a=0,b=9" is
// 1 + Exp(0.667) conditioned on [1, 9]. truncnormal, uniform and beta keep
// a and b as their own parameters and take loc only. Without these keys a
// spec means what it always did.
//
// A DURATION (D) is what units.ParseSeconds reads: seconds ("3600"), a Go
// duration ("90m", "21.4h") or days ("1.5d"). Other values are plain
// numbers. Family names and keys are case-insensitive. Every key must be
// given exactly once except beta's optional a and b; an unknown family or
// key, a missing or duplicate key, or a bad number is an error naming it,
// and the parameters must pass the family's Validate. Every String method
// of this package writes a spec Parse reads back to the same parameters.
func Parse(spec string) (Distribution, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("dist: empty distribution spec")
	}
	if strings.HasPrefix(strings.ToLower(s), "truncated[") {
		return parseTruncated(s)
	}
	name, body, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("dist: spec %q has no ':' (want family:key=value,…; families: %s)", spec, strings.Join(families, ", "))
	}
	fam := strings.ToLower(strings.TrimSpace(name))
	if fam == "discrete" {
		return parseDiscrete(body)
	}
	keys, ok := familyKeys[fam]
	if !ok {
		return nil, fmt.Errorf("dist: unknown family %q (want one of %s)", strings.TrimSpace(name), strings.Join(families, ", "))
	}
	p, err := parseParams(fam, body, withPlacementKeys(keys))
	if err != nil {
		return nil, err
	}
	pl := p.takePlacement(keys)
	d, err := p.build()
	if err != nil {
		return nil, err
	}
	if err := validate(d); err != nil {
		return nil, err
	}
	return pl.apply(d)
}

// placement is the optional location shift and truncation bounds that every
// family accepts: loc=D moves the law (X + loc), then a=D and b=D truncate
// the moved law to [a, b] and renormalise it (an absent bound is the
// support's end). Families whose own parameters are named a and b
// (truncnormal, uniform, beta) take loc only; truncate those with the
// truncated[lo,hi]: prefix.
type placement struct {
	loc, a, b          float64
	hasLoc, hasA, hasB bool
}

// placementKeys are the keys of a placement.
var placementKeys = []paramSpec{{"loc", duration}, {"a", duration}, {"b", duration}}

// withPlacementKeys is keys plus those placement keys it does not name.
func withPlacementKeys(keys []paramSpec) []paramSpec {
	out := append([]paramSpec(nil), keys...)
	for _, pk := range placementKeys {
		if !hasKey(keys, pk.key) {
			out = append(out, pk)
		}
	}
	return out
}

func hasKey(keys []paramSpec, k string) bool {
	for _, s := range keys {
		if s.key == k {
			return true
		}
	}
	return false
}

// takePlacement removes the placement keys that are not the family's own
// from p and returns them.
func (p params) takePlacement(own []paramSpec) placement {
	var pl placement
	take := func(k string, v *float64, has *bool) {
		if hasKey(own, k) {
			return
		}
		*v, *has = p.vals[k]
		delete(p.vals, k)
	}
	take("loc", &pl.loc, &pl.hasLoc)
	take("a", &pl.a, &pl.hasA)
	take("b", &pl.b, &pl.hasB)
	return pl
}

// apply shifts d by loc, then truncates it to [a, b].
func (pl placement) apply(d Distribution) (Distribution, error) {
	if pl.hasLoc {
		var err error
		if d, err = Shift(d, pl.loc); err != nil {
			return nil, err
		}
	}
	if !pl.hasA && !pl.hasB {
		return d, nil
	}
	lo, hi := d.Support()
	if pl.hasA {
		lo = pl.a
	}
	if pl.hasB {
		hi = pl.b
	}
	return Truncate(d, lo, hi)
}

// params holds the parsed key=value pairs of one spec.
type params struct {
	family string
	vals   map[string]float64
}

func (p params) has(k string) bool { _, ok := p.vals[k]; return ok }

// need returns the values of keys, all of which must be present, and
// rejects any other key.
func (p params) need(keys ...string) ([]float64, error) {
	out := make([]float64, len(keys))
	for i, k := range keys {
		v, ok := p.vals[k]
		if !ok {
			return nil, fmt.Errorf("%s: missing key %q (want %s)", p.family, k, strings.Join(keys, ", "))
		}
		out[i] = v
	}
	if len(p.vals) != len(keys) {
		for k := range p.vals {
			found := false
			for _, want := range keys {
				found = found || k == want
			}
			if !found {
				return nil, fmt.Errorf("%s: key %q cannot be combined with %s", p.family, k, strings.Join(keys, ", "))
			}
		}
	}
	return out, nil
}

// build turns the parsed values into the family's value type.
func (p params) build() (Distribution, error) {
	switch p.family {
	case "exponential":
		if p.has("mean") {
			v, err := p.need("mean")
			if err != nil {
				return nil, err
			}
			if err := checkPositive("exponential", "mean", v[0]); err != nil {
				return nil, err
			}
			return Exponential{Rate: 1 / v[0]}, nil
		}
		v, err := p.need("rate")
		if err != nil {
			return nil, err
		}
		return Exponential{Rate: v[0]}, nil
	case "weibull":
		v, err := p.need("k", "lambda")
		if err != nil {
			return nil, err
		}
		return Weibull{K: v[0], Lambda: v[1]}, nil
	case "gamma":
		v, err := p.need("alpha", "beta")
		if err != nil {
			return nil, err
		}
		return Gamma{Alpha: v[0], Beta: v[1]}, nil
	case "lognormal":
		if p.has("mean") || p.has("sd") {
			v, err := p.need("mean", "sd")
			if err != nil {
				return nil, err
			}
			return LogNormalFromMeanSD(v[0], v[1])
		}
		v, err := p.need("mu", "sigma")
		if err != nil {
			return nil, err
		}
		return LogNormal{Mu: v[0], Sigma: v[1]}, nil
	case "pareto":
		v, err := p.need("xm", "alpha")
		if err != nil {
			return nil, err
		}
		return Pareto{Xm: v[0], Alpha: v[1]}, nil
	case "truncnormal":
		v, err := p.need("mu", "sigma", "a", "b")
		if err != nil {
			return nil, err
		}
		return TruncatedNormal{Mu: v[0], Sigma: v[1], A: v[2], B: v[3]}, nil
	case "uniform":
		v, err := p.need("a", "b")
		if err != nil {
			return nil, err
		}
		return Uniform{A: v[0], B: v[1]}, nil
	case "beta":
		if !p.has("a") {
			p.vals["a"] = 0
		}
		if !p.has("b") {
			p.vals["b"] = 1
		}
		v, err := p.need("alpha", "beta", "a", "b")
		if err != nil {
			return nil, err
		}
		return Beta{Alpha: v[0], Beta: v[1], A: v[2], B: v[3]}, nil
	case "boundedpareto":
		v, err := p.need("l", "h", "alpha")
		if err != nil {
			return nil, err
		}
		return BoundedPareto{L: v[0], H: v[1], Alpha: v[2]}, nil
	case "normal":
		v, err := p.need("mu", "sigma")
		if err != nil {
			return nil, err
		}
		return Normal{Mu: v[0], Sigma: v[1]}, nil
	}
	return nil, fmt.Errorf("dist: unknown family %q", p.family)
}

// parseParams reads "key=value,…" against the family's keys.
func parseParams(fam, body string, keys []paramSpec) (params, error) {
	p := params{family: fam, vals: map[string]float64{}}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.key
	}
	if strings.TrimSpace(body) == "" {
		return p, fmt.Errorf("%s: no parameters (want %s)", fam, strings.Join(names, ", "))
	}
	for item := range strings.SplitSeq(body, ",") {
		k, raw, ok := strings.Cut(item, "=")
		key := strings.ToLower(strings.TrimSpace(k))
		if !ok || key == "" {
			return p, fmt.Errorf("%s: bad parameter %q (want key=value)", fam, strings.TrimSpace(item))
		}
		var spec *paramSpec
		for i := range keys {
			if keys[i].key == key {
				spec = &keys[i]
			}
		}
		if spec == nil {
			return p, fmt.Errorf("%s: unknown key %q (want %s)", fam, key, strings.Join(names, ", "))
		}
		if p.has(key) {
			return p, fmt.Errorf("%s: duplicate key %q", fam, key)
		}
		v, err := parseValue(fam, key, raw, spec.kind)
		if err != nil {
			return p, err
		}
		p.vals[key] = v
	}
	return p, nil
}

// parseValue reads one value as a plain number or a duration.
func parseValue(fam, key, raw string, kind paramKind) (float64, error) {
	t := strings.TrimSpace(raw)
	if kind == duration {
		v, err := units.ParseSeconds(t)
		if err != nil {
			return 0, fmt.Errorf("%s: bad duration for %s: %q (want seconds or a duration like 90m, 2h, 1.5d)", fam, key, t)
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: bad number for %s: %q", fam, key, t)
	}
	return v, nil
}

// parseDiscrete reads "v1@p1,v2@p2,…".
func parseDiscrete(body string) (Distribution, error) {
	if strings.TrimSpace(body) == "" {
		return nil, fmt.Errorf("discrete: no points (want v1@p1,v2@p2,…)")
	}
	var values, probs []float64
	p := params{family: "discrete", vals: map[string]float64{}}
	for item := range strings.SplitSeq(body, ",") {
		if k, raw, ok := strings.Cut(item, "="); ok {
			key := strings.ToLower(strings.TrimSpace(k))
			if !hasKey(placementKeys, key) {
				return nil, fmt.Errorf("discrete: unknown key %q (want loc, a, b)", key)
			}
			if p.has(key) {
				return nil, fmt.Errorf("discrete: duplicate key %q", key)
			}
			v, err := parseValue("discrete", key, raw, duration)
			if err != nil {
				return nil, err
			}
			p.vals[key] = v
			continue
		}
		vs, ps, ok := strings.Cut(item, "@")
		if !ok {
			return nil, fmt.Errorf("discrete: bad point %q (want value@probability)", strings.TrimSpace(item))
		}
		v, err := parseValue("discrete", "value", vs, duration)
		if err != nil {
			return nil, err
		}
		pr, err := parseValue("discrete", "probability", ps, plain)
		if err != nil {
			return nil, err
		}
		values = append(values, v)
		probs = append(probs, pr)
	}
	d, err := NewDiscrete(values, probs)
	if err != nil {
		return nil, err
	}
	return p.takePlacement(nil).apply(d)
}

// parseTruncated reads "truncated[lo,hi]:spec".
func parseTruncated(s string) (Distribution, error) {
	inside, inner, ok := strings.Cut(s[len("truncated["):], "]:")
	if !ok {
		return nil, fmt.Errorf("dist: bad truncation %q (want truncated[lo,hi]:family:…)", s)
	}
	los, his, ok := strings.Cut(inside, ",")
	if !ok {
		return nil, fmt.Errorf("dist: bad truncation bounds %q (want lo,hi)", inside)
	}
	lo, err := parseValue("truncated", "lo", los, duration)
	if err != nil {
		return nil, err
	}
	hi, err := parseValue("truncated", "hi", his, duration)
	if err != nil {
		return nil, err
	}
	d, err := Parse(inner)
	if err != nil {
		return nil, err
	}
	return Truncate(d, lo, hi)
}

// formatFloat is the shortest decimal that reads back to exactly v.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
