"""A Hugging Face Trainer callback that saves when ckpt says so, then stops.

    from ckpt.hf import CkptTrainerCallback
    cb = CkptTrainerCallback()
    trainer = Trainer(..., callbacks=[cb])
    trainer.train(resume_from_checkpoint=ckpt.restart() or None)
    sys.exit(1 if cb.stopped else 0)       # exit 1: checkpointed, not done

Written against the documented TrainerCallback API (transformers >= 4.x):
on_step_end(args, state, control) is called after each optimizer step; a
callback that sets control.should_save makes the Trainer write a checkpoint
(output_dir/checkpoint-<global_step>) right after, then call on_save;
control.should_training_stop ends the loop after that. This callback sets
should_save at the first step end where ckpt.should_checkpoint() is true,
and should_training_stop in the on_save that follows, so the loop stops
only after the save. It times the steps (on_step_begin to on_step_end) and
the save (on_step_end to on_save) and reports both to the runner
(report_step, report_checkpoint), then writes the progress: global_step
times seconds_per_step (default: the measured median step time).

transformers is not installed where ckpt is tested: the tests drive this
callback through a stand-in Trainer that follows the documented call
order. Without transformers the class derives from object (duck typing
suffices for the Trainer's CallbackHandler, which calls the methods by
name).
"""
import time

from . import runtime

try:  # the documented base class when transformers is installed
    from transformers import TrainerCallback as _Base
except ImportError:  # pragma: no cover - depends on the machine
    _Base = object


class CkptTrainerCallback(_Base):
    """Save when ckpt says so, stop after the save, report the costs."""

    def __init__(self, seconds_per_step=None, install_signals="default", report_every=100):
        self.seconds_per_step = seconds_per_step
        self.timer = runtime.StepTimer(every=report_every)
        self.requested = None  # time.perf_counter() when the save was requested
        self.stopped = False  # True once the loop stopped for a ckpt checkpoint
        self._step0 = None
        if install_signals:
            runtime.install_signal_handlers(install_signals)

    def on_step_begin(self, args, state, control, **kwargs):
        self._step0 = time.perf_counter()
        return control

    def on_step_end(self, args, state, control, **kwargs):
        if self._step0 is not None:
            self.timer.add(time.perf_counter() - self._step0)
            self._step0 = None
        if self.requested is None and runtime.should_checkpoint():
            self.requested = time.perf_counter()
            control.should_save = True
        return control

    def on_save(self, args, state, control, **kwargs):
        if self.requested is None:
            return control  # a save of the user's own schedule
        runtime.report_checkpoint(time.perf_counter() - self.requested)
        self.timer.report()
        per_step = self.seconds_per_step or self.timer.median() or 0.0
        runtime.save_progress(state.global_step * per_step)
        self.stopped = True
        control.should_training_stop = True
        return control

    def on_train_end(self, args, state, control, **kwargs):
        self.timer.report()
        return control
