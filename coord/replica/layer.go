package replica

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// layer is the TCP stream layer of the raft transport, with a switch that
// cuts the replica off the network: every connection closed, no new one
// dialled or accepted. It is what a partition looks like to raft; tests
// cut a leader off with it.
type layer struct {
	ln    net.Listener
	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

var errCut = errors.New("replica: cut off the network")

func listen(bind string) (*layer, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	return &layer{ln: ln, conns: map[net.Conn]struct{}{}}, nil
}

func (l *layer) track(c net.Conn) net.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		c.Close()
		return nil
	}
	l.conns[c] = struct{}{}
	return &conn{Conn: c, l: l}
}

// Accept returns the next connection that arrives while not cut.
func (l *layer) Accept() (net.Conn, error) {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.track(c); tc != nil {
			return tc, nil
		}
	}
}

func (l *layer) Close() error   { return l.ln.Close() }
func (l *layer) Addr() net.Addr { return l.ln.Addr() }

// Dial connects to a peer unless cut.
func (l *layer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	l.mu.Lock()
	cut := l.cut
	l.mu.Unlock()
	if cut {
		return nil, errCut
	}
	c, err := net.DialTimeout("tcp", string(addr), timeout)
	if err != nil {
		return nil, err
	}
	if tc := l.track(c); tc != nil {
		return tc, nil
	}
	return nil, errCut
}

type conn struct {
	net.Conn
	l *layer
}

func (c *conn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c.Conn)
	c.l.mu.Unlock()
	return c.Conn.Close()
}
