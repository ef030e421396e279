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
import time
import unittest
from types import SimpleNamespace
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ckpt import runtime  # noqa: E402
from ckpt.hf import CkptTrainerCallback  # noqa: E402
from ckpt.lightning import CkptLightningCallback  # noqa: E402


class StandInHFTrainer:
    def __init__(self, callback, steps, output_dir, on_step=None, resume=False, sleep=0.0):
        self.cb, self.steps, self.output_dir, self.on_step, self.sleep = callback, steps, output_dir, on_step, sleep
        self.state = SimpleNamespace(global_step=0)
        if resume:  # the Trainer restores state from the last checkpoint-N before on_train_begin
            self.state.global_step = max((int(d.split("-")[1]) for d in os.listdir(output_dir) if d.startswith("checkpoint-")), default=0)
        self.control = SimpleNamespace(should_save=False, should_training_stop=False, should_log=False, should_evaluate=False)
        self.saved, self.trained = [], []

    def train(self):
        args = SimpleNamespace(output_dir=self.output_dir)
        for hook in ("on_train_begin",):
            getattr(self.cb, hook, lambda *a, **k: None)(args, self.state, self.control)
        while self.state.global_step < self.steps:
            self.control.should_save = self.control.should_log = self.control.should_evaluate = False
            self.control = self.cb.on_step_begin(args, self.state, self.control) or self.control
            time.sleep(self.sleep)
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
    """save_checkpoint writes the step and the callback's state_dict (as
    Lightning does, under "callbacks"), to a file, or with sharded=True to a
    folder (as sharded strategies do); fit(ckpt_path) restores both."""

    def __init__(self, callback, steps, on_step=None, sharded=False, sleep=0.0):
        self.cb, self.steps, self.on_step, self.sharded, self.sleep = callback, steps, on_step, sharded, sleep
        self.global_step, self.should_stop, self.is_global_zero = 0, False, True
        self.saved, self.trained = [], []

    def save_checkpoint(self, path):
        blob = json.dumps({"step": self.global_step, "callbacks": {"ckpt": self.cb.state_dict()}})
        if self.sharded:
            os.makedirs(path, exist_ok=True)
            for rank in range(2):
                with open(os.path.join(path, f"rank{rank}.json"), "w") as f:
                    f.write(blob)
        else:
            with open(path, "w") as f:
                f.write(blob)
        self.saved.append((self.global_step, path))

    def fit(self, ckpt_path=None):
        if ckpt_path:
            with open(os.path.join(ckpt_path, "rank0.json") if self.sharded else ckpt_path) as f:
                st = json.load(f)
            self.global_step = st["step"]
            self.cb.load_state_dict(st["callbacks"]["ckpt"])
        for batch_idx in range(self.steps):
            self.cb.on_train_batch_start(self, None, None, batch_idx)
            time.sleep(self.sleep)
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


    def test_progress_survives_resume(self):
        # Run 1 sleeps 20 ms a step; run 2 is told to save at once (after its
        # first step); run 3's steps are faster. The work only grows.
        out = os.path.join(self.dir, "out")
        os.makedirs(out)
        works = []
        for r, (sleep, due) in enumerate([(0.02, 10), (0.0, None), (0.0, 30)], start=1):
            runtime._reset_for_tests()
            os.environ["CKPT_PROGRESS_FILE"] = self.progress = os.path.join(self.dir, f"progress.r{r}")
            if due is None:
                open(self.now, "w").close()
            elif os.path.exists(self.now):
                os.remove(self.now)
            cb = CkptTrainerCallback(install_signals=())
            t = StandInHFTrainer(cb, 1000, out, on_step=self.due_at(due) if due else None, resume=r > 1, sleep=sleep)
            t.train()
            with open(self.progress) as f:
                works.append(float(f.read()))
            with open(os.path.join(out, f"checkpoint-{t.saved[-1]}", "ckpt_work.json")) as f:
                self.assertAlmostEqual(json.load(f)["work"], works[-1], delta=1e-5)  # the file has 6 digits
        self.assertGreaterEqual(works[0], 10 * 0.02)
        self.assertGreaterEqual(works[1], works[0])
        self.assertLess(works[1] - works[0], 0.02)  # one fast step
        self.assertGreater(works[2], works[1])


class Lightning(Base):
    def test_progress_survives_resume_and_a_folder_replaces_a_folder(self):
        path = os.path.join(self.dir, "last.ckpt")
        works = []
        for r, (sleep, due) in enumerate([(0.02, 10), (0.0, None), (0.0, 30)], start=1):
            runtime._reset_for_tests()
            os.environ["CKPT_PROGRESS_FILE"] = self.progress = os.path.join(self.dir, f"progress.r{r}")
            if due is None:
                open(self.now, "w").close()
            elif os.path.exists(self.now):
                os.remove(self.now)
            if r > 1:
                os.environ["CKPT_RESTART"] = "1"
            cb = CkptLightningCallback(path, install_signals=())
            t = StandInLightningTrainer(cb, 1000, on_step=self.due_at(due) if due else None, sharded=True, sleep=sleep)
            t.fit(ckpt_path=cb.resume_path())
            with open(self.progress) as f:
                works.append(float(f.read()))
            self.assertEqual(sorted(os.listdir(path)), ["rank0.json", "rank1.json"])
            with open(os.path.join(path, "rank1.json")) as f:
                self.assertEqual(json.load(f)["step"], t.global_step)
            self.assertEqual(sorted(os.listdir(self.dir)), sorted(["checkpoint-now", "last.ckpt", "report.jsonl"] + [f"progress.r{i}" for i in range(1, r + 1)]))
        self.assertGreaterEqual(works[0], 10 * 0.02)
        self.assertGreaterEqual(works[1], works[0])
        self.assertLess(works[1] - works[0], 0.02)
        self.assertGreater(works[2], works[1])

    def test_seconds_per_step_never_below_resumed(self):
        cb = CkptLightningCallback(os.path.join(self.dir, "last.ckpt"), seconds_per_step=1.0, install_signals=())
        cb.load_state_dict({"work": 50.0})
        self.assertEqual(cb.work(SimpleNamespace(global_step=10)), 50.0)
        self.assertEqual(cb.work(SimpleNamespace(global_step=70)), 70.0)

    def test_saves_at_the_batch_end_then_stops(self):
        path = os.path.join(self.dir, "last.ckpt")
        cb = CkptLightningCallback(path, seconds_per_step=0.5)
        t = StandInLightningTrainer(cb, 50, on_step=self.due_at(11))
        t.fit()
        self.assertEqual(t.saved, [(11, path + ".tmp")])
        self.assertEqual(t.trained, list(range(1, 12)))
        with open(path) as f:
            self.assertEqual(json.load(f)["step"], 11)  # renamed into place
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
        os.rename(path, path + ".old")  # a save cut between its two renames
        self.assertEqual(cb.resume_path(), path + ".old")

    def test_signal_then_save(self):
        cb = CkptLightningCallback(os.path.join(self.dir, "last.ckpt"))
        t = StandInLightningTrainer(cb, 50, on_step=lambda s: s == 4 and os.kill(os.getpid(), signal.SIGUSR1))
        t.fit()
        self.assertEqual([s for s, _ in t.saved], [4])


if __name__ == "__main__":
    unittest.main()
