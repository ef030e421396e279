package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Year is 365 days in seconds (node MTBFs are quoted in years).
const Year = 365 * 24 * 3600.0

// ParseSeconds reads a time quantity and returns it in seconds. It is the
// one duration grammar of ckpt: flags, YAML and JSON configs, profiles and
// histories all go through it.
//
//   - a bare number ("3600", "1.5e3") is seconds;
//   - a Go duration ("90m", "1.5h", "1h30m", "250ms"), days with the suffix
//     "d" ("2d", "1.5d"), whole days followed by a Go duration ("2d04h",
//     "1d00h30m"), 365-day years with the suffix "y" ("2y"), or a number of
//     seconds in any float form with the suffix "s" ("1.5e3s", "4.2e-05s");
//     so every finite value FormatSeconds prints reads back;
//   - Slurm's time forms: "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM" and
//     "D-HH:MM:SS" (as sbatch --time and sacct print them; the seconds may
//     carry a fraction, "05:00.5"; unlike Slurm, a bare number stays
//     seconds, not minutes).
//
// NaN, infinities, results that overflow to ±Inf and empty strings are
// rejected; the sign is kept, so callers that need a positive value check it
// themselves.
func ParseSeconds(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration")
	}
	v, err := parseSeconds(t)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want seconds, a duration like 90m, 1.5h, 2d, or Slurm's [D-]HH:MM:SS)", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("duration %q is not a finite number of seconds", s)
	}
	return v, nil
}

func parseSeconds(t string) (float64, error) {
	if v, err := strconv.ParseFloat(t, 64); err == nil {
		return v, nil
	}
	if n, ok := strings.CutSuffix(t, "s"); ok {
		if v, err := strconv.ParseFloat(n, 64); err == nil {
			return v, nil // "1.5e3s": time.ParseDuration takes no exponent
		}
	}
	if strings.ContainsAny(t, ":-") && !strings.HasPrefix(t, "-") {
		return parseSlurm(t)
	}
	if v, ok, err := parseDaysAnd(t); ok {
		return v, err
	}
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"y", Year}, {"d", 86400}} {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return 0, err
			}
			return v * u.mult, nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, err
	}
	return d.Seconds(), nil
}

// parseDaysAnd reads "[-]<whole days>d<Go duration>" ("2d04h", "-1d00h30m");
// ok is false when t has not that shape (no "d" followed by text).
func parseDaysAnd(t string) (v float64, ok bool, err error) {
	u, neg := strings.CutPrefix(t, "-")
	d, rest, found := strings.Cut(u, "d")
	if !found || rest == "" {
		return 0, false, nil
	}
	if d == "" || strings.Trim(d, "0123456789") != "" || rest[0] < '0' || rest[0] > '9' {
		return 0, true, fmt.Errorf("want whole days then a duration, like 2d04h")
	}
	days, err := strconv.ParseFloat(d, 64)
	if err != nil {
		return 0, true, err
	}
	dur, err := time.ParseDuration(rest)
	if err != nil {
		return 0, true, err
	}
	v = days*86400 + dur.Seconds()
	if neg {
		v = -v
	}
	return v, true, nil
}

// parseSlurm reads Slurm's clock forms, as sbatch --time takes them and
// sacct prints them: [D-]HH:MM:SS, D-HH[:MM], MM:SS. Every field is a
// non-negative integer of at most 9 digits, except the seconds, which may
// carry a decimal fraction (sacct's "05:00.500"; no sign, exponent or hex
// form); minutes and seconds are below 60, and hours below 24 when a day
// count is given (Slurm's own reading is more lenient, ours refuses what
// is likely a typo). This is the one Slurm clock parser of ckpt: the CLI's
// durations and the history readers both use it through ParseSeconds.
func parseSlurm(t string) (float64, error) {
	var days int64
	var limits, mult []int64
	d, rest, hasDays := strings.Cut(t, "-")
	if hasDays {
		n, err := slurmField(d, -1)
		if err != nil {
			return 0, err
		}
		days = n
		limits, mult = []int64{24, 60, 60}, []int64{3600, 60, 1}
	} else {
		rest = t
	}
	parts := strings.Split(rest, ":")
	switch {
	case hasDays:
		if len(parts) > 3 {
			return 0, fmt.Errorf("too many fields")
		}
	case len(parts) == 2: // MM:SS
		limits, mult = []int64{-1, 60}, []int64{60, 1}
	case len(parts) == 3: // HH:MM:SS
		limits, mult = []int64{-1, 60, 60}, []int64{3600, 60, 1}
	default:
		return 0, fmt.Errorf("want MM:SS or HH:MM:SS")
	}
	sec, frac := days*86400, 0.0
	for i, p := range parts {
		if whole, f, ok := strings.Cut(p, "."); ok && mult[i] == 1 {
			if f == "" || len(f) > 9 || strings.Trim(f, "0123456789") != "" {
				return 0, fmt.Errorf("bad fraction %q", f)
			}
			frac, _ = strconv.ParseFloat("0."+f, 64)
			p = whole
		}
		n, err := slurmField(p, limits[i])
		if err != nil {
			return 0, err
		}
		if n > math.MaxInt64/mult[i]/4 {
			return 0, fmt.Errorf("field too large")
		}
		sec += n * mult[i]
	}
	return float64(sec) + frac, nil
}

