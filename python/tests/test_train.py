"""examples/train.py resumes bit for bit: an uninterrupted run and a run
interrupted by checkpoint signals at random moments (seeded), and by
SIGKILLs mid-step or mid-save, end with the same final weights, byte for
byte; with signals only, no step is trained twice. Needs PyTorch in the
interpreter running the tests (or in $CKPT_PYTHON); skips otherwise."""
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "..", "examples", "train.py")
PY = os.environ.get("CKPT_PYTHON") or sys.executable


def have_torch():
    return subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode == 0


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CKPT_")}
    e.update(extra)
    return e


@unittest.skipUnless(have_torch(), f"PyTorch is not importable by {PY} (set CKPT_PYTHON to an interpreter that has it)")
class Resume(unittest.TestCase):
    STEPS = 1500  # >= 7.5 s of steps (--step-sleep 0.005): every signal interrupts

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def run_train(self, name, *args, **kw):
        out = os.path.join(self.dir, name + ".bin")
        args = ["--steps", str(self.STEPS), "--width", "64", "--pad-mb", "2", "--step-sleep", "0.005", "--dir", os.path.join(self.dir, name), "--out", out,
                "--log", os.path.join(self.dir, name + ".log"), *args]
        return out, subprocess.Popen([PY, TRAIN, *args], stdout=subprocess.PIPE, text=True, env=env(**kw))

    def steps_logged(self, name):
        with open(os.path.join(self.dir, name + ".log")) as f:
            return [int(line.split()[1]) for line in f if line.startswith("step ")]

    def test_interrupted_equals_uninterrupted(self):
        ref, p = self.run_train("ref")
        out, _ = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, out)
        with open(ref, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        self.assertIn(want, out)
        self.assertEqual(self.steps_logged("ref"), list(range(1, self.STEPS + 1)))

        rnd = random.Random(24)
        kinds = [signal.SIGUSR1, signal.SIGTERM, signal.SIGUSR1, signal.SIGTERM, signal.SIGKILL, signal.SIGUSR1, signal.SIGKILL]
        runs, resumes = 0, []
        for r, sig in enumerate(kinds + [None], start=1):
            got, p = self.run_train("cut", *(["--resume"] if r > 1 else []), CKPT_RESERVATION=str(r))
            first = p.stdout.readline()  # printed once the handlers are in and the state is loaded
            resumes.append(int(first.split("at step ")[1].split()[0]))
            if sig is not None:
                time.sleep(rnd.uniform(0.05, 1.0))
                p.send_signal(sig)
            rest, _ = p.communicate(timeout=300)
            runs += 1
            if sig is None:
                self.assertEqual(p.returncode, 0, first + rest)
            elif "done at step" in rest:
                break  # finished before the signal (Python restores the default handlers at exit)
            else:
                self.assertIn(p.returncode, (1, -signal.SIGKILL), first + rest)
        with open(got, "rb") as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), want, f"resumed at steps {resumes}")
        logged = self.steps_logged("cut")
        self.assertEqual(sorted(set(logged)), list(range(1, self.STEPS + 1)))
        self.assertEqual(runs, len(kinds) + 1, f"a run finished before its signal: resumes {resumes}")
        self.assertGreater(len(set(resumes)), 3, f"the signals came too late to interrupt: resumes {resumes}")
        # Steps trained twice come only from the SIGKILLs (work since the last save).
        twice = len(logged) - self.STEPS
        print(f"\n{runs} runs resumed at steps {resumes}; {twice} steps trained twice (after the 2 SIGKILLs)", file=sys.stderr)

    def test_signals_only_train_no_step_twice(self):
        for r in range(1, 6):
            _, p = self.run_train("sig", *(["--resume"] if r > 1 else []), CKPT_RESERVATION=str(r))
            p.stdout.readline()
            time.sleep(0.3)
            p.send_signal(signal.SIGTERM if r % 2 else signal.SIGUSR1)
            rest, _ = p.communicate(timeout=300)
            if "done at step" in rest:
                break
            self.assertEqual(p.returncode, 1, rest)
        logged = self.steps_logged("sig")
        self.assertEqual(logged, list(range(1, len(logged) + 1)))  # each step once, in order


@unittest.skipUnless(have_torch(), f"PyTorch is not importable by {PY}")
class Protocol(unittest.TestCase):
    """The progress, the app signal and the flags, against the runner's protocol."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def run_once(self, r, after, *args, **kw):
        """One reservation r, told to checkpoint `after` seconds after it has
        loaded its state (SIGTERM), or at once (after=None: CKPT_CHECKPOINT_AT=1)."""
        progress = os.path.join(self.dir, f"progress.r{r}")
        extra = {"CKPT_CHECKPOINT_AT": "1"} if after is None else {}
        p = subprocess.Popen([PY, TRAIN, "--steps", "100000", "--width", "16", "--dir", os.path.join(self.dir, "d"), "--out", os.path.join(self.dir, "o"), *args],
                             stdout=subprocess.PIPE, text=True, env=env(CKPT_PROGRESS_FILE=progress, CKPT_RESERVATION=str(r), **extra, **kw))
        p.stdout.readline()
        if after is not None:
            time.sleep(after)
            p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 1, out)
        step = int(out.split("checkpoint at step ")[1].split()[0])
        with open(progress) as f:
            return step, float(f.read())

    def test_progress_never_goes_backwards(self):
        # Run 1 sleeps 20 ms a step: its work is at least 20 ms times its steps.
        s1, p1 = self.run_once(1, 1.5, "--step-sleep", "0.02")
        self.assertGreater(s1, 0)
        self.assertGreaterEqual(p1, 0.02 * s1)
        # Run 2 is told to save at once (a preemption right after the requeue):
        # no step trained, the same work (it used to write 0).
        s2, p2 = self.run_once(2, None, CKPT_RESTART="1")
        self.assertEqual((s2, p2), (s1, p1))
        # Run 3's steps are faster (no sleep): the work still only grows, by at
        # most run 3's wall time.
        t0 = time.time()
        s3, p3 = self.run_once(3, 1.5, CKPT_RESTART="1")
        self.assertGreater(s3, s2)
        self.assertGreater(p3, p2)
        self.assertLess(p3 - p2, time.time() - t0)

    def test_app_signal_is_caught(self):
        p = subprocess.Popen([PY, TRAIN, "--steps", "100000", "--width", "16", "--dir", os.path.join(self.dir, "d"), "--out", os.path.join(self.dir, "o")],
                             stdout=subprocess.PIPE, text=True, env=env(CKPT_APP_SIGNAL="USR2"))
        p.stdout.readline()
        p.send_signal(signal.SIGUSR2)
        out, _ = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 1, out)  # saved and exited, not killed by SIGUSR2 (rc -12)
        self.assertIn("(SIGUSR2)", out)

    def test_bad_input_is_one_line_exit_2(self):
        cases = [(["--batch", "5000"], {}, "--batch 5000"), (["--signals", "KILL"], {}, "--signals KILL"),
                 ([], {"CKPT_APP_SIGNAL": "KILL"}, "CKPT_APP_SIGNAL='KILL'"), ([], {"CKPT_RESERVATION": "0"}, "CKPT_RESERVATION='0'")]
        for args, kw, want in cases:
            p = subprocess.run([PY, TRAIN, "--steps", "5", "--dir", os.path.join(self.dir, "x"), "--out", os.path.join(self.dir, "x.bin"), *args],
                               capture_output=True, text=True, timeout=60, env=env(**kw))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn(want, p.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
