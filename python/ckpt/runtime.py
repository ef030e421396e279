"""What a job asks ckpt at each step: how long is left, whether to checkpoint
now, and what it measured.

Everything here reads the variables ``ckpt run`` exports (the interface is
in docs/training.md):

    CKPT_END_TIME        Unix time (seconds, decimal) when the reservation ends
    CKPT_CHECKPOINT_AT   Unix time when the app should begin its checkpoint
    CKPT_CHECKPOINT_NOW  a file the runner creates when a checkpoint is due
                         (at CKPT_CHECKPOINT_AT, or at once on a preemption)
    CKPT_REPORT_FILE     JSON lines the app appends its measurements to
    CKPT_SOCKET          a Unix socket answering should_checkpoint / time_left
    CKPT_PROGRESS_FILE, CKPT_RESTART, CKPT_RESERVATION  (the runner's protocol)

Outside ckpt (none of them set) the answers are "unlimited time, never
checkpoint", and reports are dropped: the same script runs on a laptop.
A variable that is set but malformed raises ValueError naming it.

Cost: every call is O(1): one environment lookup, at most one stat(2) and
one write(2); should_checkpoint() is cheap enough to call at every step.
"""
import collections
import json
import math
import os
import signal
import socket
import time

_fired = []  # the names of the signals caught by the handler, in order


