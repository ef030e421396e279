"""ckpt: ask the ckpt runner when to checkpoint, from inside the job.

    import ckpt
    ckpt.install_signal_handlers()          # first: the runner may signal early
    for step in range(start, steps):
        if ckpt.should_checkpoint():
            t0 = time.time(); save(); ckpt.report_checkpoint(time.time() - t0)
            ckpt.save_progress(work_done); sys.exit(1)
        train_step()

Outside ckpt run everything answers "unlimited time, never checkpoint".
Standard library only. ckpt.coord is the checkpoint coordinator's client;
ckpt.hf and ckpt.lightning hold callbacks for Hugging Face Trainer and
PyTorch Lightning (docs/training.md has the recipes).
"""
from .runtime import (
    StepTimer,
    ask,
    checkpoint_in,
    default_signals,
    install_signal_handlers,
    report_checkpoint,
    report_step,
    reservation,
    restart,
    save_progress,
    should_checkpoint,
    signalled,
    time_left,
)

__all__ = [
    "CoordError",
    "Coordinator",
    "StepTimer",
    "ask",
    "checkpoint_in",
    "default_signals",
    "install_signal_handlers",
    "report_checkpoint",
    "report_step",
    "reservation",
    "restart",
    "save_progress",
    "should_checkpoint",
    "signalled",
    "time_left",
]
__version__ = "0.1.0"


def __getattr__(name):
    # The coordinator's client loads on first use: "python3 -m ckpt.coord"
    # then runs a module that the package has not imported yet.
    if name in ("Coordinator", "CoordError"):
        from . import coord

        return getattr(coord, name)
    raise AttributeError(f"module 'ckpt' has no attribute {name!r}")
