"""A PyTorch Lightning callback that saves when ckpt says so, then stops.

    from ckpt.lightning import CkptLightningCallback
    from lightning.pytorch.plugins.environments import SLURMEnvironment
    cb = CkptLightningCallback("ckpts/last.ckpt")
    trainer = Trainer(callbacks=[cb], plugins=[SLURMEnvironment(auto_requeue=False)])
    trainer.fit(model, ckpt_path=cb.resume_path())
    sys.exit(1 if cb.stopped else 0)

Written against the documented Callback API (lightning >= 2.0, and
pytorch_lightning 1.x): on_train_batch_start(trainer, pl_module, batch,
batch_idx) and on_train_batch_end(trainer, pl_module, outputs, batch,
batch_idx) frame each training batch; trainer.save_checkpoint(path) writes
a full checkpoint (model, optimizers, loop state) that trainer.fit(...,
ckpt_path=path) resumes; setting trainer.should_stop = True ends fit after
the current batch. At the first batch end where ckpt.should_checkpoint()
is true this callback saves to path + ".tmp", renames it over path (rank
0), reports the save's duration and the median batch time to the runner,
writes the progress (trainer.global_step times seconds_per_step, default
the measured median) and stops the trainer.

SLURMEnvironment(auto_requeue=False) matters: Lightning's own SIGUSR1
handler runs "scontrol requeue", which fights the chain ckpt submitted.

lightning is not installed where ckpt is tested: the tests drive this
callback through a stand-in Trainer that follows the documented call
order; without lightning the class derives from object.
"""
import os
import time

from . import runtime

try:  # the documented base class, whichever package is installed
    from lightning.pytorch import Callback as _Base
except ImportError:  # pragma: no cover - depends on the machine
    try:
        from pytorch_lightning import Callback as _Base
    except ImportError:
        _Base = object


class CkptLightningCallback(_Base):
    """Save when ckpt says so, stop after the save, report the costs."""

    def __init__(self, path, seconds_per_step=None, install_signals="default", report_every=100):
        self.path = path
        self.seconds_per_step = seconds_per_step
        self.timer = runtime.StepTimer(every=report_every)
        self.stopped = False
        self._batch0 = None
        if install_signals:
            runtime.install_signal_handlers(install_signals)

    def resume_path(self):
        """The checkpoint to resume from when ckpt says restart, else None."""
        return self.path if runtime.restart() and os.path.exists(self.path) else None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx, *args):
        self._batch0 = time.perf_counter()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, *args):
        if self._batch0 is not None:
            self.timer.add(time.perf_counter() - self._batch0)
            self._batch0 = None
        if self.stopped or not runtime.should_checkpoint():
            return
        t0 = time.perf_counter()
        tmp = self.path + ".tmp"
        trainer.save_checkpoint(tmp)  # collective: every rank calls it
        if getattr(trainer, "is_global_zero", True):
            os.replace(tmp, self.path)
            runtime.report_checkpoint(time.perf_counter() - t0)
            self.timer.report()
            per_step = self.seconds_per_step or self.timer.median() or 0.0
            runtime.save_progress(trainer.global_step * per_step)
        self.stopped = True
        trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        self.timer.report()
