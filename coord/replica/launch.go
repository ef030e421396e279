package replica

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ckpt-hpc/ckpt/coord/server"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Launch is `ckpt serve` as a replica: the server's flags, the replica's
// id, raft address and peers, and Bootstrap on a new group's first start.
// DB is the replica's folder (Options.Dir).
type Launch struct {
	server.Launch
	ID, Raft, Peers string
	Bootstrap       bool
	// SnapshotEntries > 0: a snapshot every that many entries, keeping as
	// many in the log, the threshold checked every second (so a replica
	// that was down catches up from a snapshot sooner); 0: raft's defaults
	// (8192 entries, 10240 kept, checked every 120 s).
	SnapshotEntries uint64
}

// Serve checks l (usage errors naming the flag), opens the replica and
// serves the coordinator on it until ctx is done. Without an ID it is the
// single server, server.Serve.
func Serve(ctx context.Context, l Launch) error {
	if l.ID == "" {
		if l.Raft != "" || l.Peers != "" || l.Bootstrap {
			return usage.Fieldf("--id", "required with --raft, --peers or --bootstrap (a replica's id)")
		}
		return server.Serve(ctx, l.Launch)
	}
	if l.Init {
		return usage.Fieldf("--init", "a replica creates its folder --db itself: give --bootstrap on a new group's first start")
	}
	o := Options{ID: l.ID, Bind: l.Raft, Dir: l.DB, Bootstrap: l.Bootstrap, NoSync: l.NoSync, Log: l.Log}
	if l.SnapshotEntries > 0 {
		o.SnapshotThreshold, o.TrailingLogs, o.SnapshotInterval = l.SnapshotEntries, l.SnapshotEntries, time.Second
	}
	if l.Peers != "" {
		var err error
		if o.Peers, err = ParsePeers(l.Peers); err != nil {
			return flagError(err)
		}
	}
	if err := o.Validate(); err != nil {
		return flagError(err)
	}
	if err := selfAgrees(o, l.Listen); err != nil {
		return err
	}
	if err := server.CheckListen(l.Raft, l.AllowRemote); err != nil { // raft's transport has no authentication
		return usage.Fieldf("--raft", "%v", err)
	}
	if err := l.Launch.Validate(); err != nil {
		return err
	}
	r, err := Open(o)
	if err != nil {
		return err
	}
	defer r.Close()
	l.Store = r
	return server.Serve(ctx, l.Launch)
}

// selfAgrees checks that this replica's own entry in --peers is where it
// listens: the others dial its raft address and redirect clients to its
// HTTP address, so a mismatch would strand the group (307 to an address
// where nothing listens).
func selfAgrees(o Options, listen string) error {
	for _, p := range o.Peers {
		if p.ID != o.ID {
			continue
		}
		if p.Addr != o.Bind {
			return usage.Fieldf("--raft", "%q is not %s's raft address in --peers (%q)", clip(o.Bind), o.ID, clip(p.Addr))
		}
		if p.HTTP != "" && p.HTTP != listen {
			return usage.Fieldf("--listen", "%q is not %s's HTTP address in --peers (%q)", clip(listen), o.ID, clip(p.HTTP))
		}
	}
	return nil
}

// flagError names the flag of a usage error of Options ("peers" is
// --peers).
func flagError(err error) error {
	var ue *usage.Error
	if errors.As(err, &ue) && !strings.HasPrefix(ue.Field, "--") {
		return &usage.Error{Field: "--" + ue.Field, Err: ue.Err}
	}
	return err
}
