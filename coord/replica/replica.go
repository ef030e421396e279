package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/coord/store"
	"github.com/ckpt-hpc/ckpt/usage"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Peer is a member of the replica group: its id, raft address and the
// address its coordinator answers HTTP on (where a follower redirects
// writes; "" if not given).
type Peer struct {
	ID   string `json:"id"`
	Addr string `json:"addr"`
	HTTP string `json:"http,omitempty"`
}

// Options of a replica.
type Options struct {
	// ID names this replica in the group (letters, digits, '-', '_', '.').
	ID string
	// Bind is the raft address, host:port (port 0: any free port; Addr
	// tells which).
	Bind string
	// Dir is the replica's folder: the raft log and stable store
	// (raft.db, bbolt) and the snapshots. Created if missing.
	Dir string
	// Bootstrap starts a new group of Peers (this replica among them) if
	// Dir holds no raft state yet; ignored otherwise.
	Bootstrap bool
	Peers     []Peer
	// Raft timeouts (zero: hashicorp/raft's defaults, 1 s, 1 s, 500 ms).
	HeartbeatTimeout, ElectionTimeout, LeaderLeaseTimeout time.Duration
	// CommitTimeout bounds how long Commit waits for a majority (10 s if
	// zero); a commit that times out is an error.
	CommitTimeout time.Duration
	// SnapshotThreshold is how many entries since the last snapshot make
	// a new one, TrailingLogs how many entries a snapshot leaves in the
	// log (zero: raft's defaults, 8192 and 10240).
	SnapshotThreshold, TrailingLogs uint64
	// SnapshotInterval is how often the threshold is checked (zero:
	// raft's default, 120 s).
	SnapshotInterval time.Duration
	// NoSync skips the log's fsync (tests only: not durable).
	NoSync bool
	// Log receives raft's own log lines (nil: discarded).
	Log io.Writer
}

// Validate names the first bad field.
func (o Options) Validate() error {
	switch {
	case !validID(o.ID):
		return usage.Fieldf("id", "%q must be 1 to 64 letters, digits, '-', '_' or '.'", clip(o.ID))
	case o.Dir == "":
		return usage.Fieldf("db", "no replica folder given")
	case o.CommitTimeout < 0:
		return usage.Fieldf("commit-timeout", "%v must be ≥ 0", o.CommitTimeout)
	}
	if host, port, err := net.SplitHostPort(o.Bind); err != nil || host == "" || !validPort(port) {
		return usage.Fieldf("raft", "%q is not host:port (a host and a port in 0-65535)", clip(o.Bind))
	}
	if o.Bootstrap {
		if len(o.Peers) == 0 {
			return usage.Fieldf("peers", "--bootstrap needs the group's peers")
		}
		seen := map[string]bool{}
		self := false
		for _, p := range o.Peers {
			if seen[p.ID] {
				return usage.Fieldf("peers", "replica %q listed twice", clip(p.ID))
			}
			seen[p.ID] = true
			self = self || p.ID == o.ID
		}
		if !self {
			return usage.Fieldf("peers", "this replica %q is not among the peers", clip(o.ID))
		}
	}
	return nil
}

func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ParsePeers reads a peer list "n1=127.0.0.1:7101,n2=127.0.0.1:7102",
// each raft address optionally followed by "@" and the replica's HTTP
// address ("n1=127.0.0.1:7101@127.0.0.1:7071"); an error names the bad
// item.
func ParsePeers(s string) ([]Peer, error) {
	var ps []Peer
	for item := range strings.SplitSeq(s, ",") {
		id, addr, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || !validID(id) {
			return nil, usage.Fieldf("peers", "%q is not id=host:port", clip(item))
		}
		addr, web, hasWeb := strings.Cut(addr, "@")
		if !validAddr(addr) {
			return nil, usage.Fieldf("peers", "%q: %q is not host:port (a port in 1-65535)", clip(item), clip(addr))
		}
		if hasWeb && !validAddr(web) {
			return nil, usage.Fieldf("peers", "%q: HTTP address %q is not host:port (a port in 1-65535)", clip(item), clip(web))
		}
		ps = append(ps, Peer{ID: id, Addr: addr, HTTP: web})
	}
	return ps, nil
}

// validPort: a port number in 0-65535 (0: any free port).
func validPort(p string) bool {
	_, err := strconv.ParseUint(p, 10, 16)
	return err == nil
}

// validAddr: host:port with a host and a port in 1-65535.
func validAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n > 0
}

// Replica is a raft node whose state machine holds the coordinator's
// committed state; it implements store.Store (see the package comment for
// what Load and Commit promise).
type Replica struct {
	opt     Options
	fsm     *fsm
	raft    *raft.Raft
	layer   *layer
	trans   *raft.NetworkTransport
	logs    *raftboltdb.BoltStore
	metrics *metrics
	log     hclog.Logger
	// shutdown stops raft (nil: raft.Shutdown; tests make it hang).
	shutdown func() error
	seeds    *seeder
	// memberMu orders the membership records the seeder commits with
	// members add and remove (a seed read before a removal is not
	// applied after it).
	memberMu sync.Mutex

	mu    sync.Mutex
	epoch uint64 // the term in which the state was last loaded as leader (0: not)
	stale bool   // a commit failed since the last load
	// loaded is epoch while Commit may accept (not stale), 0 otherwise:
	// read without mu (Loaded), which Commit holds while it waits.
	loaded atomic.Uint64
}

