#!/usr/bin/env python3
"""Example application for "ckpt run", standard library only.

Its work is WORK seconds of counting (default 60), one unit per 1/SPEED
seconds. It resumes from $CKPT_PROGRESS_FILE when CKPT_RESTART=1; on SIGUSR1
(the checkpoint signal) it writes its progress there and exits 1, or keeps
counting when CKPT_AFTER_CHECKPOINT=continue; it exits 0 when the work is
done, after writing its final progress.

    ckpt run -- python3 examples/count.py
"""
import os
import signal
import sys
import time

checkpoint = False


def on_usr1(signum, frame):
    global checkpoint
    checkpoint = True


signal.signal(signal.SIGUSR1, on_usr1)  # first: the runner may signal early
signal.signal(signal.SIGTERM, lambda s, f: sys.exit(143))

work = int(os.environ.get("WORK", "60"))
tick = 1.0 / float(os.environ.get("SPEED", "1"))
path = os.environ.get("CKPT_PROGRESS_FILE", "")


def save(progress):
    if not path:
        return
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % progress)
    os.replace(path + ".tmp", path)


progress = 0
if os.environ.get("CKPT_RESTART") == "1" and path and os.path.exists(path):
    with open(path) as f:
        progress = int(float(f.read().strip() or 0))
print("count.py: reservation %s resumes at %d of %d" % (os.environ.get("CKPT_RESERVATION", "?"), progress, work), flush=True)
while progress < work:
    time.sleep(tick)
    if checkpoint:
        save(progress)
        print("count.py: checkpoint at %d" % progress, flush=True)
        checkpoint = False
        if os.environ.get("CKPT_AFTER_CHECKPOINT", "exit") != "continue":
            sys.exit(1)
        continue
    progress += 1
save(progress)
print("count.py: done at %d" % progress, flush=True)
