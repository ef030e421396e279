package report

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles pattern on its first use, not at package
// initialisation: every ckpt command links this package, and the commands
// that render no page should not pay for its patterns at start-up.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
