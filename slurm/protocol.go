package slurm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The app signals ckpt run can send for a checkpoint (--app-signal), by
// name: USR1 (ckpt's own protocol, the default), TERM (Hugging Face
// Trainer's JIT checkpoint, NeMo's PreemptionCallback, Lightning and
// submitit when told), USR2 and INT.
var appSignals = map[string]syscall.Signal{"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT}

// ParseAppSignal reads a checkpoint signal's name (USR1, SIGUSR1, usr1,
// TERM, USR2, INT); "" is USR1.
func ParseAppSignal(name string) (syscall.Signal, error) {
	if name == "" {
		return syscall.SIGUSR1, nil
	}
	if s, ok := appSignals[strings.TrimPrefix(strings.ToUpper(name), "SIG")]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("%q: want TERM, USR1, USR2 or INT", name)
}

// appSignalName is sig's name as --app-signal takes it (USR1, TERM…).
func appSignalName(sig syscall.Signal) string {
	for n, s := range appSignals {
		if s == sig {
			return n
		}
	}
	return "USR1"
}

// terminates reports whether sig asks the app to end (TERM, INT): an app
// signalled so that has not exited within its grace is killed with its
// process group (graceEnd).
func terminates(sig syscall.Signal) bool { return sig == syscall.SIGTERM || sig == syscall.SIGINT }

// graceEnd is when the runner kills (SIGKILL, with its group) an app it
// sent a terminating checkpoint signal at `at`: at + grace, never later
// than the reservation's end; grace 0 is the end itself.
func graceEnd(at, end time.Time, grace time.Duration) time.Time {
	if grace > 0 && at.Add(grace).Before(end) {
		return at.Add(grace)
	}
	return end
}

// Measured is what apps of a chain reported through CKPT_REPORT_FILE, in
// real seconds, kept in DIR/measured.json: the latest checkpoint cost and
// the median step time of the latest reservation that reported steps.
// Later reservations price their lead with them.
type Measured struct {
	// Checkpoint is the latest checkpoint cost reported (s); 0: none.
	Checkpoint float64 `json:"checkpoint_s,omitempty"`
	// Step is the median of the step times of the latest reservation
	// that reported any (s); 0: none.
	Step float64 `json:"step_s,omitempty"`
	// Reservation is the reservation that reported last.
	Reservation int `json:"reservation,omitempty"`
}

func (st *State) measuredPath() string { return filepath.Join(st.Dir, "measured.json") }

// Measured reads DIR/measured.json (zero when absent or unreadable).
func (st *State) Measured() Measured {
	var m Measured
	b, err := os.ReadFile(st.measuredPath())
	if err == nil && json.Unmarshal(b, &m) == nil && validMeasure(m.Checkpoint) && validMeasure(m.Step) {
		return m
	}
	return Measured{}
}

// ReportFile is where reservation k's app appends its measurements
// (CKPT_REPORT_FILE): JSON lines {"checkpoint_s": 12.3} or {"step_s": 0.41}.
func (st *State) ReportFile(k int) string { return filepath.Join(st.Dir, fmt.Sprintf("report.r%d", k)) }

// CheckpointNowFile is the file the runner creates when reservation k's
// checkpoint is due (CKPT_CHECKPOINT_NOW).
func (st *State) CheckpointNowFile(k int) string {
	return filepath.Join(st.Dir, fmt.Sprintf("checkpoint-now.r%d", k))
}

// SocketPath is the Unix socket that answers reservation k's app
// (CKPT_SOCKET); "" when the path would not fit in sun_path (107 bytes).
func (st *State) SocketPath(k int) string {
	p := filepath.Join(st.Dir, fmt.Sprintf("sock.r%d", k))
	if len(p) > maxSocketPath {
		return ""
	}
	return p
}

// maxSocketPath is the longest path a Unix socket can have on Linux
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

func validMeasure(v float64) bool { return v >= 0 && v <= MaxDelay }

// ReadReport reads an app's report (JSON lines, one measurement each:
// checkpoint_s, step_s, seconds in [0, MaxDelay]). It returns the latest
// checkpoint cost and the step times in order; bad lines are skipped and
// counted, with the first one's line number and text in bad.
func ReadReport(r io.Reader) (checkpoint float64, steps []float64, skipped int, bad string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<16)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var m map[string]float64
		err := json.Unmarshal([]byte(text), &m)
		c, hasC := m["checkpoint_s"]
		s, hasS := m["step_s"]
		if err != nil || (!hasC && !hasS) || hasC && !validMeasure(c) || hasS && !validMeasure(s) {
			if skipped++; bad == "" {
				bad = fmt.Sprintf("line %d: %.60q", line, text)
			}
			continue
		}
		if hasC {
			checkpoint = c
		}
		if hasS {
			steps = append(steps, s)
		}
	}
	if err := sc.Err(); err != nil && bad == "" {
		skipped, bad = skipped+1, err.Error()
	}
	return checkpoint, steps, skipped, bad
}

// median of xs (not empty), without changing xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// learnReport folds reservation k's report into the chain's Measured
// (DIR/measured.json, written atomically) and returns it. Bad lines are
// reported on stderr, one line.
func learnReport(st *State, k int, stderr io.Writer) {
	f, err := os.Open(st.ReportFile(k))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		fmt.Fprintf(stderr, "ckpt run: warning: %v\n", err)
		return
	}
	c, steps, skipped, bad := ReadReport(io.LimitReader(f, 64<<20))
	f.Close()
	if skipped > 0 {
		fmt.Fprintf(stderr, "ckpt run: warning: %s: %d line(s) skipped, the first %s: want {\"checkpoint_s\": SECONDS} or {\"step_s\": SECONDS}\n", st.ReportFile(k), skipped, bad)
	}
	if c == 0 && len(steps) == 0 {
		return
	}
	m := st.Measured()
	m.Reservation = k
	if c > 0 {
		m.Checkpoint = c
	}
	if len(steps) > 0 {
		m.Step = median(steps)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := writeBytes(st.measuredPath(), append(b, '\n')); err != nil {
		fmt.Fprintf(stderr, "ckpt run: warning: %v\n", err)
	}
}