var _ store.Store = (*Replica)(nil)

// Open starts the replica (and the group, with Bootstrap on a new Dir).
func Open(opt Options) (*Replica, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.CommitTimeout == 0 {
		opt.CommitTimeout = 10 * time.Second
	}
	if err := os.MkdirAll(opt.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("replica folder %s: %w", opt.Dir, err)
	}
	out := opt.Log
	if out == nil {
		out = io.Discard
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft/" + opt.ID, Output: out, Level: hclog.Info})
	cfg := raft.DefaultConfig()
	cfg.LocalID = raft.ServerID(opt.ID)
	cfg.Logger = logger
	setDur(&cfg.HeartbeatTimeout, opt.HeartbeatTimeout)
	setDur(&cfg.ElectionTimeout, opt.ElectionTimeout)
	setDur(&cfg.LeaderLeaseTimeout, opt.LeaderLeaseTimeout)
	setDur(&cfg.SnapshotInterval, opt.SnapshotInterval)
	if opt.SnapshotThreshold > 0 {
		cfg.SnapshotThreshold = opt.SnapshotThreshold
	}
	if opt.TrailingLogs > 0 {
		cfg.TrailingLogs = opt.TrailingLogs
	}
	if err := raft.ValidateConfig(cfg); err != nil {
		return nil, usage.Wrap(err)
	}
	r := &Replica{opt: opt, fsm: newFSM(), metrics: newMetrics(), log: logger}
	r.fsm.onHTTP = r.checkHTTP
	if err := r.start(cfg, logger); err != nil {
		r.closeTransport()
		return nil, err
	}
	return r, nil
}

func setDur(d *time.Duration, v time.Duration) {
	if v > 0 {
		*d = v
	}
}

func (r *Replica) start(cfg *raft.Config, logger hclog.Logger) error {
	opt := r.opt
	var err error
	path := filepath.Join(opt.Dir, "raft.db")
	r.logs, err = raftboltdb.New(raftboltdb.Options{Path: path, NoSync: opt.NoSync,
		BoltOptions: &bolt.Options{Timeout: 2 * time.Second, NoSync: opt.NoSync}})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("replica log %s is locked by another process", path)
	} else if err != nil {
		return fmt.Errorf("replica log %s: %w", path, err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(opt.Dir, 2, logger)
	if err != nil {
		return fmt.Errorf("replica snapshots in %s: %w", opt.Dir, err)
	}
	if r.layer, err = listen(opt.Bind); err != nil {
		return fmt.Errorf("replica %s: raft address %s: %w", opt.ID, opt.Bind, err)
	}
	r.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: r.layer, MaxPool: 3, Timeout: 10 * time.Second, Logger: logger})
	if opt.Bootstrap {
		has, err := raft.HasExistingState(r.logs, r.logs, snaps)
		if err != nil {
			return fmt.Errorf("replica %s: %w", opt.Dir, err)
		}
		if !has {
			var conf raft.Configuration
			for _, p := range opt.Peers {
				addr := p.Addr
				if p.ID == opt.ID {
					addr = r.Addr()
				}
				conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(addr)})
			}
			if err := raft.BootstrapCluster(cfg, r.logs, r.logs, snaps, r.trans, conf); err != nil {
				return fmt.Errorf("replica %s: bootstrap: %w", opt.ID, err)
			}
		}
	}
	r.raft, err = raft.NewRaft(cfg, r.fsm, r.logs, r.logs, snaps, r.trans)
	if err != nil {
		return fmt.Errorf("replica %s: %w", opt.ID, err)
	}
	r.metrics.observe(r.raft)
	r.seed()
	return nil
}

func (r *Replica) closeTransport() {
	if r.trans != nil {
		r.trans.Close()
	} else if r.layer != nil {
		r.layer.Close()
	}
	if r.logs != nil {
		r.logs.Close()
	}
}

// ShutdownWait bounds Close. hashicorp/raft v1.7.3's Shutdown can wait
// for ever on a replication goroutine blocked sending to a follower whose
// reply reader has already exited (seen in tests with a 5 ms
// CommitTimeout); a stopping server must still stop within about a
// second.
const ShutdownWait = time.Second

// Close stops the replica: raft, its transport and its log. When raft has
// not shut down within ShutdownWait, Close closes the transport, leaves
// the log store open (raft's goroutines still read it: closing it under
// them makes raft panic) and returns an error saying so; every entry raft
// acknowledged is already synced to the log, so the process may exit.
func (r *Replica) Close() error {
	r.stopSeeding(false)
	done := make(chan error, 1)
	go func() {
		if r.shutdown != nil {
			done <- r.shutdown()
			return
		}
		done <- r.raft.Shutdown().Error()
	}()
	select {
	case err := <-done:
		r.stopSeeding(true)
		r.metrics.stop(r.raft)
		r.closeTransport()
		return err
	case <-time.After(ShutdownWait):
		if r.trans != nil {
			r.trans.Close()
		}
		return fmt.Errorf("%s: raft did not shut down within %v; its transport is closed, its log left to the process's exit", r.Name(), ShutdownWait)
	}
}

