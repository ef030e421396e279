#!/usr/bin/env python3
"""The checkpoint coordinator's Python client moved into the ckpt package
(python/ckpt/coord.py; pip install ./python, then "python3 -m ckpt.coord").
This script runs it from the repository without installing anything:

    export CKPT_COORD_URL=http://127.0.0.1:7070 CKPT_COORD_TOKEN=...
    python3 examples/coord_client.py demo --id py-job --nodes 16 --size 50e9 --mtbf 43200
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from ckpt.coord import CoordError, Coordinator, main  # noqa: E402,F401

if __name__ == "__main__":
    sys.exit(main())
