package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// silent is the URL of a listener that accepts connections and never
// answers.
func silent(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return "http://" + ln.Addr().String()
}

// Timeout bounds a request with its retries: against a server that never
// answers a request took 4 attempts of 10 s (40 s) with one URL, 21 (210
// s) with several. The caller's ctx still ends it with its own error.
func TestTimeoutBoundsARequest(t *testing.T) {
	url := silent(t)
	for _, base := range []string{url, url + "," + url} {
		c := &Client{Base: base, Timeout: 200 * time.Millisecond}
		start := time.Now()
		_, err := c.Next(context.Background(), "x", nil)
		if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v", base, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v to give up", base, d)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := (&Client{Base: url, Timeout: time.Minute}).Next(ctx, "x", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the caller's deadline: %v", err)
	}
}
