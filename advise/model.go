package advise

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"
)

// ModelFormat names the model file's format, in its first line.
const ModelFormat = "ckpt-advise-model/1"

// modelHeader is the first line of a model file.
type modelHeader struct {
	Format string  `json:"format"`
	Params Params  `json:"params"`
	Wait   WaitFit `json:"wait_pairs"`
	// MaxRequested is the longest request seen: the limit of a job whose
	// user gives no --time.
	MaxRequested float64 `json:"max_requested"`
	// LastSubmit is the last submit time learnt: learning again reads only
	// later jobs.
	LastSubmit float64 `json:"last_submit"`
	// From is the earliest submit time the model covers (the start of its
	// first window; 0 when unknown): jobs from there to LastSubmit were
	// learnt, except Waiting, the IDs of jobs that had not ended at the
	// last learn, which the next learn takes by ID once they end.
	From    float64  `json:"from,omitempty"`
	Waiting []string `json:"waiting,omitempty"`
	Jobs    int      `json:"jobs"`
	Groups  int      `json:"groups"`
}

// modelTrailer is the last line of a model file: a file cut short (a
// copy that stopped, a full disk) lacks it and is refused.
type modelTrailer struct {
	End    string `json:"end"`
	Groups int    `json:"groups"`
}

// groupLine is one group of a model file: one JSON object per line, its key
// first, lines sorted by key.
type groupLine struct {
	Key      string    `json:"k"`
	X        []float64 `json:"x"`
	Censored []int     `json:"censored,omitempty"` // indices into X
	Seen     int       `json:"seen"`
	Ledger   float64   `json:"ledger"`
	Judged   int       `json:"judged"`
	// LedgerNoTime and JudgedNoTime are the ledger of the advice to jobs
	// without --time.
	LedgerNoTime float64 `json:"ledger_notime,omitempty"`
	JudgedNoTime int     `json:"judged_notime,omitempty"`
	Req          float64 `json:"req,omitempty"`
	// Advice is precomputed for Req (or MaxRequested for levels without
	// the request) when the group has enough history.
	Advice *Advice `json:"advice,omitempty"`
}

func (g *group) line(key string) groupLine {
	l := groupLine{Key: key, X: make([]float64, len(g.Runs)), Seen: g.Seen, Ledger: g.Ledger, Judged: g.Judged, Req: g.Req,
		LedgerNoTime: g.LedgerNoTime, JudgedNoTime: g.JudgedNoTime}
	for i, r := range g.Runs {
		l.X[i] = r.X
		if r.Censored {
			l.Censored = append(l.Censored, i)
		}
	}
	return l
}

func (l groupLine) group() *group {
	g := &group{Runs: make([]Run, len(l.X)), Seen: l.Seen, Ledger: l.Ledger, Judged: l.Judged, Req: l.Req,
		LedgerNoTime: l.LedgerNoTime, JudgedNoTime: l.JudgedNoTime}
	for i, x := range l.X {
		g.Runs[i].X = x
	}
	for _, i := range l.Censored {
		if i >= 0 && i < len(g.Runs) {
			g.Runs[i].Censored = true
		}
	}
	return g
}

