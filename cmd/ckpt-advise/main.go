// Command ckpt-advise is `ckpt advise` for one job about to be submitted
// (the ask form: same flags, same text and --json output, same exit
// status), as a small binary for the Slurm cli_filter: it links the
// advisor's answer path only, so that a process answers in a few
// milliseconds where the full ckpt spends about 30 initialising every
// package it links (see docs/advise.md). Learning and replaying stay in
// ckpt (ckpt advise learn, ckpt advise replay).
//
//	go install ./cmd/ckpt-advise
//	ckpt-advise --model site.model --user alice --nodes 4 --time 15h
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ckpt-hpc/ckpt/cmd/internal/askcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := askcmd.Execute(ctx, askcmd.New("ckpt-advise", "ckpt-advise"), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
