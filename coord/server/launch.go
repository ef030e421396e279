package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/interval"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/units"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Settings are a coordinator's configuration as the command line gives
// it (`ckpt serve`, and the coordinator `ckpt coord loadgen` starts):
// durations in the units grammar ("30s", "1d"), the bandwidth as "40GB/s",
// the policy by name. Each field is the flag of the same name.
type Settings struct {
	Bandwidth, Policy, TTL, MaxTTL, NodeMTBF string
	// FTA is a Failure Trace Archive event trace (or its folder) whose
	// node MTBF is the prior, instead of NodeMTBF.
	FTA       string
	FixedMTBF bool
}

// Config reads s into a validated coordinator configuration. Its errors
// are usage errors naming the flag and the bad value.
func (s Settings) Config() (coord.Config, error) {
	var cfg coord.Config
	var err error
	if s.Bandwidth == "" {
		return cfg, usage.Fieldf("--bandwidth", "required (e.g. 40GB/s)")
	}
	if cfg.Bandwidth, err = units.ParseBandwidth(s.Bandwidth); err != nil {
		return cfg, usage.Fieldf("--bandwidth", "%v", err)
	}
	if !(cfg.Bandwidth > 0) {
		return cfg, usage.Fieldf("--bandwidth", "%s must be > 0", s.Bandwidth)
	}
	if cfg.Policy, err = arbiter.Policies.Lookup(s.Policy); err != nil {
		return cfg, usage.Fieldf("--policy", "%v", err)
	}
	if cfg.TTL, err = seconds("ttl", s.TTL, false); err != nil {
		return cfg, err
	}
	if cfg.MaxTTL, err = seconds("max-ttl", s.MaxTTL, false); err != nil {
		return cfg, err
	}
	if cfg.NodeMTBF, err = seconds("node-mtbf", s.NodeMTBF, true); err != nil {
		return cfg, err
	}
	if s.FTA != "" {
		if cfg.NodeMTBF != 0 {
			return cfg, usage.Errorf("give --fta or --node-mtbf, not both")
		}
		if cfg.NodeMTBF, err = ftaNodeMTBF(s.FTA); err != nil {
			return cfg, err
		}
	}
	cfg.FixedMTBF = s.FixedMTBF
	if err := cfg.Validate(); err != nil {
		return cfg, usage.Errorf("--%v", err)
	}
	return cfg, nil
}

// seconds reads the duration of flag name: > 0, or >= 0 if zero is
// allowed.
func seconds(name, v string, zero bool) (float64, error) {
	s, err := units.ParseSeconds(v)
	switch {
	case err != nil:
		return 0, usage.Fieldf("--"+name, "%v", err)
	case zero && s < 0:
		return 0, usage.Fieldf("--"+name, "%s must be >= 0", v)
	case !zero && !(s > 0):
		return 0, usage.Fieldf("--"+name, "%s must be > 0", v)
	}
	return s, nil
}

// ftaNodeMTBF is the node MTBF of a Failure Trace Archive data set
// (ΣUp/ΣFailures over its nodes), the coordinator's prior with --fta,
// read by interval.FailureSource like every failure source.
func ftaNodeMTBF(path string) (float64, error) {
	fs, err := interval.FailureSource{FTA: path, Nodes: 1}.Load(1, false)
	var ue *usage.Error
	if errors.As(err, &ue) && ue.Field == "failures.fta" {
		return 0, &usage.Error{Field: "--fta", Err: ue.Err}
	}
	return fs.MTBF, err
}

// Launch is how `ckpt serve` starts a coordinator: its Settings, where it
// listens, its database, its bearer tokens and its log. Each field is the
// flag of the same name.
type Launch struct {
	Settings
	Listen              string
	AllowRemote         bool
	DB                  string
	Init, NoSync        bool
	TokenFile           string
	NoAuth, ClientClock bool
	Rate                float64
	// CommitWait is the longest a commit waits for more changes to join
	// its batch (the units grammar; "" or "0": commit at once).
	CommitWait string
	Pprof      bool
	// LogFormat is text or json; the log goes to Log.
	LogFormat string
	Log       io.Writer
	// Store, when set, is used instead of opening the bbolt file DB (a
	// replica of coord/replica; the caller closes it). A store that is a
	// Group makes the server a replica: see Group.
	Store store.Store
}

