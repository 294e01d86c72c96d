"""scripts/supervise, which ./run keeps its task workers running with: a
command that ends is started again, after a wait that doubles while it keeps
ending quickly; SIGTERM stops the command and the loop."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUPERVISE = ROOT / "scripts" / "supervise"


def test_a_crashing_command_is_restarted_with_a_doubling_wait(tmp_path):
    log = tmp_path / "worker.log"
    runs = tmp_path / "runs"
    loop = subprocess.Popen(
        [
            str(SUPERVISE),
            "--before-restart",
            f"echo recovered >> {tmp_path / 'recoveries'}",
            str(log),
            "sh",
            "-c",
            f"echo run >> {runs}; echo crashing; exit 3",
        ],
        start_new_session=True,
    )
    try:
        # Restarts after 1 s and 2 s: the third run starts about 3 s in.
        deadline = time.monotonic() + 60  # a guard against hanging, not a measurement
        while not runs.exists() or runs.read_text().count("run") < 3:
            assert time.monotonic() < deadline, log.read_text() if log.exists() else "no log"
            time.sleep(0.1)
    finally:
        loop.send_signal(signal.SIGTERM)
        loop.wait(timeout=30)
    text = log.read_text()
    waits = [int(w) for w in re.findall(r"ended \(exit status 3\); starting it again in (\d+) s", text)]
    assert waits[:2] == [1, 2]
    assert text.count("crashing") >= 3
    assert (tmp_path / "recoveries").read_text().count("recovered") >= 2


def test_sigterm_stops_the_command_and_the_loop(tmp_path):
    log = tmp_path / "worker.log"
    pid_file = tmp_path / "pid"
    loop = subprocess.Popen(
        [str(SUPERVISE), str(log), "sh", "-c", f"echo $$ > {pid_file}; exec sleep 300"], start_new_session=True
    )
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(pid_file.read_text())
    loop.send_signal(signal.SIGTERM)
    assert loop.wait(timeout=30) == 0
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
    assert "starting it again" not in log.read_text()
