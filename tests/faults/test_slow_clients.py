"""Slow and idle clients against the web server ``./run`` starts (``python -m
concord.serve``: its command line is written there only), on a SQLite file of its own.

gunicorn's sync workers serve one connection at a time from the moment they accept it,
so three connections that send nothing, or one header line every few seconds, held
``./run``'s three workers and every other request waited. Here 100 such connections
are open (half send a header line every second, half nothing) while ``/help/`` is asked
for ten times: every time it is answered, because the buffering front before gunicorn
(concord/front.py) reads a request whole before a worker sees it. The slow connections
are still open at the end (the head timeout is set long for the test), so the probes
were answered while they were held. Also: the client's address reaches Django (login
throttling counts by it), SIGTERM stops the server and its workers, and a server killed
outright leaves no gunicorn behind.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file"),
    pytest.mark.load,
]
HANG_GUARD = 60  # seconds: a guard against hanging, never what the test asserts
SLOW, PROBES = 100, 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, headers: dict | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_GUARD)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.fixture
def server(tmp_path, migrated_sqlite):
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "WEB_CONCURRENCY"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "slow.sqlite3")),
        # Long enough that the slow connections outlast the test on a busy machine (the
        # front's own timeouts are tested in tests/test_front.py).
        CONCORD_HEADER_TIMEOUT="600",
    )
    port = free_port()
    folder = tempfile.TemporaryDirectory(prefix="concord-")  # short: a Unix socket's path is at most 107 bytes
    socket_dir = Path(folder.name)
    process = subprocess.Popen(
        [sys.executable, "-m", "concord.serve", "--port", str(port), "--socket", str(socket_dir / "web.sock")],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, process.stderr.read()
            try:
                if get(port, "/help/").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)
        yield {"port": port, "process": process, "db": env["CONCORD_SQLITE_PATH"], "socket": socket_dir / "web.sock"}
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the server and whatever it left
        process.wait(HANG_GUARD)
        folder.cleanup()


def test_a_hundred_slow_and_idle_connections_leave_every_other_request_answered(server):
    port = server["port"]
    stop = threading.Event()
    held = [socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) for _ in range(SLOW)]
    slow = held[::2]
    closed: list[int] = []

    def trickle() -> None:
        """A header line every second on every other connection, never the end of the head."""
        for connection in slow:
            connection.sendall(b"GET /help/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        line = 0
        while not stop.wait(1):
            line += 1
            for number, connection in enumerate(slow):
                try:
                    connection.sendall(b"X-Slow-%d: %d\r\n" % (line, line))
                except OSError:
                    closed.append(number)

    trickling = threading.Thread(target=trickle, daemon=True)
    trickling.start()
    try:
        time.sleep(2)  # the slow heads under way: two lines sent on each
        statuses = [get(port, "/help/").status for _ in range(PROBES)]
        # Still held: none of the slow connections was closed or answered meanwhile.
        for connection in held:
            connection.setblocking(False)
            with pytest.raises(BlockingIOError):
                connection.recv(1)
    finally:
        stop.set()
        trickling.join(HANG_GUARD)
        for connection in held:
            connection.close()
    assert statuses == [200] * PROBES
    assert closed == []


def test_the_clients_address_reaches_django(server):
    """Login throttling counts failures by REMOTE_ADDR: the front passes the client's on."""
    port = server["port"]
    page = get(port, "/accounts/login/")
    cookie = page.getheader("Set-Cookie").split(";")[0]
    token = cookie.split("=", 1)[1]
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "username": "nobody", "password": "wrong"})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_GUARD)
    connection.request(
        "POST",
        "/accounts/login/",
        body,
        {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded", "Referer": f"http://127.0.0.1:{port}/"},
    )
    assert connection.getresponse().status == 200  # the form again, with its error
    connection.close()
    with contextlib.closing(sqlite3.connect(server["db"])) as db:
        assert db.execute("SELECT username, ip_address FROM axes_accessattempt").fetchall() == [("nobody", "127.0.0.1")]


def test_sigterm_stops_the_server_and_its_workers(server):
    process = server["process"]
    workers = subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert len(workers) >= 5  # concord.serve, gunicorn's master and its 3 workers
    process.send_signal(signal.SIGTERM)
    assert process.wait(HANG_GUARD) == 0
    deadline = time.monotonic() + HANG_GUARD
    while subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "gunicorn outlived the server"
        time.sleep(0.1)
    assert not server["socket"].exists()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server["port"]), timeout=5)


def test_a_server_killed_outright_leaves_no_gunicorn_behind(server):
    """gunicorn is told to stop when concord.serve dies, however it dies (Linux)."""
    process = server["process"]
    os.kill(process.pid, signal.SIGKILL)
    process.wait(HANG_GUARD)
    deadline = time.monotonic() + HANG_GUARD
    while subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "gunicorn outlived the server"
        time.sleep(0.1)
