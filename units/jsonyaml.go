package units

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
)

// JSONForYAML returns data ready for a YAML parser that must read JSON as
// encoding/json does. When data is valid JSON, every \u escape of a UTF-16
// surrogate is rewritten: a pair ("\ud83d\ude00", what Python's json.dump
// writes for an emoji, which YAML refuses as an invalid escape) becomes
// YAML's "\U0001F600", and a lone surrogate "\ufffd", the replacement
// character encoding/json decodes it to. Other texts, and JSON without
// such an escape, are returned unchanged (the same slice). No line
// changes, so a YAML error names the line of the input. O(len(data)).
func JSONForYAML(data []byte) []byte {
	if !json.Valid(data) {
		return data
	}
	var out []byte
	last, in := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !in || c != '\\':
			in = in != (c == '"')
		case data[i+1] != 'u':
			i++ // a one-letter escape: \" \\ \/ \b \f \n \r \t
		default:
			r := hex4(data[i+2 : i+6])
			if !utf16.IsSurrogate(r) {
				i += 5
				break
			}
			rep, n := `\ufffd`, 6
			if r < 0xdc00 && i+12 <= len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				if lo := hex4(data[i+8 : i+12]); lo >= 0xdc00 && lo < 0xe000 {
					rep, n = fmt.Sprintf(`\U%08X`, utf16.DecodeRune(r, lo)), 12
				}
			}
			out = append(append(out, data[last:i]...), rep...)
			last = i + n
			i += n - 1
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// hex4 reads the four hex digits of a \u escape of valid JSON.
func hex4(b []byte) rune {
	v, _ := strconv.ParseUint(string(b), 16, 32)
	return rune(v)
}