// WriteModel writes e's state with every group's precomputed advice, temp
// file and rename. O(G log G + G·plan).
func (e *Engine) WriteModel(path string) error {
	keys := make([]string, 0, len(e.groups))
	for k := range e.groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	m, mok := e.WaitModel()
	h := modelHeader{Format: ModelFormat, Params: e.P, Wait: e.wait, MaxRequested: e.maxReq,
		LastSubmit: e.lastSeen, From: e.from, Waiting: e.waiting, Jobs: e.jobs, Groups: len(keys)}
	return output.WriteFile(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		enc := json.NewEncoder(bw)
		if err := enc.Encode(h); err != nil {
			return err
		}
		for _, k := range keys {
			g := e.groups[k]
			l := g.line(k)
			if req := max(g.Req, 0); mok && len(g.Runs) >= e.P.MinRuns {
				if req == 0 {
					req = e.maxReq
				}
				a := plan(g.Runs, req, e.P.Prior, m)
				l.Advice = &a
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		if err := enc.Encode(modelTrailer{End: ModelFormat, Groups: len(keys)}); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// ReadModel loads a whole model file into an engine (for learning more).
func ReadModel(path string) (*Engine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	e, rest, err := modelEngine(path, b)
	if err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(rest, []byte{'\n'})
	last := body[bytes.LastIndexByte(body, '\n')+1:]
	if err := checkTrailer(path, last, e.groupsWant); err != nil {
		return nil, err
	}
	rest = rest[:len(rest)-len(last)-1]
	for n := 2; len(rest) > 0; n++ {
		line, tail, _ := bytes.Cut(rest, []byte{'\n'})
		rest = tail
		var l groupLine
		if err := json.Unmarshal(line, &l); err != nil || l.Key == "" {
			return nil, usage.Errorf("%s:%d: not a group line of a %s file", path, n, ModelFormat)
		}
		e.groups[l.Key] = l.group()
	}
	return e, nil
}

// modelEngine parses the header line of model bytes b into an empty engine
// and returns the group lines that follow.
func modelEngine(path string, b []byte) (*Engine, []byte, error) {
	first, rest, _ := bytes.Cut(b, []byte{'\n'})
	var h modelHeader
	if err := json.Unmarshal(first, &h); err != nil || h.Format != ModelFormat {
		return nil, nil, usage.Errorf("%s: not a %s file (learn one with ckpt advise learn LOG --model %s)", path, ModelFormat, path)
	}
	if err := h.Params.Validate(); err != nil {
		return nil, nil, usage.Errorf("%s: %v", path, err)
	}
	e := NewEngine(h.Params)
	e.wait, e.maxReq, e.lastSeen, e.jobs, e.groupsWant = h.Wait, h.MaxRequested, h.LastSubmit, h.Jobs, h.Groups
	e.from, e.waiting = h.From, h.Waiting
	return e, rest, nil
}

// checkTrailer refuses a model whose last line is not its trailer.
func checkTrailer(path string, last []byte, groups int) error {
	var t modelTrailer
	if err := json.Unmarshal(last, &t); err != nil || t.End != ModelFormat || t.Groups != groups {
		return usage.Errorf("%s: the model file is incomplete (no end line for its %d groups): learn it again", path, groups)
	}
	return nil
}

// lineFile reads the lines of a sorted model file at offsets, without
// reading the whole file.
type lineFile struct {
	f          io.ReaderAt
	base, size int64 // the first group line's offset, the file's size
}

// lineFrom returns the line that starts at s (without its newline).
func (lf lineFile) lineFrom(s int64) ([]byte, error) {
	var out []byte
	buf := make([]byte, 1024)
	for off := s; off < lf.size; off += int64(len(buf)) {
		n, err := lf.f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return append(out, buf[:i]...), nil
		}
		out = append(out, buf[:n]...)
		if err != nil && err != io.EOF {
			return nil, err
		}
	}
	return out, nil
}

// dropTrailer checks the file's last line and ends the search before it.
func (lf *lineFile) dropTrailer(path string, groups int) error {
	end := lf.size
	if end > 0 {
		var b [1]byte
		if _, err := lf.f.ReadAt(b[:], end-1); err == nil && b[0] == '\n' {
			end--
		}
	}
	start := max(end-256, lf.base)
	buf := make([]byte, end-start)
	if _, err := lf.f.ReadAt(buf, start); err != nil && err != io.EOF {
		return usage.Errorf("%s: %v", path, err)
	}
	i := bytes.LastIndexByte(buf, '\n')
	if err := checkTrailer(path, buf[i+1:], groups); err != nil {
		return err
	}
	lf.size = start + int64(i) + 1
	return nil
}

// nextStart is the first line start at or after p.
func (lf lineFile) nextStart(p int64) (int64, error) {
	if p <= lf.base {
		return lf.base, nil
	}
	line, err := lf.lineFrom(p - 1) // the rest of the line holding p−1
	return p + int64(len(line)), err
}

// find binary-searches the sorted group lines for key: O(log size) probes
// of a line each, no decoding.
func (lf lineFile) find(key string) ([]byte, error) {
	lo, hi := lf.base, lf.size
	for lo < hi {
		mid := lo + (hi-lo)/2
		s, err := lf.nextStart(mid)
		if err != nil {
			return nil, err
		}
		if s >= hi {
			hi = mid
			continue
		}
		line, err := lf.lineFrom(s)
		if err != nil {
			return nil, err
		}
		switch c := bytes.Compare(lineKey(line), []byte(key)); {
		case c == 0:
			return line, nil
		case c < 0:
			lo = s + int64(len(line)) + 1
		default:
			hi = mid
		}
	}
	return nil, nil
}

// lineKey is the key of a group line ({"k":"KEY",...}).
func lineKey(line []byte) []byte {
	const p = `{"k":"`
	if !bytes.HasPrefix(line, []byte(p)) {
		return nil
	}
	k := line[len(p):]
	if i := bytes.IndexByte(k, '"'); i >= 0 {
		return k[:i]
	}
	return nil
}

// Ask answers q from the model file at path: the header and at most one
// line per level are read and decoded (binary search on the sorted file);
// the plan is the precomputed one unless the group's level has no request
// and q gives one.
func Ask(path string, q Query) (Advice, error) {
	f, err := usage.Open(path)
	if err != nil {
		return Advice{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Advice{}, err
	}
	lf := lineFile{f: f, size: fi.Size()}
	first, err := lf.lineFrom(0)
	if err != nil {
		return Advice{}, usage.Errorf("%s: %v", path, err)
	}
	e, _, err := modelEngine(path, first)
	if err != nil {
		return Advice{}, err
	}
	lf.base = int64(len(first)) + 1
	if err := lf.dropTrailer(path, e.groupsWant); err != nil {
		return Advice{}, err
	}
	_, mok := e.WaitModel()
	for l, lv := range Levels {
		if lv.Req && q.Requested <= 0 {
			continue
		}
		k := Key(l, q)
		line, err := lf.find(k)
		if err != nil {
			return Advice{}, err
		}
		if line == nil {
			continue
		}
		var gl groupLine
		if err := json.Unmarshal(line, &gl); err != nil {
			return Advice{}, usage.Errorf("%s: group %q: %v", path, k, err)
		}
		g := gl.group()
		e.groups[k] = g
		if gl.Advice != nil && mok {
			a := *gl.Advice
			a.advised = true
			e.cache[cacheKey{k, a.Requested}] = cached{version: g.version, epoch: int(e.wait.N) / 1000, a: a}
		}
		if len(g.Runs) >= e.P.MinRuns {
			break
		}
	}
	return e.Advise(q), nil
}
