"""The Hugging Face and Lightning callbacks, driven by small stand-ins of the
frameworks (neither is installable here). Each stand-in follows the call
order its framework documents:

Hugging Face transformers (Trainer._inner_training_loop, TrainerCallback):
on_train_begin; per optimizer step: on_step_begin (the CallbackHandler
first resets control.should_save), the step, on_step_end; then, if
control.should_save, the checkpoint (output_dir/checkpoint-<global_step>)
and on_save; then the loop ends if control.should_training_stop;
on_train_end.

PyTorch Lightning (Callback hooks of the fit loop): on_train_start; per
batch: on_train_batch_start, the step (global_step + 1),
on_train_batch_end; the loop ends after the batch once
trainer.should_stop is set; on_train_end. trainer.save_checkpoint(path)
writes a checkpoint there.
"""
import json
import os
import signal
import sys
import tempfile
import unittest
from types import SimpleNamespace
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ckpt import runtime  # noqa: E402
from ckpt.hf import CkptTrainerCallback  # noqa: E402
from ckpt.lightning import CkptLightningCallback  # noqa: E402


class StandInHFTrainer:
    def __init__(self, callback, steps, output_dir, on_step=None):
        self.cb, self.steps, self.output_dir, self.on_step = callback, steps, output_dir, on_step
        self.state = SimpleNamespace(global_step=0)
        self.control = SimpleNamespace(should_save=False, should_training_stop=False, should_log=False, should_evaluate=False)
        self.saved, self.trained = [], []

    def train(self):
        args = SimpleNamespace(output_dir=self.output_dir)
        for hook in ("on_train_begin",):
            getattr(self.cb, hook, lambda *a, **k: None)(args, self.state, self.control)
        while self.state.global_step < self.steps:
            self.control.should_save = self.control.should_log = self.control.should_evaluate = False
            self.control = self.cb.on_step_begin(args, self.state, self.control) or self.control
            self.state.global_step += 1
            self.trained.append(self.state.global_step)
            if self.on_step:
                self.on_step(self.state.global_step)
            self.control = self.cb.on_step_end(args, self.state, self.control) or self.control
            if self.control.should_save:
                path = os.path.join(self.output_dir, f"checkpoint-{self.state.global_step}")
                os.makedirs(path)
                self.saved.append(self.state.global_step)
                self.control = self.cb.on_save(args, self.state, self.control) or self.control
            if self.control.should_training_stop:
                break
        self.cb.on_train_end(args, self.state, self.control)


class StandInLightningTrainer:
    def __init__(self, callback, steps, on_step=None):
        self.cb, self.steps, self.on_step = callback, steps, on_step
        self.global_step, self.should_stop, self.is_global_zero = 0, False, True
        self.saved, self.trained = [], []

    def save_checkpoint(self, path):
        with open(path, "w") as f:
            f.write(f"step {self.global_step}\n")
        self.saved.append((self.global_step, path))

    def fit(self):
        for batch_idx in range(self.steps):
            self.cb.on_train_batch_start(self, None, None, batch_idx)
            self.global_step += 1
            self.trained.append(self.global_step)
            if self.on_step:
                self.on_step(self.global_step)
            self.cb.on_train_batch_end(self, None, {"loss": 0.0}, None, batch_idx)
            if self.should_stop:
                break
        self.cb.on_train_end(self, None)


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.now = os.path.join(self.dir, "checkpoint-now")
        self.report = os.path.join(self.dir, "report.jsonl")
        self.progress = os.path.join(self.dir, "progress.r1")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CKPT_")}
        env.update(CKPT_CHECKPOINT_NOW=self.now, CKPT_REPORT_FILE=self.report, CKPT_PROGRESS_FILE=self.progress)
        p = mock.patch.dict(os.environ, env, clear=True)
        p.start()
        self.addCleanup(p.stop)
        runtime._reset_for_tests()
        self.addCleanup(runtime._reset_for_tests)
        prev = {s: signal.getsignal(s) for s in (signal.SIGUSR1, signal.SIGTERM)}
        self.addCleanup(lambda: [signal.signal(s, h) for s, h in prev.items()])

    def due_at(self, k):
        def hook(step):
            if step == k:
                open(self.now, "w").close()  # the runner's deadline passes during step k
        return hook

    def reports(self):
        with open(self.report) as f:
            return [json.loads(x) for x in f]


class HF(Base):
    def test_saves_at_the_step_end_then_stops(self):
        cb = CkptTrainerCallback(seconds_per_step=2.0)
        t = StandInHFTrainer(cb, 50, self.dir, on_step=self.due_at(7))
        t.train()
        self.assertEqual(t.saved, [7])
        self.assertEqual(t.trained, list(range(1, 8)))  # no step after the save
        self.assertTrue(cb.stopped)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "checkpoint-7")))
        r = self.reports()
        self.assertEqual(sum("checkpoint_s" in x for x in r), 1)
        self.assertTrue(any("step_s" in x for x in r))
        with open(self.progress) as f:
            self.assertEqual(float(f.read()), 14.0)

    def test_signal_then_save(self):
        cb = CkptTrainerCallback()
        t = StandInHFTrainer(cb, 50, self.dir, on_step=lambda s: s == 3 and os.kill(os.getpid(), signal.SIGTERM))
        t.train()
        self.assertEqual(t.saved, [3])
        self.assertTrue(cb.stopped)

    def test_no_checkpoint_runs_to_the_end(self):
        cb = CkptTrainerCallback()
        t = StandInHFTrainer(cb, 20, self.dir)
        t.train()
        self.assertEqual((t.saved, len(t.trained), cb.stopped), ([], 20, False))
        self.assertFalse(os.path.exists(self.progress))


class Lightning(Base):
    def test_saves_at_the_batch_end_then_stops(self):
        path = os.path.join(self.dir, "last.ckpt")
        cb = CkptLightningCallback(path, seconds_per_step=0.5)
        t = StandInLightningTrainer(cb, 50, on_step=self.due_at(11))
        t.fit()
        self.assertEqual(t.saved, [(11, path + ".tmp")])
        self.assertEqual(t.trained, list(range(1, 12)))
        with open(path) as f:
            self.assertEqual(f.read(), "step 11\n")  # renamed into place
        self.assertFalse(os.path.exists(path + ".tmp"))
        self.assertTrue(cb.stopped)
        self.assertEqual(sum("checkpoint_s" in x for x in self.reports()), 1)
        with open(self.progress) as f:
            self.assertEqual(float(f.read()), 5.5)

    def test_resume_path(self):
        path = os.path.join(self.dir, "last.ckpt")
        cb = CkptLightningCallback(path, install_signals=())
        self.assertIsNone(cb.resume_path())
        open(path, "w").close()
        self.assertIsNone(cb.resume_path())  # not a restart
        os.environ["CKPT_RESTART"] = "1"
        self.assertEqual(cb.resume_path(), path)

    def test_signal_then_save(self):
        cb = CkptLightningCallback(os.path.join(self.dir, "last.ckpt"))
        t = StandInLightningTrainer(cb, 50, on_step=lambda s: s == 4 and os.kill(os.getpid(), signal.SIGUSR1))
        t.fit()
        self.assertEqual([s for s, _ in t.saved], [4])


if __name__ == "__main__":
    unittest.main()
