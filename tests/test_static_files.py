"""The static files as ``./run`` serves them (CONCORD_STATIC=collected, after
``manage.py collectstatic``; docs/operations.md, "Static files"), from the server it
starts (``python -m concord.serve``) on a SQLite file of its own: a page links to its
stylesheet under a name holding a hash of its content; that name is served with a cache
header that keeps it for good, and gzip- or Brotli-compressed to a browser that asks.
The tests' own settings serve the source folders (nothing to collect first).

collectstatic here leaves out drf-spectacular-sidecar's files (Swagger UI and ReDoc,
9 MB, most of the half minute ./run's first collection takes): the pages fetched here
do not link to them, and the storage, its settings and the server are ./run's.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import brotli
import pytest

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD = 180  # seconds: a guard against hanging, never what the test asserts
A_YEAR = 365 * 24 * 3600

pytestmark = pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, **headers: str) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_GUARD)
    connection.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


@pytest.fixture
def served(tmp_path, migrated_sqlite):
    """``./run``'s environment for the static files, its collectstatic, its server: the port."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "WEB_CONCURRENCY", "CONCORD_DEBUG"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_STATIC="collected",
        CONCORD_STATIC_ROOT=str(tmp_path / "static"),
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "static.sqlite3")),
        WEB_CONCURRENCY="1",
    )
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0", "--ignore", "drf_spectacular_sidecar"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert collected.returncode == 0, collected.stderr
    port = free_port()
    folder = tempfile.TemporaryDirectory(prefix="concord-")  # short: a Unix socket's path is at most 107 bytes
    process = subprocess.Popen(
        [sys.executable, "-m", "concord.serve", "--port", str(port), "--socket", str(Path(folder.name) / "web.sock")],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + HANG_GUARD
        while True:
            assert process.poll() is None, process.stderr.read()
            with contextlib.suppress(OSError):
                if get(port, "/accounts/login/")[0].status == 200:
                    break
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(60)
        folder.cleanup()


def test_a_pages_stylesheet_is_hashed_cached_for_good_and_compressed(served):
    response, page = get(served, "/accounts/login/")
    assert response.status == 200
    links = re.findall(rb'<link rel="stylesheet" href="([^"]+)"', page)
    stylesheet = next(link.decode() for link in links if b"concord" in link)
    assert re.fullmatch(r"/static/concord\.[0-9a-f]{12}\.css", stylesheet), stylesheet

    plain, css = get(served, stylesheet)
    assert plain.status == 200 and plain.getheader("Content-Type").startswith("text/css")
    assert plain.getheader("Content-Encoding") is None and b".table-box" in css
    cache = plain.getheader("Cache-Control")
    assert "immutable" in cache and "public" in cache, cache
    assert int(re.search(r"max-age=(\d+)", cache).group(1)) >= A_YEAR, cache
    assert "Accept-Encoding" in plain.getheader("Vary")

    zipped, body = get(served, stylesheet, Accept_Encoding="gzip")
    assert zipped.getheader("Content-Encoding") == "gzip" and zipped.getheader("Cache-Control") == cache
    assert len(body) < len(css) / 3 and gzip.decompress(body) == css

    squeezed, body = get(served, stylesheet, Accept_Encoding="gzip, deflate, br")
    assert squeezed.getheader("Content-Encoding") == "br"
    assert len(body) < len(css) / 3 and brotli.decompress(body) == css

    # The name without the hash is there too (for whatever links to it by hand), but it can
    # change under the same name, so it is kept only briefly.
    unhashed, body = get(served, "/static/concord.css")
    assert unhashed.status == 200 and body == css
    assert "immutable" not in unhashed.getheader("Cache-Control")
