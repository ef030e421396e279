package reservation

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/registry"
	"github.com/ckpt-hpc/ckpt/units"
)

// ParseStrategy reads a strategy written as "t1[:ckpt],t2[:ckpt],...": the
// milestones (work done at the end of each reservation, in seconds or as
// durations like 90m or 2h), each optionally marked ":ckpt" when that
// reservation ends with a checkpoint. It is the notation of
// `ckpt reserve --evaluate`. A milestone may be a Slurm clock
// ("01:30:00:ckpt"): the mark is the text after the last colon when it is
// not a number. The result is validated.
func ParseStrategy(s string) (Strategy, error) {
	var out Strategy
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		val, ckpt := item, false
		if k := strings.LastIndex(item, ":"); k >= 0 && isMark(item[k+1:]) {
			val = item[:k]
			switch flag := strings.ToLower(strings.TrimSpace(item[k+1:])); flag {
			case "ckpt", "c", "checkpoint":
				ckpt = true
			case "nockpt", "no":
			default:
				return nil, fmt.Errorf("item %d %q: unknown mark %q (want :ckpt)", i+1, item, flag)
			}
		}
		t, err := units.ParseSeconds(val)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i+1, err)
		}
		out = append(out, Step{Milestone: t, Checkpoint: ckpt})
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// isMark reports whether the text after a colon is a mark (a word) rather
// than a component of a Slurm clock (digits).
func isMark(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true // "20:" is an empty mark, refused
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

// ParseEpsilons reads a comma-separated list of Algorithm 1 epsilons (as
// `ckpt reserve sweep --epsilon` takes it): each a finite number > 0, none
// empty or repeated.
func ParseEpsilons(list string) ([]float64, error) {
	items, err := registry.SplitList(list)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(items))
	for i, item := range items {
		v, err := strconv.ParseFloat(item, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q must be a number > 0", item)
		}
		out[i] = v
	}
	return out, nil
}

// String writes s in the notation ParseStrategy reads (seconds).
func (s Strategy) String() string {
	parts := make([]string, len(s))
	for i, st := range s {
		parts[i] = fmt.Sprintf("%g", st.Milestone)
		if st.Checkpoint {
			parts[i] += ":ckpt"
		}
	}
	return strings.Join(parts, ",")
}