// lead is how the runner prices the checkpoint signal of a reservation:
// the checkpoint cost (measured, else the plan's C/scale) and the step
// time (given, else measured, else 0), in real seconds. The signal comes
// at end − Cost − Step − margin: frameworks save only at a step's end.
type lead struct {
	Cost, Step float64
}

func leadOf(cfg RunConfig, st *State, step Step, scale float64) lead {
	m := st.Measured()
	l := lead{Cost: step.CheckpointTime / scale, Step: m.Step}
	if m.Checkpoint > 0 {
		l.Cost = m.Checkpoint
	}
	if cfg.StepTime > 0 {
		l.Step = cfg.StepTime.Seconds()
	}
	return l
}

// request is a reservation's checkpoint request: made once, by the
// runner's timer or at Slurm's SIGTERM (a preemption, the time limit),
// whichever comes first. Making it creates the CKPT_CHECKPOINT_NOW file
// (atomically: a temporary file renamed); the socket answers from it.
type request struct {
	mu     sync.Mutex
	done   bool
	path   string
	at     time.Time // CKPT_CHECKPOINT_AT; zero when none is planned
	end    time.Time
	clock  Clock
	stderr io.Writer
}

// make makes the request, once; it reports whether this call made it.
func (r *request) make(why string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	r.done = true
	line := fmt.Sprintf("%s %.3f\n", why, float64(r.clock.Now().UnixNano())/1e9)
	if err := writeBytes(r.path, []byte(line)); err != nil {
		fmt.Fprintf(r.stderr, "ckpt run: warning: %v\n", err)
	}
	return true
}

// setEnd moves the reservation's end (a preemption's grace end).
func (r *request) setEnd(end time.Time) { r.mu.Lock(); defer r.mu.Unlock(); r.end = end }

// answer is the socket's answer to one request line: "should_checkpoint"
// gives "yes" or "no SECONDS" (until CKPT_CHECKPOINT_AT; "no inf" when
// none is planned), "time_left" the seconds until CKPT_END_TIME.
func (r *request) answer(q string) string {
	now := r.clock.Now()
	r.mu.Lock()
	done, end := r.done, r.end
	r.mu.Unlock()
	switch strings.TrimSpace(q) {
	case "should_checkpoint":
		if done || !r.at.IsZero() && !now.Before(r.at) {
			return "yes"
		}
		if r.at.IsZero() {
			return "no inf"
		}
		return "no " + secs(r.at.Sub(now))
	case "time_left":
		return secs(max(end.Sub(now), 0))
	}
	return fmt.Sprintf("error %.40q: want should_checkpoint or time_left", q)
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// serve answers r's questions on a Unix socket at path until the
// returned stop is called (which removes the socket); it returns the path
// served. A socket that cannot be made is reported and skipped (""): the
// file and the variables still answer.
func (r *request) serve(path string) (string, func()) {
	if path == "" {
		return "", func() {}
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintf(r.stderr, "ckpt run: warning: no socket: %v\n", err)
		return "", func() {}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.converse(c)
		}
	}()
	return path, func() { ln.Close(); os.Remove(path) }
}

// converse answers one connection, line by line (at most 256 bytes a
// line, a minute idle).
func (r *request) converse(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 256), 256)
	for {
		c.SetDeadline(time.Now().Add(time.Minute))
		if !sc.Scan() {
			return
		}
		if _, err := io.WriteString(c, r.answer(sc.Text())+"\n"); err != nil {
			return
		}
	}
}

// protocolEnv is the part of the app's environment that lets it ask
// without a server (docs/slurm.md, "The app protocol"): the reservation's
// end and checkpoint time, the app's checkpoint signal, the costs, the
// files and the socket, and
// their SCR equivalents.
func protocolEnv(st *State, k int, step Step, r *request, l lead, sig syscall.Signal, margin time.Duration, scale float64, sock string) []string {
	end := float64(r.end.UnixNano()) / 1e9
	env := []string{
		"CKPT_APP_SIGNAL=" + appSignalName(sig),
		"CKPT_END_TIME=" + strconv.FormatFloat(end, 'f', 3, 64),
		"CKPT_CHECKPOINT_COST=" + strconv.FormatFloat(l.Cost, 'f', -1, 64),
		"CKPT_STEP_TIME=" + strconv.FormatFloat(l.Step, 'f', -1, 64),
		"CKPT_CHECKPOINT_NOW=" + r.path,
		"CKPT_REPORT_FILE=" + st.ReportFile(k),
		"SCR_END_TIME=" + strconv.FormatInt(int64(math.Floor(end)), 10),
		"SCR_HALT_SECONDS=" + strconv.FormatFloat(math.Ceil(l.Cost+l.Step+margin.Seconds()), 'f', -1, 64),
		"SCR_CHECKPOINT_SECONDS=" + strconv.FormatFloat(math.Ceil(step.Time/scale), 'f', -1, 64),
	}
	if !r.at.IsZero() {
		env = append(env, "CKPT_CHECKPOINT_AT="+strconv.FormatFloat(float64(r.at.UnixNano())/1e9, 'f', 3, 64))
	}
	if sock != "" {
		env = append(env, "CKPT_SOCKET="+sock)
	}
	return env
}
