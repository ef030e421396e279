package server

import (
	"strings"
	"testing"
)

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:7070": true, "[::1]:7070": true, "localhost:1": true,
		"0.0.0.0:7070": false, ":7070": false, "10.0.0.1:80": false, "nonsense": false} {
		if err := CheckListen(addr, false); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := CheckListen("0.0.0.0:7070", true); err != nil {
		t.Error(err)
	}
}

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
