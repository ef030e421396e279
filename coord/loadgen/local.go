package loadgen

import (
	"context"
	"net"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// LocalToken is the bearer token of a server started by StartLocal.
const LocalToken = "loadgen-local-bearer-token"

// StartLocal starts a coordinator on 127.0.0.1 (a free port) with a new
// database in dir (fsync on unless noSync) and returns its URL and a stop
// function that shuts it down and closes the database.
func StartLocal(ctx context.Context, cfg coord.Config, dir string, noSync bool) (url string, stop func() error, err error) {
	return StartLocalOptions(ctx, server.Options{Config: cfg}, dir, noSync)
}

// StartLocalOptions is StartLocal with the server's options (its Store,
// Tokens and Rate are set here: a new database, LocalToken, unlimited).
func StartLocalOptions(ctx context.Context, opt server.Options, dir string, noSync bool) (url string, stop func() error, err error) {
	st, err := store.Open(filepath.Join(dir, "loadgen.db"), store.Options{Init: true, NoSync: noSync})
	if err != nil {
		return "", nil, err
	}
	opt.Store, opt.Tokens, opt.Rate = st, []string{LocalToken}, -1
	s, err := server.New(opt)
	if err != nil {
		st.Close()
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		return "", nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx, ln) }()
	return "http://" + ln.Addr().String(), func() error {
		cancel()
		err := <-done
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// StartSimulation starts a coordinator for a closed-loop simulation
// (`ckpt coord simulate`): on the simulation's clock, policy pol, the
// platform's bandwidth (bytes/s) and node MTBF (seconds, used as is),
// TTLs longer than any wait, on a new database in a temporary folder
// that stop removes.
func StartSimulation(ctx context.Context, pol arbiter.Policy, bandwidth, nodeMTBF float64) (url string, stop func() error, err error) {
	cfg := coord.Config{Policy: pol, Bandwidth: bandwidth, TTL: 1e12, MaxTTL: 1e12, NodeMTBF: nodeMTBF, FixedMTBF: true, MaxJobs: 1e7}
	if err := cfg.Validate(); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "ckpt-simulate")
	if err != nil {
		return "", nil, err
	}
	url, stopServer, err := StartLocalOptions(ctx, server.Options{Config: cfg, ClientClock: true}, dir, true)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return url, func() error {
		err := stopServer()
		os.RemoveAll(dir)
		return err
	}, nil
}
