#!/usr/bin/env python3
"""A small deterministic PyTorch training job that checkpoints when ckpt
says so and resumes bit for bit (CPU, synthetic data, one thread).

    ckpt run --app-signal TERM -- python3 examples/train.py --steps 3000 --dir ckpts --out final.bin

Each step trains a two-layer MLP with dropout on a batch drawn with Python's
random module from a fixed synthetic data set, with Adam. Before each step
it asks ckpt.should_checkpoint() (the runner's signal, its
CKPT_CHECKPOINT_NOW file, or CKPT_CHECKPOINT_AT passed); when true it saves
the model, the optimizer, the step and both random states (torch's and
Python's) to DIR/state.pt (a temporary file, fsync, rename), reports the
save's duration (ckpt.report_checkpoint), writes its progress (steps times
--work-per-step seconds; by default the work done: the measured step
times summed over every run, kept in the checkpoint, so that the progress
never goes backwards when a later run is faster or saves at once) and exits
1 (or trains on with CKPT_AFTER_CHECKPOINT=continue). With CKPT_RESTART=1
(or --resume) it resumes from DIR/state.pt. When all steps are done it
writes the final weights (every tensor's bytes, in key order) to --out,
prints their sha256 and exits 0. --log appends one line per trained step
("step N reservation R"), to count steps trained twice. --pad-mb adds that
many MB to every checkpoint, to vary its cost.

Outside ckpt it runs to the end (or saves on SIGUSR1/SIGTERM and exits 1);
under ckpt it saves on the signal ckpt run --app-signal sends
(CKPT_APP_SIGNAL) and on SIGTERM.
"""
import argparse
import hashlib
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import ckpt  # noqa: E402  (the repository's copy unless installed)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2000, help="steps in all")
    p.add_argument("--dir", required=True, help="checkpoint folder (DIR/state.pt)")
    p.add_argument("--out", required=True, help="final weights (raw tensor bytes)")
    p.add_argument("--width", type=int, default=256, help="hidden units (the step's cost)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--pad-mb", type=float, default=0, help="MB added to each checkpoint")
    p.add_argument("--work-per-step", type=float, default=0, help="seconds of work per step in the progress file (default: measured median)")
    p.add_argument("--signals", default="", help="signals that ask for a checkpoint, e.g. USR1,TERM (default: CKPT_APP_SIGNAL, USR1 when unset, and TERM)")
    p.add_argument("--log", default="", help="append one line per trained step")
    p.add_argument("--resume", action="store_true", help="resume from DIR/state.pt (as CKPT_RESTART=1)")
    p.add_argument("--step-sleep", type=float, default=0, help="seconds each step also sleeps: a larger model's step time without the CPU")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for name in ("steps", "width", "batch"):
        if getattr(a, name) <= 0:
            p.error(f"--{name} {getattr(a, name)}: want a positive number")
    if a.batch > DATA:
        p.error(f"--batch {a.batch}: want at most {DATA} (the data set's size)")
    a.signal_list = tuple(s.strip() for s in a.signals.split(",") if s.strip()) or None
    for s in a.signal_list or ():
        try:
            ckpt.runtime._signal_named(s)
        except ValueError as e:
            p.error(f"--signals {a.signals}: {e}")
    for name in ("pad_mb", "work_per_step", "step_sleep"):
        v = getattr(a, name)
        if not 0 <= v < 1e9:  # NaN and inf fail too
            p.error(f"--{name.replace('_', '-')} {v}: want a non-negative number")
    return a


DATA = 4096  # examples in the synthetic data set