def _env_time(name):
    """The variable as a finite float, None when unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        v = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: not a number of seconds") from None
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name}={raw!r}: want a finite, non-negative number of seconds")
    return v


def time_left(now=None):
    """Seconds until the reservation ends (CKPT_END_TIME), never below 0;
    math.inf outside ckpt."""
    end = _env_time("CKPT_END_TIME")
    if end is None:
        return math.inf
    return max(0.0, end - (time.time() if now is None else now))


def checkpoint_in(now=None):
    """Seconds until the runner wants the checkpoint to begin
    (CKPT_CHECKPOINT_AT), 0 once it is due; math.inf when no checkpoint is
    planned or outside ckpt."""
    if should_checkpoint(now):
        return 0.0
    at = _env_time("CKPT_CHECKPOINT_AT")
    return math.inf if at is None else max(0.0, at - (time.time() if now is None else now))


def should_checkpoint(now=None):
    """True when the app should save now: a signal handler installed by
    install_signal_handlers fired, the runner created CKPT_CHECKPOINT_NOW
    (its deadline came, or a preemption / Slurm's SIGTERM arrived), or the
    clock passed CKPT_CHECKPOINT_AT. False outside ckpt."""
    if _fired:
        return True
    path = os.environ.get("CKPT_CHECKPOINT_NOW", "")
    if path and os.path.exists(path):
        return True
    at = _env_time("CKPT_CHECKPOINT_AT")
    return at is not None and (time.time() if now is None else now) >= at


def signalled():
    """The names of the signals the installed handler caught (empty: none)."""
    return list(_fired)


def _on_signal(signum, frame):
    _fired.append(signal.Signals(signum).name)


def default_signals():
    """The signals install_signal_handlers() catches by default: the one
    ckpt run --app-signal sends (CKPT_APP_SIGNAL; USR1 outside ckpt or when
    unset) and SIGTERM."""
    raw = os.environ.get("CKPT_APP_SIGNAL") or "USR1"
    try:
        app = _signal_named(raw)
    except ValueError as e:
        raise ValueError(f"CKPT_APP_SIGNAL={raw!r}: {e}") from None
    return tuple(dict.fromkeys((app.name, "SIGTERM")))


def install_signal_handlers(signals=None):
    """Catch the checkpoint signal(s): after one arrives, should_checkpoint()
    is True. By default (None or "default") the signal ckpt run
    --app-signal sends, read from CKPT_APP_SIGNAL, and SIGTERM; SIGTERM is also Slurm's preemption and time-limit signal, so catching it
    lets a step in progress finish and the save happen before the grace
    ends. Call it first thing, from the main thread: the runner may signal
    early. Returns the previous handlers, by signal name."""
    if signals is None or signals == "default":
        signals = default_signals()
    previous = {}
    for s in signals:
        sig = s if isinstance(s, signal.Signals) else _signal_named(s)
        previous[sig.name] = signal.signal(sig, _on_signal)
    return previous


def _signal_named(name):
    n = str(name).upper()
    if not n.startswith("SIG"):
        n = "SIG" + n
    if n not in ("SIGTERM", "SIGUSR1", "SIGUSR2", "SIGINT"):
        raise ValueError(f"signal {name!r}: want TERM, USR1, USR2 or INT")
    return signal.Signals[n]


def _reset_for_tests():
    del _fired[:]


def _append_report(key, seconds):
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f"{key}={seconds!r}: want a number of seconds")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{key}={seconds!r}: want a finite, non-negative number of seconds")
    path = os.environ.get("CKPT_REPORT_FILE", "")
    if not path:
        return False
    line = (json.dumps({key: float(seconds)}) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write of one line: appends from several processes do not interleave
    finally:
        os.close(fd)
    return True


def report_checkpoint(cost):
    """Tell the runner a checkpoint took cost seconds: appends
    {"checkpoint_s": cost} to CKPT_REPORT_FILE. The runner keeps it for the
    next reservations' lead. Returns False (and writes nothing) outside ckpt."""
    return _append_report("checkpoint_s", cost)


def report_step(seconds):
    """Tell the runner a training step takes this long (report a median
    every few hundred steps, not every step): appends {"step_s": seconds}.
    Frameworks save only at step boundaries, so the runner adds it to the
    lead. Returns False outside ckpt."""
    return _append_report("step_s", seconds)


def restart():
    """True when this run must resume from its last checkpoint (CKPT_RESTART=1)."""
    return os.environ.get("CKPT_RESTART", "") == "1"


def reservation():
    """This reservation's index, 1-based (CKPT_RESERVATION); None outside ckpt."""
    raw = os.environ.get("CKPT_RESERVATION", "").strip()
    if not raw:
        return None
    try:
        v = int(raw)
    except ValueError:
        raise ValueError(f"CKPT_RESERVATION={raw!r}: not a reservation index") from None
    if v < 1:
        raise ValueError(f"CKPT_RESERVATION={raw!r}: want a reservation index >= 1")
    return v


def save_progress(seconds):
    """Write the work done (seconds, the plan's unit) to CKPT_PROGRESS_FILE,
    atomically (a temporary file renamed over it), after the checkpoint
    itself is safely written. Returns False outside ckpt."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"progress={seconds!r}: want a finite, non-negative number of seconds")
    path = os.environ.get("CKPT_PROGRESS_FILE", "")
    if not path:
        return False
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{float(seconds):.6g}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return True


def fsync_path(path):
    """fsync a file, or a folder and everything in it (a sharded
    checkpoint), so that a rename of it is durable."""
    if os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            for name in files:
                fsync_path(os.path.join(root, name))
            _fsync_fd(root, os.O_RDONLY)
        return
    _fsync_fd(path, os.O_RDONLY)


def _fsync_fd(path, flags):
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def ask(request, timeout=1.0):
    """One request to the runner's socket (CKPT_SOCKET): "should_checkpoint"
    answers "yes" or "no <seconds>", "time_left" answers "<seconds>". None
    outside ckpt or when the runner exported no socket."""
    path = os.environ.get("CKPT_SOCKET", "")
    if not path:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(request.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(256)
            if not chunk:
                break
            buf += chunk
    return buf.decode().strip()


class StepTimer:
    """Times training steps and reports their median every `every` steps
    (report_step), so that the file stays small. The median is over the
    last `window` steps (memory stays bounded); `total` is the sum of every
    step's seconds since the timer was made (the work this run did).

        timer = ckpt.StepTimer()
        for batch in data:
            with timer:
                train_step(batch)
    """

    def __init__(self, every=100, window=1000):
        for name, v in (("every", every), ("window", window)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"StepTimer {name}={v!r}: want a positive whole number of steps")
        self.every, self.times, self._t0 = every, collections.deque(maxlen=window), None
        self.count, self.total = 0, 0.0

    def __enter__(self):
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.add(time.perf_counter() - self._t0)
        return False

    def add(self, seconds):
        self.times.append(seconds)
        self.count += 1
        self.total += seconds
        if self.count % self.every == 0:
            self.report()

    def median(self):
        """The median step time, None before the first step."""
        if not self.times:
            return None
        s = sorted(self.times)
        n = len(s)
        return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

    def report(self):
        m = self.median()
        return m is not None and report_step(m)
