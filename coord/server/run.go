package server

import (
	"context"
	"fmt"
	"net"
)

// CheckListen refuses an address that is not loopback unless allowRemote.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %v", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address (give --allow-remote to listen on the network)", addr)
	}
	return nil
}

// Run listens on addr and serves until ctx is done.
func Run(ctx context.Context, addr string, opt Options) error {
	s, err := New(opt)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.writer.Close()
		return err
	}
	return s.Serve(ctx, ln)
}