def build(a, torch):
    g = torch.Generator().manual_seed(a.seed + 1)
    x = torch.randn(DATA, 32, generator=g)
    y = torch.sin(x @ torch.randn(32, 1, generator=g))
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    model = torch.nn.Sequential(torch.nn.Linear(32, a.width), torch.nn.ReLU(), torch.nn.Dropout(0.1), torch.nn.Linear(a.width, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    return x, y, model, opt


def save(a, torch, model, opt, step, work, pad):
    path = os.path.join(a.dir, "state.pt")
    tmp = f"{path}.tmp.{os.getpid()}"
    state = {"step": step, "work": work, "model": model.state_dict(), "optim": opt.state_dict(),
             "torch_rng": torch.get_rng_state(), "py_rng": random.getstate(), "pad": pad}
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(a.dir, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load(a, torch, model, opt):
    state = torch.load(os.path.join(a.dir, "state.pt"))
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optim"])
    torch.set_rng_state(state["torch_rng"])
    random.setstate(state["py_rng"])
    return state["step"], state.get("work", 0.0)


def weights(model):
    """Every tensor's bytes, in key order: equal bytes, equal weights."""
    sd = model.state_dict()
    return b"".join(k.encode() + b"\0" + sd[k].contiguous().numpy().tobytes() for k in sorted(sd))


def _why():
    """Why the checkpoint: the runner's CKPT_CHECKPOINT_NOW first word
    (e.g. preempted), else the signals caught, else the clock."""
    path = os.environ.get("CKPT_CHECKPOINT_NOW", "")
    try:
        with open(path) as f:
            word = f.read().split()
        if word:
            return word[0]
    except OSError:
        pass
    return ",".join(ckpt.signalled()) or "deadline"


def main(argv=None):
    a = parse(argv)
    try:
        ckpt.install_signal_handlers(a.signal_list)  # None: CKPT_APP_SIGNAL and TERM
        res = ckpt.reservation() or 0
    except ValueError as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    import torch  # after the handlers: importing torch takes a few seconds

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(a.dir, exist_ok=True)
    x, y, model, opt = build(a, torch)
    pad = torch.zeros(int(a.pad_mb * 1e6), dtype=torch.uint8)
    step, work0 = 0, 0.0
    if (ckpt.restart() or a.resume) and os.path.exists(os.path.join(a.dir, "state.pt")):
        step, work0 = load(a, torch, model, opt)
    print(f"train.py: reservation {res} resumes at step {step} of {a.steps}", flush=True)
    log = open(a.log, "a", buffering=1) if a.log else None
    timer = ckpt.StepTimer(every=50)
    cont = os.environ.get("CKPT_AFTER_CHECKPOINT", "exit") == "continue"
    saved = False  # one checkpoint per run: one event, one save
    loss = None
    model.train()

    def work():
        """Seconds of work in the state: monotone across runs (the resumed
        value plus this run's measured steps), or steps × --work-per-step."""
        return step * a.work_per_step if a.work_per_step else work0 + timer.total

    while step < a.steps:
        if not saved and ckpt.should_checkpoint():
            t0 = time.perf_counter()
            done = work()
            save(a, torch, model, opt, step, done, pad)
            cost = time.perf_counter() - t0
            ckpt.report_checkpoint(cost)
            timer.report()
            ckpt.save_progress(done)
            why = _why()
            print(f"train.py: checkpoint at step {step} in {cost:.3f} s ({why})", flush=True)
            if log:
                log.write(f"checkpoint {step} reservation {res} why {why} cost {cost:.4f}\n")
            saved = True
            if not cont:
                # The state is durable: exit now, without Python's teardown
                # of torch (a second and more on a loaded machine).
                sys.stdout.flush()
                if log:
                    log.close()
                os._exit(1)
        with timer:
            idx = torch.tensor(random.sample(range(x.shape[0]), a.batch))
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            if a.step_sleep:
                time.sleep(a.step_sleep)
        step += 1
        if log:
            log.write(f"step {step} reservation {res}\n")
    timer.report()
    blob = weights(model)
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, a.out)
    ckpt.save_progress(work())
    print(f"train.py: done at step {step}, loss {loss.item() if loss is not None else float('nan'):.6f}, weights sha256 {hashlib.sha256(blob).hexdigest()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
