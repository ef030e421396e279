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
is true this callback saves to path + ".tmp", fsyncs it and renames it
over path (rank 0; a folder, as sharded strategies write, replaces the
old folder, which is moved to path + ".old" and removed after), reports
the save's duration and the median batch time to the runner, writes the
progress and stops the trainer. The progress is the work done, kept in
the checkpoint through the callback's state_dict / load_state_dict
(Lightning saves and restores it): the resumed value plus this run's
measured batch times, or trainer.global_step times seconds_per_step, never
below the resumed value.

SLURMEnvironment(auto_requeue=False) matters: Lightning's own SIGUSR1
handler runs "scontrol requeue", which fights the chain ckpt submitted.

lightning is not installed where ckpt is tested: the tests drive this
callback through a stand-in Trainer that follows the documented call
order; without lightning the class derives from object.
"""
import os
import shutil
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
        self.work0 = 0.0  # the work done when the resumed checkpoint was saved (s)
        self._work = 0.0  # the work done at the last batch end: what state_dict saves
        self._batch0 = None
        if install_signals:
            runtime.install_signal_handlers(install_signals)

    def resume_path(self):
        """The checkpoint to resume from when ckpt says restart, else None
        (path, or path + ".old" if a save was cut between its two renames)."""
        if not runtime.restart():
            return None
        for p in (self.path, self.path + ".old"):
            if os.path.exists(p):
                return p
        return None

    def work(self, trainer):
        """The work done so far (seconds): never below the resumed value."""
        if self.seconds_per_step:
            return max(self.work0, trainer.global_step * self.seconds_per_step)
        return self.work0 + self.timer.total

    def state_dict(self):
        return {"work": self._work}

    def load_state_dict(self, state):
        self.work0 = float(state.get("work", 0.0))
        self._work = self.work0

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx, *args):
        self._batch0 = time.perf_counter()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, *args):
        if self._batch0 is not None:
            self.timer.add(time.perf_counter() - self._batch0)
            self._batch0 = None
        self._work = self.work(trainer)  # any save (ours or the user's) keeps it
        if self.stopped or not runtime.should_checkpoint():
            return
        t0 = time.perf_counter()
        tmp = self.path + ".tmp"
        trainer.save_checkpoint(tmp)  # collective: every rank calls it
        if getattr(trainer, "is_global_zero", True):
            _install(tmp, self.path)
            runtime.report_checkpoint(time.perf_counter() - t0)
            self.timer.report()
            runtime.save_progress(self._work)
        self.stopped = True
        trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        self.timer.report()


def _install(tmp, path):
    """Make tmp (a file or a folder) the checkpoint at path, durably: fsync
    it, move an old folder (or a file a folder replaces) aside to
    path + ".old", rename tmp over path, fsync the parent folder, then
    remove the old one."""
    runtime.fsync_path(tmp)
    old = None
    if os.path.lexists(path) and (os.path.isdir(path) or os.path.isdir(tmp)):
        old = path + ".old"
        _remove(old)
        os.rename(path, old)
    os.replace(tmp, path)
    runtime._fsync_fd(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    if old:
        _remove(old)


def _remove(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    elif os.path.lexists(p):
        os.remove(p)
