// Package tracetest holds what the tests of ckpt's input readers share:
// a reader that ends its context part-way through an input, a Ctrl-C at
// a chosen byte whatever the machine's speed. O(1) per read.
package tracetest

import (
	"context"
	"io"
)

// CancelAt reads R in pieces of at most 512 bytes and calls Cancel once K
// bytes are read; N counts the bytes read so far.
type CancelAt struct {
	R      io.Reader
	K, N   int
	Cancel context.CancelFunc
}

func (c *CancelAt) Read(p []byte) (int, error) {
	n, err := c.R.Read(p[:min(len(p), 512)])
	if c.N += n; c.N >= c.K {
		c.Cancel()
	}
	return n, err
}
