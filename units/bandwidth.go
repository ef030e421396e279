package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBandwidth reads a bandwidth in bytes/s: a plain number ("40e9") or
// a number with a decimal unit, optionally followed by "/s": "40GB/s",
// "40G", "1.5TB/s", "500MB/s", "2PB/s".
func ParseBandwidth(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(t, "/s")
	t = strings.TrimSuffix(t, "B")
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1e3, t[:n-1]
		case 'M':
			mult, t = 1e6, t[:n-1]
		case 'G':
			mult, t = 1e9, t[:n-1]
		case 'T':
			mult, t = 1e12, t[:n-1]
		case 'P':
			mult, t = 1e15, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v*mult) || math.IsInf(v*mult, 0) {
		return 0, fmt.Errorf("bad bandwidth %q (want bytes/s, e.g. 40e9 or 40GB/s)", s)
	}
	return v * mult, nil
}

// FormatBandwidth prints bytes/s with a decimal unit ("40GB/s").
func FormatBandwidth(b float64) string {
	for _, u := range []struct {
		m float64
		s string
	}{{1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}} {
		if math.Abs(b) >= u.m {
			return strconv.FormatFloat(b/u.m, 'g', 4, 64) + u.s
		}
	}
	return strconv.FormatFloat(b, 'g', 4, 64) + "B/s"
}

// ParseSize reads a size in bytes > 0: ParseBandwidth's grammar without
// "/s" ("2TB", "40e9").
func ParseSize(s string) (float64, error) {
	b, err := ParseBandwidth(s)
	if err != nil || strings.HasSuffix(strings.TrimSpace(s), "/s") || !(b > 0) {
		return 0, fmt.Errorf("bad size %q (want bytes > 0, e.g. 40e9 or 2TB)", s)
	}
	return b, nil
}

// ParseGBps reads a bandwidth with its unit ("40GB/s", "500MB/s", "2T")
// and returns it in GB/s (10⁹ bytes/s), for the flags whose bare number
// once meant GB/s (ckpt reserve --ckpt-bandwidth): a bare number is
// refused, since ParseBandwidth reads it as bytes/s and either reading
// would silently change the meaning of some command line.
func ParseGBps(s string) (float64, error) {
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return 0, fmt.Errorf("bare number %q: give a unit, e.g. 40GB/s or 500MB/s", s)
	}
	b, err := ParseBandwidth(s)
	if err != nil {
		return 0, fmt.Errorf("bad bandwidth %q (want a number with its unit, e.g. 40GB/s or 500MB/s)", s)
	}
	return b / 1e9, nil
}
