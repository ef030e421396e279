package api

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ckpt-hpc/ckpt/usage"
)

// MinTokenLen is the shortest bearer token accepted in a token file.
const MinTokenLen = 16

// ReadTokens reads a token file: one bearer token per line, blank lines
// and lines starting with # skipped. It refuses short tokens (naming the
// line) and a file without any.
func ReadTokens(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(t) < MinTokenLen || strings.ContainsAny(t, " \t") {
			return nil, fmt.Errorf("line %d: a token is one word of at least %d characters", n, MinTokenLen)
		}
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no token in the file")
	}
	return out, nil
}

// ReadTokenFile reads the token file at path (see ReadTokens); a missing
// or malformed file is a usage error naming it.
func ReadTokenFile(path string) ([]string, error) {
	f, err := usage.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	toks, err := ReadTokens(f)
	if err != nil {
		return nil, usage.Fieldf(path, "%v", err)
	}
	return toks, nil
}
