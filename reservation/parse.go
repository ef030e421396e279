package reservation

import (
	"fmt"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// ParseStrategy reads a strategy written as "t1[:ckpt],t2[:ckpt],...": the
// milestones (work done at the end of each reservation, in seconds or as
// durations like 90m or 2h), each optionally marked ":ckpt" when that
// reservation ends with a checkpoint. It is the notation of
// `ckpt reserve --evaluate`. The result is validated.
func ParseStrategy(s string) (Strategy, error) {
	var out Strategy
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		val, flag, hasFlag := strings.Cut(item, ":")
		ckpt := false
		if hasFlag {
			switch strings.ToLower(strings.TrimSpace(flag)) {
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
