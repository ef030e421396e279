package main

import (
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

type serveFlags struct {
	listen, db, bandwidth, policy, tokenFile, ttl, maxTTL, nodeMTBF, logFormat, fta string
	init, noAuth, clientClock, allowRemote, noSync, fixedMTBF                       bool
	rate                                                                            float64
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the checkpoint coordinator that running jobs ask (HTTP/JSON)",
		Long: `serve runs one checkpoint coordinator for a shared file system: jobs register,
ask when to checkpoint next (Young, Daly or E(Y), corrected for the allocation
end) and ask for the file system before writing, granted under the
cooperative-checkpointing policies as leases with a TTL and a fencing token.
State lives in a bbolt database, committed before every answer.`,
		Example: `  ckpt serve --db ckpt.db --init --bandwidth 40GB/s --policy least-waste --token-file tokens
  ckpt serve --listen 127.0.0.1:7070 --db ckpt.db --bandwidth 40GB/s --token-file tokens`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:7070", "address to listen on (loopback unless --allow-remote)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --listen address")
	fl.StringVar(&f.db, "db", "ckpt.db", "database file (must exist unless --init)")
	fl.BoolVar(&f.init, "init", false, "create a new database (refused if the file exists)")
	fl.StringVar(&f.bandwidth, "bandwidth", "", "aggregate file-system bandwidth, e.g. 40GB/s (required)")
	fl.StringVar(&f.policy, "policy", "least-waste", "I/O policy: "+strings.Join(arbiter.Policies.Names(), ", "))
	fl.StringVar(&f.tokenFile, "token-file", "", "file of bearer tokens, one per line (required unless --no-auth)")
	fl.BoolVar(&f.noAuth, "no-auth", false, "accept requests without a bearer token (tests only)")
	fl.StringVar(&f.ttl, "ttl", "30s", "default lease TTL")
	fl.StringVar(&f.maxTTL, "max-ttl", "1d", "longest TTL a request may ask for (a simulation on --client-clock may need years)")
	fl.BoolVar(&f.fixedMTBF, "fixed-mtbf", false, "use --node-mtbf as the node MTBF as is, not as a prior updated by reported failures")
	fl.StringVar(&f.nodeMTBF, "node-mtbf", "0", "prior node MTBF for jobs that give neither MTBF nor E(Y) (0: estimate from reported failures only)")
	fl.StringVar(&f.fta, "fta", "", "Failure Trace Archive event trace (or its folder) whose node MTBF is the prior (instead of --node-mtbf)")
	fl.BoolVar(&f.clientClock, "client-clock", false, "simulation mode: every request carries its time (\"now\")")
	fl.Float64Var(&f.rate, "rate", 1000, "requests/s allowed per client address (< 0: unlimited)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	fl.BoolVar(&f.noSync, "unsafe-no-sync", false, "do not fsync commits (benchmarks only: not durable)")
	return cmd
}

func runServe(cmd *cobra.Command, f serveFlags) error {
	cfg, err := serveConfig(f)
	if err != nil {
		return err
	}
	if err := server.CheckListen(f.listen, f.allowRemote); err != nil {
		return usagef("--listen: %v", err)
	}
	opt := server.Options{Config: cfg, NoAuth: f.noAuth, ClientClock: f.clientClock, Rate: f.rate}
	if f.tokenFile == "" && !f.noAuth {
		return usagef("--token-file: required (or --no-auth)")
	}
	if f.tokenFile != "" {
		if opt.Tokens, err = server.ReadTokenFile(f.tokenFile); err != nil {
			return usagef("--token-file: %v", err)
		}
	}
	switch f.logFormat {
	case "text":
		opt.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
	case "json":
		opt.Logger = slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	default:
		return usagef("--log-format: %q is not text or json", f.logFormat)
	}
	st, err := store.Open(f.db, store.Options{Init: f.init, NoSync: f.noSync})
	if err != nil {
		return err
	}
	defer st.Close()
	opt.Store = st
	return server.Run(cmd.Context(), f.listen, opt)
}

func serveConfig(f serveFlags) (coord.Config, error) {
	var cfg coord.Config
	var err error
	if f.bandwidth == "" {
		return cfg, usagef("--bandwidth: required (e.g. 40GB/s)")
	}
	if cfg.Bandwidth, err = bandwidthFlag("bandwidth", f.bandwidth); err != nil {
		return cfg, err
	}
	if cfg.Policy, err = arbiter.Policies.Lookup(f.policy); err != nil {
		return cfg, usagef("--policy: %v", err)
	}
	if cfg.TTL, err = positiveDurationFlag("ttl", f.ttl); err != nil {
		return cfg, err
	}
	if cfg.MaxTTL, err = positiveDurationFlag("max-ttl", f.maxTTL); err != nil {
		return cfg, err
	}
	if cfg.NodeMTBF, err = nonNegDurationFlag("node-mtbf", f.nodeMTBF); err != nil {
		return cfg, err
	}
	if f.fta != "" {
		if cfg.NodeMTBF != 0 {
			return cfg, usagef("give --fta or --node-mtbf, not both")
		}
		if cfg.NodeMTBF, err = ftaNodeMTBF(f.fta); err != nil {
			return cfg, err
		}
	}
	cfg.FixedMTBF = f.fixedMTBF
	if err := cfg.Validate(); err != nil {
		return cfg, usagef("--%v", err)
	}
	return cfg, nil
}

// ftaNodeMTBF is the node MTBF of a Failure Trace Archive data set
// (ΣUp/ΣFailures over its nodes), the coordinator's prior with --fta,
// read by interval.FailureSource like every failure source.
func ftaNodeMTBF(path string) (float64, error) {
	fs, err := interval.FailureSource{FTA: path, Nodes: 1}.Load(1, false)
	if err != nil {
		return 0, flagNamed(err, map[string]string{"failures.fta": "--fta"})
	}
	return fs.MTBF, nil
}
