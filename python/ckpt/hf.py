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
(report_step, report_checkpoint), then writes the progress. The progress
is the work done, kept in the checkpoint: on_save writes it to
checkpoint-<global_step>/ckpt_work.json (temporary file, fsync, rename)
and on_train_begin reads it back from the checkpoint the Trainer resumed
(the one of state.global_step); it is the resumed value plus this run's
measured step times, or global_step times seconds_per_step, never below
the resumed value.

transformers is not installed where ckpt is tested: the tests drive this
callback through a stand-in Trainer that follows the documented call
order. Without transformers the class derives from object (duck typing
suffices for the Trainer's CallbackHandler, which calls the methods by
name).
"""
import json
import os
import time

from . import runtime

try:  # the documented base class when transformers is installed
    from transformers import TrainerCallback as _Base
except ImportError:  # pragma: no cover - depends on the machine
    _Base = object


WORK_FILE = "ckpt_work.json"  # in checkpoint-<global_step>: the work done (s)


class CkptTrainerCallback(_Base):
    """Save when ckpt says so, stop after the save, report the costs."""

    def __init__(self, seconds_per_step=None, install_signals="default", report_every=100):
        self.seconds_per_step = seconds_per_step
        self.timer = runtime.StepTimer(every=report_every)
        self.requested = None  # time.perf_counter() when the save was requested
        self.stopped = False  # True once the loop stopped for a ckpt checkpoint
        self._step0 = None
        self.work0 = 0.0  # the work done when the resumed checkpoint was saved (s)
        if install_signals:
            runtime.install_signal_handlers(install_signals)

    def work(self, state):
        """The work done so far (seconds): never below the resumed value."""
        if self.seconds_per_step:
            return max(self.work0, state.global_step * self.seconds_per_step)
        return self.work0 + self.timer.total

    def on_train_begin(self, args, state, control, **kwargs):
        # The Trainer restores state (global_step) from the checkpoint it
        # resumes before on_train_begin.
        if state.global_step:
            try:
                with open(os.path.join(args.output_dir, f"checkpoint-{state.global_step}", WORK_FILE)) as f:
                    self.work0 = float(json.load(f)["work"])
            except (OSError, ValueError, KeyError, TypeError):
                self.work0 = 0.0  # a checkpoint of the user's own schedule, or none
        return control

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
        work = self.work(state)
        folder = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
        if os.path.isdir(folder):  # every save keeps the work, the user's own too
            path = os.path.join(folder, WORK_FILE)
            tmp = f"{path}.tmp.{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump({"work": work}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            runtime._fsync_fd(folder, os.O_RDONLY)  # the rename is durable
        if self.requested is None:
            return control  # a save of the user's own schedule
        runtime.report_checkpoint(time.perf_counter() - self.requested)
        self.timer.report()
        runtime.save_progress(work)
        self.stopped = True
        control.should_training_stop = True
        return control

    def on_train_end(self, args, state, control, **kwargs):
        self.timer.report()
        return control
