package units

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Seconds is a duration in seconds that reads the duration grammar of
// ParseSeconds from YAML, JSON and text: `walltime: 24h`, `"ckpt": "00:10:00"`
// and `"ckpt": 600` all work. It writes itself back as a number of seconds.
type Seconds float64

// UnmarshalText implements encoding.TextUnmarshaler (used by YAML for
// every scalar, and by flag-like readers).
func (s *Seconds) UnmarshalText(b []byte) error {
	v, err := ParseSeconds(string(b))
	if err != nil {
		return err
	}
	*s = Seconds(v)
	return nil
}

// UnmarshalJSON accepts a JSON number of seconds or a string in the
// duration grammar.
func (s *Seconds) UnmarshalJSON(b []byte) error { return unmarshalJSON(b, s.UnmarshalText, "duration") }

// MarshalText writes the seconds as a plain number.
func (s Seconds) MarshalText() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(s), 'g', -1, 64)), nil
}

// MarshalJSON writes the seconds as a JSON number (not a string), so that
// machine output stays numeric; a non-finite value is an error.
func (s Seconds) MarshalJSON() ([]byte, error) { return marshalJSON(float64(s)) }

// Bandwidth is a bandwidth in bytes/s that reads the grammar of
// ParseBandwidth from YAML, JSON and text: `bandwidth: 20GB/s` works in a
// config as on the command line.
type Bandwidth float64

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *Bandwidth) UnmarshalText(t []byte) error {
	v, err := ParseBandwidth(string(t))
	if err != nil {
		return err
	}
	*b = Bandwidth(v)
	return nil
}

// UnmarshalJSON accepts a JSON number of bytes/s or a string such as
// "20GB/s".
func (b *Bandwidth) UnmarshalJSON(t []byte) error {
	return unmarshalJSON(t, b.UnmarshalText, "bandwidth")
}

// MarshalText writes bytes/s as a plain number.
func (b Bandwidth) MarshalText() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(b), 'g', -1, 64)), nil
}

// MarshalJSON writes bytes/s as a JSON number.
func (b Bandwidth) MarshalJSON() ([]byte, error) { return marshalJSON(float64(b)) }

func marshalJSON(v float64) ([]byte, error) { return json.Marshal(v) }

func unmarshalJSON(b []byte, text func([]byte) error, what string) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		return text([]byte(x))
	case float64:
		return text(b)
	default:
		return fmt.Errorf("%s: want a number or a string, got %s", what, b)
	}
}
