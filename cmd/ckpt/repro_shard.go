package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-hpc/ckpt/repro"
	"github.com/ckpt-hpc/ckpt/runner"
)

// reproItems are the flags that run a reproduction on a job array: each
// task records its shard of every sweep's items (--shard, --items), ckpt
// merge joins the item logs, and --finish replays the merged log into the
// reproduction's outputs.
type reproItems struct {
	shard, items, finish string
}

func addReproItemFlags(fl *pflag.FlagSet, f *reproItems) {
	fl.StringVar(&f.shard, "shard", "", "compute only shard i/n (or auto, auto/N in a job array) of every sweep's items, into --items; outputs are then left to --finish")
	fl.StringVar(&f.items, "items", "", "record every sweep item's result to this .jsonl item log (with --shard: the shard's items)")
	fl.StringVar(&f.finish, "finish", "", "finish from this merged item log (ckpt merge of the shards' --items): write every table and figure without recomputing the sweeps")
}

// run runs reproduction fn with cfg under the item flags.
func (f reproItems) run(cmd *cobra.Command, cfg *repro.Config, fn func(context.Context, repro.Config) error) error {
	sh, err := runner.ParseShard(f.shard)
	if err != nil {
		return usage(fmt.Errorf("--shard: %w", err))
	}
	switch {
	case f.items != "" && f.finish != "":
		return usagef("--items records and --finish replays: give one of them")
	case f.shard != "" && f.items == "":
		return usagef("--shard %s needs --items FILE.jsonl, where the shard's results go", f.shard)
	case f.finish != "" && f.shard != "":
		return usagef("--finish replays every item: it takes no --shard")
	case f.items == "" && f.finish == "":
		return fn(cmd.Context(), *cfg)
	}
	if f.finish != "" {
		return f.replay(cmd, cfg, fn)
	}
	if ft, err := runner.FormatOf(f.items); err != nil || ft != runner.FormatJSONL {
		return usagef("--items %q: the item log is JSON lines (a name ending in .jsonl)", f.items)
	}
	return f.record(cmd, cfg, sh, fn)
}

func (f reproItems) record(cmd *cobra.Command, cfg *repro.Config, sh runner.Shard, fn func(context.Context, repro.Config) error) error {
	c := *cfg
	if sh.Count > 0 { // the outputs of a shard are built from partial results
		tmp, err := os.MkdirTemp("", "ckpt-repro-shard-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		c.Dir, c.Log = tmp, io.Discard
	}
	if err := os.MkdirAll(filepath.Dir(f.items), 0o755); err != nil {
		return err
	}
	out, err := os.Create(f.items)
	if err != nil {
		return err
	}
	rec, err := runner.RecordShard(cmd.Context(), out, sh, func(ctx context.Context) error { return fn(ctx, c) })
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.items) // a shard without its log is a missing shard
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "shard %v: %d of the %d items of %d sweeps recorded in %s\n", sh, sh.Len(rec.Items), rec.Items, rec.Sweeps, f.items)
	if len(rec.Full) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "computed in full, as the reproduction needs their results to go on: %s\n", strings.Join(rec.Full, ", "))
	}
	return nil
}

func (f reproItems) replay(cmd *cobra.Command, cfg *repro.Config, fn func(context.Context, repro.Config) error) error {
	in, err := os.Open(f.finish)
	if err != nil {
		return err
	}
	defer in.Close()
	l := runner.NewItemReplayer(in)
	if err := fn(runner.WithItemLog(cmd.Context(), l), *cfg); err != nil {
		return fmt.Errorf("--finish %s: %w", f.finish, err)
	}
	if err := l.Close(); err != nil {
		return fmt.Errorf("--finish %s: %w", f.finish, err)
	}
	return nil
}
