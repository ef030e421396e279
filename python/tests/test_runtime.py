"""The package against the interface ckpt run exports (docs/training.md).
Standard library unittest: python3 -m unittest discover -s python/tests"""
import json
import math
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ckpt  # noqa: E402
from ckpt import runtime  # noqa: E402

VARS = ("CKPT_END_TIME", "CKPT_CHECKPOINT_AT", "CKPT_CHECKPOINT_NOW", "CKPT_REPORT_FILE", "CKPT_SOCKET",
        "CKPT_PROGRESS_FILE", "CKPT_RESTART", "CKPT_RESERVATION")


class Env(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        clean = {k: v for k, v in os.environ.items() if k not in VARS}
        p = mock.patch.dict(os.environ, clean, clear=True)
        p.start()
        self.addCleanup(p.stop)
        runtime._reset_for_tests()
        self.addCleanup(runtime._reset_for_tests)


class OutsideCkpt(Env):
    def test_never_checkpoint_unlimited_time(self):
        self.assertEqual(ckpt.time_left(), math.inf)
        self.assertFalse(ckpt.should_checkpoint())
        self.assertEqual(ckpt.checkpoint_in(), math.inf)
        self.assertFalse(ckpt.report_checkpoint(1.5))
        self.assertFalse(ckpt.report_step(0.2))
        self.assertFalse(ckpt.save_progress(10))
        self.assertFalse(ckpt.restart())
        self.assertIsNone(ckpt.reservation())
        self.assertIsNone(ckpt.ask("time_left"))


class InsideCkpt(Env):
    def test_time_left_and_checkpoint_at(self):
        os.environ["CKPT_END_TIME"] = "1000.5"
        os.environ["CKPT_CHECKPOINT_AT"] = "900.25"
        self.assertEqual(ckpt.time_left(now=800), 200.5)
        self.assertEqual(ckpt.time_left(now=2000), 0.0)  # never negative
        self.assertFalse(ckpt.should_checkpoint(now=900.2))
        self.assertTrue(ckpt.should_checkpoint(now=900.25))  # at the instant: due
        self.assertEqual(ckpt.checkpoint_in(now=800), 100.25)
        self.assertEqual(ckpt.checkpoint_in(now=901), 0.0)

    def test_checkpoint_now_file(self):
        now = os.path.join(self.dir, "checkpoint-now")
        os.environ["CKPT_CHECKPOINT_NOW"] = now
        os.environ["CKPT_CHECKPOINT_AT"] = str(time.time() + 3600)
        self.assertFalse(ckpt.should_checkpoint())
        open(now, "w").close()  # the runner: a preemption came
        self.assertTrue(ckpt.should_checkpoint())

    def test_no_checkpoint_planned(self):
        os.environ["CKPT_END_TIME"] = str(time.time() + 60)
        self.assertFalse(ckpt.should_checkpoint())
        self.assertEqual(ckpt.checkpoint_in(), math.inf)
        self.assertAlmostEqual(ckpt.time_left(), 60, delta=1)

    def test_malformed_variables_name_themselves(self):
        for name in ("CKPT_END_TIME", "CKPT_CHECKPOINT_AT"):
            for bad in ("soon", "nan", "inf", "-5", "12:00"):
                with mock.patch.dict(os.environ, {name: bad}):
                    with self.assertRaises(ValueError) as e:
                        ckpt.time_left() if name == "CKPT_END_TIME" else ckpt.should_checkpoint()
                    self.assertIn(name + "=", str(e.exception))
                    self.assertIn(bad, str(e.exception))
        with mock.patch.dict(os.environ, {"CKPT_RESERVATION": "two"}):
            self.assertRaisesRegex(ValueError, "CKPT_RESERVATION='two'", ckpt.reservation)
        for bad in ("0", "-3"):
            with mock.patch.dict(os.environ, {"CKPT_RESERVATION": bad}):
                self.assertRaisesRegex(ValueError, f"CKPT_RESERVATION='{bad}'", ckpt.reservation)

    def test_reports_are_json_lines(self):
        path = os.path.join(self.dir, "report.jsonl")
        os.environ["CKPT_REPORT_FILE"] = path
        self.assertTrue(ckpt.report_checkpoint(12.3))
        self.assertTrue(ckpt.report_step(0.41))
        self.assertTrue(ckpt.report_checkpoint(0))
        with open(path) as f:
            self.assertEqual([json.loads(x) for x in f], [{"checkpoint_s": 12.3}, {"step_s": 0.41}, {"checkpoint_s": 0.0}])
        for bad in (-1, math.nan, math.inf, "3", None, True):
            self.assertRaises(ValueError, ckpt.report_checkpoint, bad)
            self.assertRaises(ValueError, ckpt.report_step, bad)
        with open(path) as f:
            self.assertEqual(len(f.readlines()), 3)  # nothing written for a bad value

    def test_concurrent_appends_keep_whole_lines(self):
        # O_APPEND and one write per line: 8 threads x 200 lines, none torn.
        path = os.path.join(self.dir, "report.jsonl")
        os.environ["CKPT_REPORT_FILE"] = path

        def w(i):
            for j in range(200):
                ckpt.report_step(i + j / 1000)
        ts = [threading.Thread(target=w, args=(i,)) for i in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        with open(path) as f:
            lines = [json.loads(x) for x in f]
        self.assertEqual(len(lines), 1600)
        self.assertEqual(sorted(x["step_s"] for x in lines), sorted(i + j / 1000 for i in range(8) for j in range(200)))

    def test_progress_is_atomic_and_readable(self):
        path = os.path.join(self.dir, "progress.r1")
        os.environ["CKPT_PROGRESS_FILE"] = path
        self.assertTrue(ckpt.save_progress(123.5))
        with open(path) as f:
            self.assertEqual(float(f.read()), 123.5)
        self.assertEqual(os.listdir(self.dir), ["progress.r1"])  # no temporary left
        self.assertRaises(ValueError, ckpt.save_progress, -1)
        self.assertRaises(ValueError, ckpt.save_progress, math.nan)

    def test_restart_and_reservation(self):
        os.environ.update(CKPT_RESTART="1", CKPT_RESERVATION="3")
        self.assertTrue(ckpt.restart())
        self.assertEqual(ckpt.reservation(), 3)

    def test_signal_handler(self):
        prev = ckpt.install_signal_handlers(("USR2", "SIGUSR1"))
        self.addCleanup(lambda: [signal.signal(signal.Signals[k], v) for k, v in prev.items()])
        self.assertFalse(ckpt.should_checkpoint())
        os.kill(os.getpid(), signal.SIGUSR2)
        self.assertTrue(ckpt.should_checkpoint())
        self.assertEqual(ckpt.signalled(), ["SIGUSR2"])
        self.assertRaisesRegex(ValueError, "signal 'HUPP'", ckpt.install_signal_handlers, ("HUPP",))

    def test_default_signals_follow_app_signal(self):
        os.environ.pop("CKPT_APP_SIGNAL", None)
        self.assertEqual(ckpt.default_signals(), ("SIGUSR1", "SIGTERM"))
        os.environ["CKPT_APP_SIGNAL"] = "USR2"
        self.assertEqual(ckpt.default_signals(), ("SIGUSR2", "SIGTERM"))
        os.environ["CKPT_APP_SIGNAL"] = "TERM"
        self.assertEqual(ckpt.default_signals(), ("SIGTERM",))
        prev = ckpt.install_signal_handlers()
        self.addCleanup(lambda: [signal.signal(signal.Signals[k], v) for k, v in prev.items()])
        self.assertEqual(sorted(prev), ["SIGTERM"])
        os.environ["CKPT_APP_SIGNAL"] = "KILL"
        self.assertRaisesRegex(ValueError, "CKPT_APP_SIGNAL='KILL'", ckpt.default_signals)
        self.assertRaisesRegex(ValueError, "CKPT_APP_SIGNAL='KILL'", ckpt.install_signal_handlers)

    def test_socket(self):
        path = os.path.join(self.dir, "s")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        self.addCleanup(srv.close)
        answers = {b"should_checkpoint\n": b"no 12.5\n", b"time_left\n": b"80\n"}

        def serve():
            for _ in range(2):
                c, _ = srv.accept()
                with c:
                    c.sendall(answers[c.recv(64)])
        t = threading.Thread(target=serve)
        t.start()
        os.environ["CKPT_SOCKET"] = path
        self.assertEqual(ckpt.ask("should_checkpoint"), "no 12.5")
        self.assertEqual(ckpt.ask("time_left"), "80")
        t.join()


class Package(unittest.TestCase):
    def test_coordinator_client_is_in_the_package(self):
        self.assertEqual(ckpt.Coordinator.__module__, "ckpt.coord")
        self.assertTrue(issubclass(ckpt.CoordError, Exception))
        import subprocess
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        r = subprocess.run([sys.executable, "-W", "error", "-m", "ckpt.coord", "--help"], cwd=root, capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertIn("demo", r.stdout)


class Timer(Env):
    def test_median_reported_every_n(self):
        path = os.path.join(self.dir, "report.jsonl")
        os.environ["CKPT_REPORT_FILE"] = path
        t = ckpt.StepTimer(every=3)
        self.assertIsNone(t.median())
        for s in (0.3, 0.1, 0.2, 0.4, 0.5, 0.6):
            t.add(s)
        with open(path) as f:
            self.assertEqual([json.loads(x)["step_s"] for x in f], [0.2, 0.35])  # medians of 3 and of 6
        self.assertAlmostEqual(t.total, 2.1)
        self.assertEqual(t.count, 6)

    def test_bad_every_and_window_refused(self):
        for bad in (0, -1, 2.5, True, "3"):
            for kw in ("every", "window"):
                with self.assertRaisesRegex(ValueError, f"StepTimer {kw}="):
                    ckpt.StepTimer(**{kw: bad})

    def test_window_is_bounded(self):
        t = ckpt.StepTimer(every=10**9, window=5)
        for i in range(10000):
            t.add(float(i))
        self.assertEqual(len(t.times), 5)
        self.assertEqual(t.median(), 9997.0)  # median of the last 5: 9995..9999
        self.assertEqual(t.total, sum(range(10000)))  # the work counts every step


if __name__ == "__main__":
    unittest.main()
