#!/usr/bin/env python3
"""Work lost per reservation end and per preemption: ckpt's lead against a
fixed --signal=TERM@300 and Lightning's defaults, measured with the real
training loop (examples/train.py) and real signals, over checkpoint sizes.

    python3 examples/lossbench.py --sizes 0,200,1000 --repeats 3

For each checkpoint size (train.py --pad-mb) it measures, with real signals
to a real run:
  response  the time from the signal to the app's exit after its save (the
            step in progress, the save with fsync and rename, the exit);
  C, step   what the app reported (CKPT_REPORT_FILE), the median of runs;
  ckpt end  a run ended as ckpt run ends it: the reservation's end is E (30 s
            after the first step), the signal comes at E - (C + step +
            margin) with C and step measured by the previous runs; the
            work lost is the reserved time left unused, E - exit, or, if
            the app was still saving at E (killed), everything since the run
            began.
A fixed lead L loses L - response per end when the save fits (the app exits
that early, its reservation's tail is paid and unused), and everything
since the last save when it does not. Preemption: Slurm's GraceTime G
(45 s in scripts/slurm-localhost.sh --preempt) bounds the save; ckpt's
runner sees the preemption within its poll (5 s) and asks at once.

Prints a Markdown table (and --json the numbers).
"""
import argparse
import atexit
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

_live = []  # the runs started: killed if the bench stops early


def _kill_live():
    for p in _live:
        if p.poll() is None:
            p.kill()


HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "train.py")


def start(py, d, pad, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CKPT_")}
    env.update(env_extra)
    args = [py, TRAIN, "--steps", "1000000", "--width", "256", "--step-sleep", "0.02", "--pad-mb", str(pad),
            "--dir", d, "--out", os.path.join(d, "final.bin")]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
    _live.append(p)
    p.stdout.readline()  # the handlers are in, torch is imported: the first step comes
    return p, time.time()


def respond(py, pad, settle):
    """One run signalled `settle` s after its first step: (response s, C, step)."""
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.jsonl")
        p, t0 = start(py, d, pad, {"CKPT_REPORT_FILE": report})
        time.sleep(settle)
        sent = time.time()
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=600)
        resp = time.time() - sent
        c, steps = None, []
        with open(report) as f:
            for line in f:
                m = json.loads(line)
                c = m.get("checkpoint_s", c)
                if "step_s" in m:
                    steps.append(m["step_s"])
        return resp, c, (steps[-1] if steps else 0.02)


def ckpt_end(py, pad, c, step, margin, run_for):
    """A reservation ended as ckpt run ends it; returns the work lost (s)
    and whether the save fitted."""
    with tempfile.TemporaryDirectory() as d:
        p, t0 = start(py, d, pad, {})
        end = t0 + run_for
        lead = c + step + margin
        time.sleep(max(0.0, end - lead - time.time()))
        p.send_signal(signal.SIGTERM)
        try:
            p.communicate(timeout=max(0.01, end - time.time()))
            return max(0.0, end - time.time()), True
        except subprocess.TimeoutExpired:
            p.kill()  # the reservation's end: Slurm's SIGKILL
            p.communicate()
            return run_for, False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--sizes", default="0,200,1000", help="checkpoint padding, MB, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--margin", type=float, default=15.0, help="ckpt run --margin (its default 15 s)")
    ap.add_argument("--tight-margin", type=float, default=2.0, help="a second ckpt run, with this --margin (0: none)")
    ap.add_argument("--grace", type=float, default=45.0, help="Slurm GraceTime of the preemptable QOS")
    ap.add_argument("--poll", type=float, default=5.0, help="the runner's preemption poll (slurm.PreemptPoll)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    atexit.register(_kill_live)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rows = []
    for size in [float(s) for s in a.sizes.split(",")]:
        meas = [respond(a.python, size, 3.0) for _ in range(a.repeats)]
        resp = statistics.median(m[0] for m in meas)
        c = statistics.median(m[1] for m in meas)
        step = statistics.median(m[2] for m in meas)
        lost, fit = ckpt_end(a.python, size, c, step, a.margin, 30.0 + c)
        tight = ckpt_end(a.python, size, c, step, a.tight_margin, 30.0 + c) if a.tight_margin > 0 else (None, True)
        rows.append({"pad_mb": size, "checkpoint_s": c, "step_s": step, "response_s": resp,
                     "ckpt_lead_s": c + step + a.margin, "ckpt_lost_s": lost, "ckpt_saved": fit,
                     "ckpt_tight_lost_s": tight[0], "ckpt_tight_saved": tight[1],
                     "term300_lost_s": 300 - resp if resp < 300 else None,
                     "lightning90_lost_s": 90 - resp if resp < 90 else None,
                     "preempt_ckpt_saved": a.poll + resp < a.grace, "preempt_term_saved": resp < a.grace})
        print(f"lossbench: {size:g} MB: C {c:.2f} s, step {step * 1000:.0f} ms, response {resp:.2f} s, ckpt end lost {lost:.1f} s, with --margin {a.tight_margin:g}s {tight[0]}", file=sys.stderr, flush=True)
    if a.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    print(f"| checkpoint | C (measured) | signal → exit | ckpt lead | lost per end: ckpt --margin {a.margin:g}s (run) | ckpt --margin {a.tight_margin:g}s (run) | TERM@300 | Lightning USR1@90 | preemption, grace %gs: ckpt | TERM app | Lightning default |" % a.grace)
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def tightcell(r):
            if r["ckpt_tight_lost_s"] is None:
                return "-"
            return f"{r['ckpt_tight_lost_s']:.1f} s" + ("" if r["ckpt_tight_saved"] else " (killed)")

        def fixed(v):
            return "all since last save" if v is None else f"{v:.0f} s"
        print(f"| {r['pad_mb']:g} MB | {r['checkpoint_s']:.2f} s | {r['response_s']:.2f} s | {r['ckpt_lead_s']:.1f} s | "
              f"{r['ckpt_lost_s']:.1f} s{'' if r['ckpt_saved'] else ' (killed)'} | {tightcell(r)} | {fixed(r['term300_lost_s'])} | {fixed(r['lightning90_lost_s'])} | "
              f"{'0 (saved)' if r['preempt_ckpt_saved'] else 'all since last save'} | {'0 (saved)' if r['preempt_term_saved'] else 'all since last save'} | all since last save |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
