package api

import (
	"strings"
	"testing"
)

// Every token read is one word of at least MinTokenLen characters, and
// a file with none is refused.
func FuzzReadTokens(f *testing.F) {
	f.Add("# c\nabcdefghijklmnopq\n\n  zyxwvutsrqponmlkj  \n")
	f.Add("short\n")
	f.Add("")
	f.Add("a b c d e f g h i j k l m n o p\n")
	f.Fuzz(func(t *testing.T, in string) {
		toks, err := ReadTokens(strings.NewReader(in))
		if err != nil {
			if toks != nil {
				t.Fatal("tokens with an error")
			}
			return
		}
		if len(toks) == 0 {
			t.Fatal("no token and no error")
		}
		for _, tk := range toks {
			if len(tk) < MinTokenLen || strings.ContainsAny(tk, " \t\n") || strings.HasPrefix(tk, "#") {
				t.Fatalf("bad token %q accepted", tk)
			}
		}
	})
}