// slurmField reads a non-negative integer field of at most 9 digits, below
// limit when limit > 0.
func slurmField(p string, limit int64) (int64, error) {
	if p == "" || len(p) > 9 {
		return 0, fmt.Errorf("bad field %q", p)
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad field %q", p)
		}
	}
	n, err := strconv.ParseInt(p, 10, 64)
	if err != nil {
		return 0, err
	}
	if limit > 0 && n >= limit {
		return 0, fmt.Errorf("field %q out of range", p)
	}
	return n, nil
}

// maxExactHours bounds the counts of hours (and minutes) the formatters
// convert to int64: 2⁵³, below which float64 integers are exact.
const maxExactHours = 1 << 53

// FormatSeconds renders seconds for humans: "45.0s", "12m30s", "3h05m",
// "2d04h". A value takes the largest unit that its rounded value reaches,
// so that no field overflows: 59.96 prints "1m00s" (not "60.0s"), 3599.6
// "1h00m" and 86399 "1d00h". Sub-second values keep three decimals (three
// significant digits below half a millisecond, so that no positive value
// prints as 0); values beyond 2⁵³ hours are written in seconds in
// scientific notation ("1.606e+301s"), NaN and infinities as strconv writes
// them, so no value prints as garbage. ParseSeconds reads every finite
// value back to within the printed precision. It is for display only;
// machine output (--json) carries plain seconds.
func FormatSeconds(sec float64) string {
	if math.IsNaN(sec) || math.IsInf(sec, 0) {
		return strconv.FormatFloat(sec, 'g', -1, 64)
	}
	if sec < 0 {
		return "-" + formatPositive(-sec)
	}
	return formatPositive(sec)
}

// formatPositive is FormatSeconds of a finite sec ≥ 0: each unit is tried
// in turn, and a value whose rounding reaches the next unit goes on to it.
func formatPositive(sec float64) string {
	if sec > 0 && sec < 0.0005 {
		// Would round to "0.000s": keep three significant digits.
		return strconv.FormatFloat(sec, 'g', 3, 64) + "s"
	}
	if sec < 1 {
		if s := strconv.FormatFloat(sec, 'f', 3, 64); s != "1.000" {
			return s + "s"
		}
	}
	if sec < 60 {
		if s := strconv.FormatFloat(sec, 'f', 1, 64); s != "60.0" {
			return s + "s"
		}
	}
	if sec < 3600 {
		if r := int64(math.Round(sec)); r < 3600 {
			return fmt.Sprintf("%dm%02ds", r/60, r%60)
		}
	}
	if sec < 86400 {
		if r := int64(math.Round(sec / 60)); r < 1440 {
			return fmt.Sprintf("%dh%02dm", r/60, r%60)
		}
	}
	if sec < maxExactHours*3600 {
		r := int64(math.Round(sec / 3600))
		return fmt.Sprintf("%dd%02dh", r/24, r%24)
	}
	// Beyond 2⁵³ hours (10¹² years) whole hours no longer fit an int64
	// exactly: give the seconds in scientific notation; in full next to the
	// largest float64, where four digits round above it ("1.798e+308").
	s := strconv.FormatFloat(sec, 'g', 4, 64)
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		s = strconv.FormatFloat(sec, 'g', -1, 64)
	}
	return s + "s"
}

// SlurmTime renders seconds, rounded up to whole minutes, in the
// "[D-]HH:MM:SS" form that sbatch --time accepts. Rounding up never shortens
// a reservation below what the plan asked for. A length Slurm cannot
// represent (above MaxSlurmMinutes minutes, or +Inf) is "INFINITE", which
// sbatch accepts as no time limit; zero, negative and NaN lengths, which no
// plan has, give "00:00:00".
func SlurmTime(sec float64) string {
	if math.IsInf(sec, 1) || sec/60 > MaxSlurmMinutes {
		return "INFINITE"
	}
	if !(sec > 0) {
		return "00:00:00"
	}
	m := int64(math.Ceil(sec/60 - 1e-9))
	d, h, mm := m/(24*60), (m/60)%24, m%60
	if d > 0 {
		return fmt.Sprintf("%d-%02d:%02d:00", d, h, mm)
	}
	return fmt.Sprintf("%02d:%02d:00", h, mm)
}

// MaxSlurmMinutes is the longest time limit SlurmTime writes as a number:
// Slurm stores time limits as 32-bit counts of minutes, with 0xfffffffe
// (NO_VAL) and 0xffffffff (INFINITE) reserved; this is about 8 166 years.
const MaxSlurmMinutes = 0xfffffffd

// SlurmMem renders gb GB (10⁹ bytes) as an sbatch --mem value in MiB,
// rounded up ("9537M" for 10 GB), so that a request is never below what the
// plan asked for. The callers bound gb (at most 1e9 GB, an exabyte), so
// that the MiB count fits an int64.
func SlurmMem(gb float64) string {
	return fmt.Sprintf("%dM", int64(math.Ceil(gb*1e9/(1<<20))))
}