// Addr is the raft address the replica listens on.
func (r *Replica) Addr() string { return r.layer.Addr().String() }

// Name names the replica in messages.
func (r *Replica) Name() string { return fmt.Sprintf("replica %s (%s)", r.opt.ID, r.opt.Dir) }

// NotLeaderError refuses a commit on a replica that is not the leader (or
// not the leader of the term in which its state was loaded). Leader is the
// current leader's raft address ("" if none is known).
type NotLeaderError struct{ ID, Leader string }

func (e *NotLeaderError) Error() string {
	if e.Leader == "" {
		return fmt.Sprintf("replica %s is not the leader (no leader known)", e.ID)
	}
	return fmt.Sprintf("replica %s is not the leader (the leader is %s)", e.ID, e.Leader)
}

// ErrReload refuses a commit after a failed one until the state is loaded
// again: the owner's core holds changes that may not be committed.
var ErrReload = errors.New("replica: a commit failed: load the state again before committing")

// Load returns the replicated state. On the leader it first waits until
// every entry committed before (by any earlier leader) is applied, and
// from then on Commit accepts changes computed from this state, for as
// long as this replica stays the leader of this term. On a follower, or
// a leader deposed while it waited, it returns the state as applied so
// far (a stale read), and Commit refuses until a Load as leader: a
// replica that is running never fails to load, so an owner that reloads
// after every failed commit (coord/server) keeps serving reads.
func (r *Replica) Load() (coord.Meta, []coord.Job, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch, r.stale = 0, false
	switch r.raft.State() {
	case raft.Shutdown:
		return coord.Meta{}, nil, fmt.Errorf("%s is shut down", r.Name())
	case raft.Leader:
		term := r.raft.CurrentTerm()
		if r.raft.Barrier(r.opt.CommitTimeout).Error() == nil {
			r.epoch = term
		}
	}
	r.loaded.Store(r.epoch)
	meta, jobs := r.fsm.state()
	return meta, jobs, nil
}

// Commit replicates a sequence of changes as one raft entry and returns
// once a majority has it and this replica has applied it. It refuses on a
// follower, on a leader of another term than the last Load's, and after a
// failed commit until the next Load.
func (r *Replica) Commit(chs ...coord.Changes) error {
	if len(chs) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stale {
		return ErrReload
	}
	if r.epoch == 0 || r.raft.State() != raft.Leader || r.raft.CurrentTerm() != r.epoch {
		r.stale = true
		r.loaded.Store(0)
		addr, _ := r.raft.LeaderWithID()
		return &NotLeaderError{ID: r.opt.ID, Leader: string(addr)}
	}
	b, err := json.Marshal(entry{Epoch: r.epoch, Changes: chs})
	if err != nil {
		return fmt.Errorf("%s: encoding the changes: %w", r.Name(), err)
	}
	start := time.Now()
	f := r.raft.Apply(b, r.opt.CommitTimeout)
	if err := f.Error(); err != nil {
		r.stale = true
		r.loaded.Store(0)
		return fmt.Errorf("%s: commit: %w", r.Name(), err)
	}
	r.metrics.commit.Observe(time.Since(start).Seconds())
	if err, ok := f.Response().(error); ok && err != nil {
		r.stale = true
		r.loaded.Store(0)
		return fmt.Errorf("%s: commit: %w", r.Name(), err)
	}
	return nil
}

// ParseMember reads one replica "id=host:port@http-host:port" (as an item
// of ParsePeers; the HTTP address optional) for `ckpt coord members add`;
// an error names the argument.
func ParseMember(s string) (api.Member, error) {
	ps, err := ParsePeers(s)
	if err != nil || len(ps) != 1 {
		return api.Member{}, usage.Fieldf("member", "%q is not id=raft-host:port@http-host:port", clip(s))
	}
	return api.Member{ID: ps[0].ID, Addr: ps[0].Addr, HTTP: ps[0].HTTP}, nil
}

// MemberClient changes a group's membership over HTTP (coord/client's
// Client; an interface, since coord/client's tests use this package).
type MemberClient interface {
	AddMember(context.Context, api.Member) (api.GroupView, error)
	RemoveMember(context.Context, string) (api.GroupView, error)
}

// AddMember adds the replica s ("id=raft-host:port@http-host:port",
// ParseMember) to the group through cl (`ckpt coord members add`).
func AddMember(ctx context.Context, cl MemberClient, s string) (api.GroupView, error) {
	m, err := ParseMember(s)
	if err != nil {
		return api.GroupView{}, err
	}
	return cl.AddMember(ctx, m)
}
