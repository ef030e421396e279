package output

import (
	"math"
	"strconv"
)

// JSONPlain reports whether encoding/json (HTML escaping on) writes s as
// itself between quotes: printable ASCII without '"', '\\', '<', '>' or
// '&'. The hand-written encoders of the coordinator's answers and records
// write such strings themselves and give the rest to encoding/json.
func JSONPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// AppendJSONFloat appends the finite f as encoding/json writes a float64:
// the shortest representation, in exponent form below 1e-6 and from 1e21
// on, with a one-digit negative exponent not zero-padded. A non-zero
// integer below 2⁵³ in magnitude is its decimal digits (its neighbours are
// 1 apart or less, so no shorter decimal reads back as it), written
// without the shortest-digit search. O(1).
func AppendJSONFloat(b []byte, f float64) []byte {
	if f != 0 && f > -1<<53 && f < 1<<53 && f == math.Trunc(f) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	fmt := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmt = 'e'
	}
	b = strconv.AppendFloat(b, f, fmt, -1, 64)
	if fmt == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
