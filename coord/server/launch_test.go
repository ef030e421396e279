package server

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/usage"
)

// serve --fta: the prior node MTBF is the Grid'5000 trace's, 32.51 h
// (ΣUp/ΣFailures counted independently with awk when the reader was
// written).
func TestSettingsFTAPrior(t *testing.T) {
	dir := filepath.Dir(datadirtest.ForTest(t, "failures", "grid5k_fta_event_trace.tab.gz"))
	s := Settings{Bandwidth: "40GB/s", Policy: "least-waste", TTL: "30s", MaxTTL: "1d", NodeMTBF: "0", FTA: dir}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if want := 32.51 * 3600; math.Abs(cfg.NodeMTBF-want)/want > 0.001 {
		t.Fatalf("prior node MTBF %v s, want %v", cfg.NodeMTBF, want)
	}
	s.NodeMTBF = "1y"
	if _, err := s.Config(); !usage.Is(err) {
		t.Fatalf("--fta with --node-mtbf: %v, want a usage error", err)
	}
}

// Each bad setting is a usage error naming its flag and the bad value.
func TestSettingsErrors(t *testing.T) {
	ok := Settings{Bandwidth: "40GB/s", Policy: "least-waste", TTL: "30s", MaxTTL: "1d", NodeMTBF: "0"}
	if _, err := ok.Config(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Bandwidth = "" }, "--bandwidth: required (e.g. 40GB/s)"},
		{func(s *Settings) { s.Bandwidth = "0" }, "--bandwidth: 0 must be > 0"},
		{func(s *Settings) { s.Policy = "nope" }, `--policy: unknown policy "nope"`},
		{func(s *Settings) { s.TTL = "-1s" }, "--ttl: -1s must be > 0"},
		{func(s *Settings) { s.MaxTTL = "0" }, "--max-ttl: 0 must be > 0"},
		{func(s *Settings) { s.NodeMTBF = "-1h" }, "--node-mtbf: -1h must be >= 0"},
		{func(s *Settings) { s.TTL = "2d" }, "--ttl: 172800 s must be in (0, 86400] (the max TTL)"},
		{func(s *Settings) { s.FTA = filepath.Join(t.TempDir(), "none") }, "no such file"},
	} {
		s := ok
		c.edit(&s)
		_, err := s.Config()
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", s, err, c.want)
		}
	}
}

// Serve refuses bad launch flags before it opens the database, each as a
// usage error naming the flag.
func TestServeLaunchErrors(t *testing.T) {
	dir := t.TempDir()
	ok := Launch{Settings: Settings{Bandwidth: "40GB/s", Policy: "least-waste", TTL: "30s", MaxTTL: "1d", NodeMTBF: "0"},
		Listen: "127.0.0.1:0", DB: filepath.Join(dir, "never.db"), Init: true, NoAuth: true, LogFormat: "text"}
	for _, c := range []struct {
		edit func(*Launch)
		want string
	}{
		{func(l *Launch) { l.Bandwidth = "" }, "--bandwidth: required"},
		{func(l *Launch) { l.Listen = "10.1.1.1:80" }, `--listen: "10.1.1.1:80" is not a loopback address`},
		{func(l *Launch) { l.NoAuth = false }, "--token-file: required (or --no-auth)"},
		{func(l *Launch) { l.TokenFile = filepath.Join(dir, "none") }, "--token-file: open "},
		{func(l *Launch) { l.LogFormat = "xml" }, `--log-format: "xml" is not text or json`},
		{func(l *Launch) { l.Rate = math.NaN() }, "--rate: NaN requests/s"},
		{func(l *Launch) { l.Rate = 1e308 }, "--rate: 1e+308 requests/s"},
	} {
		l := ok
		c.edit(&l)
		err := Serve(t.Context(), l)
		if !usage.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v, want a usage error starting %q", err, c.want)
		}
	}
	if _, err := os.Stat(ok.DB); !os.IsNotExist(err) {
		t.Fatalf("a refused launch created the database: %v", err)
	}
}

// --commit-wait: the units grammar in [0, 1s]; anything else is a usage
// error naming the flag and the value.
func TestCommitWait(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "0": 0, "1ms": time.Millisecond, "0.0025": 2500 * time.Microsecond, "1s": time.Second} {
		if got, err := commitWait(v); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"abc", "-1ms", "2s", "NaN", "1e400", "1d", "5m"} {
		_, err := commitWait(v)
		if !usage.Is(err) || !strings.Contains(err.Error(), "--commit-wait") || !strings.Contains(err.Error(), v) {
			t.Errorf("%q: %v, want a usage error naming --commit-wait and the value", v, err)
		}
	}
}
