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
from .coord import CoordError, Coordinator
from .runtime import (
    StepTimer,
    ask,
    checkpoint_in,
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
