package loadgen

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"
)

// The acknowledged writes a record holds (Ack.Op).
const (
	OpGrant   = "grant"
	OpRelease = "release"
	OpDone    = "done"
)

// Ack is one line of a run's record (Options.Record): a write the
// coordinator acknowledged to a client.
type Ack struct {
	Client int    `json:"client"` // the load client, 0 … Clients-1
	Op     string `json:"op"`     // OpGrant, OpRelease or OpDone
	Job    string `json:"job"`
	Token  uint64 `json:"token,omitempty"` // the lease's fencing token (grant, release)
	// Server is the URL that answered (the leader, for a replicated
	// coordinator: the one a 307 led to).
	Server string    `json:"server"`
	At     time.Time `json:"at"` // when the answer was read
}

// recorder writes a run's Acks, one JSON line each, in the order the
// clients were acknowledged (a client's next request leaves after its
// line is written).
type recorder struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// ack returns client w's function that records an acknowledged write,
// server() naming the URL that answered it (a no-op for a nil recorder).
func (r *recorder) ack(w int, server func() string) func(op, job string, token uint64) {
	if r == nil {
		return func(string, string, uint64) {}
	}
	return func(op, job string, token uint64) {
		b, _ := json.Marshal(Ack{Client: w, Op: op, Job: job, Token: token, Server: server(), At: time.Now()})
		r.mu.Lock()
		r.w.Write(append(b, '\n')) // an error sticks: Flush returns it
		r.mu.Unlock()
	}
}

// withRecord runs run, with the recorder writing to path through a
// temporary file renamed at the end (output.WriteFile); without a path,
// just run. run's error removes the temporary file.
func withRecord(path string, r *recorder, run func() error) error {
	if path == "" {
		return run()
	}
	return output.WriteFile(path, func(w io.Writer) error {
		r.w = bufio.NewWriterSize(w, 64<<10)
		if err := run(); err != nil {
			return err
		}
		return r.w.Flush()
	})
}

// validRecord checks Options.Record: a file (existing or not) in an
// existing folder.
func validRecord(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usage.Fieldf("record", "%s is a folder, not a file", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return usage.Fieldf("record", "%s: no folder %s", path, filepath.Dir(path))
	}
	return nil
}

// answeredKey is the context key of a client's *string that answered
// sets.
type answeredKey struct{}

// answered is a transport that notes, in the request context's
// answeredKey string, the URL that answered a request with 2xx.
type answered struct{ http.RoundTripper }

func (a answered) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.RoundTripper.RoundTrip(req)
	if err == nil && resp.StatusCode < 300 {
		if p, ok := req.Context().Value(answeredKey{}).(*string); ok {
			*p = req.URL.Scheme + "://" + req.URL.Host
		}
	}
	return resp, err
}
