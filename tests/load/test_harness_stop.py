"""The load harness stops what it started, down to a grandchild in a process group of its
own (as an RQ work horse is: rq's fork_work_horse calls setpgrp)."""

from __future__ import annotations

import os
import signal
import sys
import time

from benchmarks.loadrig import harness

FORKS_A_HORSE = """
import os, sys, time
child = os.fork()
if child == 0:
    os.setpgrp()
    time.sleep(600)
    os._exit(0)
print(child, flush=True)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has stopped; only its parent's wait is missing


def test_stopping_a_process_stops_its_descendants_in_other_process_groups(tmp_path):
    log = tmp_path / "worker.log"
    process = harness._start([sys.executable, "-c", FORKS_A_HORSE], dict(os.environ), log)
    deadline = time.monotonic() + 60  # a guard against hanging, not a measurement
    while not log.read_text().strip():
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    horse = int(log.read_text())
    try:
        assert os.getpgid(horse) == horse != os.getpgid(process.pid)  # out of the worker's group
        assert harness._descendants(process.pid) == [horse]
        harness._stop(process, grace=5)
        while alive(horse) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is not None and not alive(horse)
    finally:
        if alive(horse):
            os.kill(horse, signal.SIGKILL)
