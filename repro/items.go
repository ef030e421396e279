package repro

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckpt-hpc/ckpt/runner"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Items runs a reproduction on a job array: each task records its shard of
// the items of every sweep of the reproduction (Shard, ItemLog), `ckpt
// merge` joins the item logs, and Finish replays the merged log into the
// reproduction's outputs, the same bytes as an unsplit run. The zero Items
// runs the reproduction whole.
type Items struct {
	// Shard is the share of every sweep's items to compute (--shard): i/n,
	// auto or auto/N in a job array (runner.ParseShard); "" for all.
	Shard string
	// ItemLog is the .jsonl file the items' results are recorded to
	// (--items); with Shard, the outputs are left to Finish.
	ItemLog string
	// Finish is a merged item log (--finish) replayed instead of computing
	// the sweeps.
	Finish string
}

// Validate checks the combination of the fields, naming the flag at
// fault.
func (it Items) Validate() error {
	if _, err := runner.ParseShard(it.Shard); err != nil {
		return usage.Fieldf("--shard", "%w", err)
	}
	switch {
	case it.ItemLog != "" && it.Finish != "":
		return usage.Errorf("--items records and --finish replays: give one of them")
	case it.Finish != "" && it.Shard != "":
		return usage.Errorf("--finish replays every item: it takes no --shard")
	case it.Shard != "" && it.ItemLog == "":
		return usage.Errorf("--shard %s needs --items FILE.jsonl, where the shard's results go", it.Shard)
	}
	if it.ItemLog != "" {
		if ft, err := runner.FormatOf(it.ItemLog); err != nil || ft != runner.FormatJSONL {
			return usage.Errorf("--items %q: the item log is JSON lines (a name ending in .jsonl)", it.ItemLog)
		}
	}
	return nil
}

// Run runs the reproduction run with cfg under it: whole, recording a
// shard's items, or finishing from a merged log. What a shard recorded is
// reported on log.
func (it Items) Run(ctx context.Context, cfg Config, run func(context.Context, Config) error, log io.Writer) error {
	if err := it.Validate(); err != nil {
		return err
	}
	switch {
	case it.Finish != "":
		return it.replay(ctx, cfg, run)
	case it.ItemLog != "":
		return it.record(ctx, cfg, run, log)
	}
	return run(ctx, cfg)
}

// record runs the reproduction recording the items of its shard into
// ItemLog. A shard's outputs, built from partial results, go to a
// temporary folder that is removed.
func (it Items) record(ctx context.Context, cfg Config, run func(context.Context, Config) error, log io.Writer) error {
	sh, _ := runner.ParseShard(it.Shard) // checked by Validate
	if sh.Count > 0 {
		tmp, err := os.MkdirTemp("", "ckpt-repro-shard-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cfg.Dir, cfg.Log = tmp, io.Discard
	}
	if err := os.MkdirAll(filepath.Dir(it.ItemLog), 0o755); err != nil {
		return err
	}
	out, err := os.Create(it.ItemLog)
	if err != nil {
		return err
	}
	rec, err := runner.RecordShard(ctx, out, sh, func(ctx context.Context) error { return run(ctx, cfg) })
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(it.ItemLog) // a shard without its log is a missing shard
		return err
	}
	fmt.Fprintf(log, "shard %v: %d of the %d items of %d sweeps recorded in %s\n", sh, sh.Len(rec.Items), rec.Items, rec.Sweeps, it.ItemLog)
	if len(rec.Full) > 0 {
		fmt.Fprintf(log, "computed in full, as the reproduction needs their results to go on: %s\n", strings.Join(rec.Full, ", "))
	}
	return nil
}

// replay runs the reproduction with every sweep's results read from the
// merged log Finish.
func (it Items) replay(ctx context.Context, cfg Config, run func(context.Context, Config) error) error {
	in, err := usage.Open(it.Finish)
	if err != nil {
		return err
	}
	defer in.Close()
	l := runner.NewItemReplayer(in)
	if err := run(runner.WithItemLog(ctx, l), cfg); err != nil {
		return fmt.Errorf("--finish %s: %w", it.Finish, err)
	}
	if err := l.Close(); err != nil {
		return fmt.Errorf("--finish %s: %w", it.Finish, err)
	}
	return nil
}
