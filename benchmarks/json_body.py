"""Benchmark: what an assessor's oversized JSON judgment body costs the web worker.

A hostile body: a clustering draft (``PUT .../judgment/``, by
API token) with 8 million empty lists in an unknown field, 24 MB in all.
Against gunicorn started here as ``./run`` starts it (``--preload``, one sync
worker) on a spare port, with a fresh SQLite database in a scratch directory:
the time to the answer, and the worker's resident memory idle, at the peak
and one second after the answer.

Run from the project root: ``python benchmarks/json_body.py [--lists 8000000]``.
The server runs the code ``PYTHONPATH`` names (this tree when unset), so the
code before a change is measured the same way from an export of it
(``git archive <commit> | tar -x -C /tmp/before``, then
``PYTHONPATH=/tmp/before python benchmarks/json_body.py``). Ends with
``RESULT name=json_body seconds=<time to the answer> ... peak_mb=<worker peak>``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SEED = """
import django
django.setup()
from django.contrib.auth import get_user_model
from kinds.registry import KINDS
from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
User = get_user_model()
organiser = User.objects.create_user("organiser", password="pw-organiser")
User.objects.create_user("alice", password="pw-alice")
campaign = create_campaign(creator=organiser, kind="clustering", name="Bench", overlap=1)
add_member(campaign=campaign, username="alice", role="assessor")
import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(KINDS["clustering"].examples.topic)}])
print(campaign.pk)
"""


def _memory_mb(field: str, pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _request(port: int, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.putrequest(method, path)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            connection.putheader(name, value)
        connection.endheaders()
        try:
            for start in range(0, len(body), 2**20):
                connection.send(body[start : start + 2**20])
        except OSError:  # the server answered and closed before the body was all sent
            pass
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lists", type=int, default=8_000_000, help="empty lists in the unknown field")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="concord-json-body-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "concord.settings",
        "CONCORD_SQLITE_PATH": str(scratch / "db.sqlite3"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)),
    }
    env.pop("DATABASE_URL", None)
    code = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    subprocess.run([sys.executable, "-m", "django", "migrate", "-v", "0"], env=env, cwd=code, check=True)
    campaign = subprocess.run(
        [sys.executable, "-c", SEED], env=env, cwd=code, check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "concord.wsgi", "--preload", "-b", f"127.0.0.1:{port}", "-w", "1"]
        + ["--timeout", "600", "--log-level", "error"],
        env=env,
        cwd=code,
    )
    try:
        worker = None
        for _ in range(300):
            time.sleep(0.1)
            children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            if not pids:
                continue
            try:
                status, answer = _request(
                    port,
                    "POST",
                    "/api/auth/token/",
                    b"username=alice&password=pw-alice",
                    {"Content-Type": "application/x-www-form-urlencoded"},
                )
            except OSError:
                continue
            worker, token = int(pids[0]), json.loads(answer)["token"]
            break
        if worker is None:
            raise RuntimeError("gunicorn did not start")
        head = b'{"payload": {"clusters": []}, "status": "draft", "version": 0, "x": ['
        body = head + b"[]," * (options.lists - 1) + b"[]]}"
        headers = {"Content-Type": "application/json", "Authorization": f"Token {token}"}
        idle = _memory_mb("VmRSS", worker)
        started = time.perf_counter()
        status, answer = _request(port, "PUT", f"/api/campaigns/{campaign}/topics/t1/judgment/", body, headers)
        seconds = time.perf_counter() - started
        time.sleep(1)
        peak, kept = _memory_mb("VmHWM", worker), _memory_mb("VmRSS", worker)
    finally:
        server.terminate()
        server.wait(30)
    print(f"PUT of {len(body) / 1e6:.1f} MB ({options.lists:,} empty lists in an unknown field), code {code}")
    print(f"  answered {status} in {seconds:.2f} s: {answer[:160].decode(errors='replace')}")
    print(f"  gunicorn worker: {idle:.0f} MB idle, {peak:.0f} MB at the peak, {kept:.0f} MB one second after")
    print(
        f"RESULT name=json_body seconds={seconds:.3f} status={status} body_mb={len(body) / 1e6:.1f} "
        f"idle_mb={idle:.0f} peak_mb={peak:.0f} kept_mb={kept:.0f}"
    )


if __name__ == "__main__":
    main()