// Serve checks l (usage errors naming the flag), opens its database (or
// creates it with Init) and serves until ctx is done.
func Serve(ctx context.Context, l Launch) (err error) {
	opt, err := l.options()
	if err != nil {
		return err
	}
	if l.Store != nil {
		opt.Store = l.Store
		return Run(ctx, l.Listen, opt)
	}
	st, err := store.Open(l.DB, store.Options{Init: l.Init, NoSync: l.NoSync, Log: opt.Logger})
	if err != nil {
		return err
	}
	defer func() { // the final checkpoint: a failure is the server's
		if cerr := st.Close(); cerr != nil {
			opt.Logger.Error("closing the database failed (its final checkpoint)", "err", cerr)
			err = errors.Join(err, cerr)
		}
	}()
	opt.Store = st
	return Run(ctx, l.Listen, opt)
}

// Validate checks l as Serve does before opening the store (usage errors
// naming the flag); it reads the token file.
func (l Launch) Validate() error {
	_, err := l.options()
	return err
}

// options are the server's Options from l, without the store.
func (l Launch) options() (Options, error) {
	var opt Options
	cfg, err := l.Config()
	if err != nil {
		return opt, err
	}
	if err := CheckListen(l.Listen, l.AllowRemote); err != nil {
		return opt, usage.Fieldf("--listen", "%v", err)
	}
	if err := checkRate(l.Rate); err != nil {
		return opt, err
	}
	opt = Options{Config: cfg, NoAuth: l.NoAuth, ClientClock: l.ClientClock, Rate: l.Rate, Pprof: l.Pprof}
	if opt.CommitWait, err = commitWait(l.CommitWait); err != nil {
		return opt, err
	}
	if l.TokenFile == "" && !l.NoAuth {
		return opt, usage.Fieldf("--token-file", "required (or --no-auth)")
	}
	if l.TokenFile != "" {
		if opt.Tokens, err = api.ReadTokenFile(l.TokenFile); err != nil {
			return opt, usage.Fieldf("--token-file", "%v", err)
		}
	}
	switch l.LogFormat {
	case "text":
		opt.Logger = slog.New(slog.NewTextHandler(l.Log, nil))
	case "json":
		opt.Logger = slog.New(slog.NewJSONHandler(l.Log, nil))
	default:
		return opt, usage.Fieldf("--log-format", "%q is not text or json", l.LogFormat)
	}
	return opt, nil
}

// MaxRate bounds --rate: the bucket holds 2×rate requests, an int.
const MaxRate = 1e9

// checkRate refuses a --rate that is NaN (which switched the limit off
// silently) or too large for the bucket; < 0 means unlimited.
func checkRate(r float64) error {
	if math.IsNaN(r) || r > MaxRate {
		return usage.Fieldf("--rate", "%v requests/s must be at most %g (< 0: unlimited)", r, float64(MaxRate))
	}
	return nil
}

// MaxCommitWait bounds --commit-wait: every changing request waits up to
// this long more than its commit.
const MaxCommitWait = time.Second

// commitWait reads --commit-wait: a duration in the units grammar in
// [0, MaxCommitWait] ("" is 0).
func commitWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	s, err := units.ParseSeconds(v)
	if err != nil {
		return 0, usage.Fieldf("--commit-wait", "%v", err)
	}
	if !(s >= 0 && s <= MaxCommitWait.Seconds()) {
		return 0, usage.Fieldf("--commit-wait", "%s must be in [0, %v]", v, MaxCommitWait)
	}
	return time.Duration(s * float64(time.Second)), nil
}
