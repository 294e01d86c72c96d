"""The web server ``./run`` starts, and the only place its command line is written
(tests/test_serve.py starts the same): gunicorn's sync workers on a Unix socket,
behind the buffering front (concord/front.py) on a TCP port.

    python -m concord.serve --port 8000 [--host 127.0.0.1] [--socket var/run/web.sock]

gunicorn, the production server: ``WEB_CONCURRENCY`` worker processes (3), the
application loaded once before they fork (``--preload``), a request still running
after ``CONCORD_REQUEST_TIMEOUT`` seconds (120) stopped (its worker is replaced).
Sync workers give each request a process of its own, so SQLite's and Django's
per-thread state is never shared and a stuck request can be stopped; the front
in front of them keeps slow and idle clients from holding one (concord/front.py).

The port answers once gunicorn does (its socket accepts), so ``./run``'s wait for
the port is a wait for the whole server. SIGTERM or SIGINT: the front stops
taking connections and gunicorn finishes the requests under way
(``--graceful-timeout`` 10 s); should gunicorn stop by itself, so does this,
with its exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import os
import resource
import signal
import socket
import sys
from pathlib import Path

from concord.env import env_int
from concord.front import Front, Limits

ROOT = Path(__file__).resolve().parent.parent
GRACEFUL_TIMEOUT = 10
PR_SET_PDEATHSIG = 1  # prctl(2)


def gunicorn_command(socket_path: Path) -> list[str]:
    workers = env_int("WEB_CONCURRENCY", 3, minimum=1)
    timeout = env_int("CONCORD_REQUEST_TIMEOUT", 120, minimum=1)
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "concord.wsgi",
        "--preload",
        "-b",
        f"unix:{socket_path}",
        # The front puts the client's address in a PROXY line: REMOTE_ADDR is the client's.
        "--proxy-protocol",
        "v1",
        "-w",
        str(workers),
        "--timeout",
        str(timeout),
        "--graceful-timeout",
        str(GRACEFUL_TIMEOUT),
        "--log-level",
        "error",
    ]


def front_limits() -> Limits:
    """The front's limits: the request body's are Django's own (settings, from the environment)."""
    from django.conf import settings  # the settings module reads the environment when first used

    return Limits(
        header_timeout=settings.CONCORD_HEADER_TIMEOUT,
        body_timeout=settings.CONCORD_BODY_TIMEOUT,
        max_body=settings.CONCORD_MAX_UPLOAD_BYTES,
        body_memory=settings.CONCORD_ANONYMOUS_MAX_BODY_BYTES,
        # Room for a few of the largest uploads at once, at least.
        spool_budget=max(Limits.spool_budget, 4 * settings.CONCORD_MAX_UPLOAD_BYTES),
    )


def accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def enough_files(connections: int) -> None:
    """Room for every connection and its upstream one (the soft limit raised up to the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
        )


def private_folder(folder: Path) -> None:
    """The socket's folder, made if need be: gunicorn believes the PROXY lines sent on the
    socket, so only this user may reach it."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        sys.exit(f"concord.serve: {folder} must be a folder only its owner may enter (chmod 700 {folder})")


def stop_with_parent() -> None:
    """In the child, before gunicorn starts (Linux): SIGTERM when this process dies, however
    it dies, so no gunicorn is left serving a socket nobody reaches."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


async def serve(host: str, port: int, socket_path: Path) -> int:
    private_folder(socket_path.parent)
    socket_path.unlink(missing_ok=True)
    limits = front_limits()
    enough_files(limits.max_connections)
    gunicorn = await asyncio.create_subprocess_exec(
        *gunicorn_command(socket_path),
        cwd=ROOT,
        preexec_fn=stop_with_parent if sys.platform == "linux" else None,
    )
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    ended = asyncio.ensure_future(gunicorn.wait())
    stop = asyncio.ensure_future(stopping.wait())

    while not accepts(socket_path):
        done, _ = await asyncio.wait({ended, stop}, timeout=0.1)
        if done:
            break
    server, failed = None, ""
    if not ended.done() and not stop.done():
        try:
            server = await Front(str(socket_path), limits).serve(host, port)
        except OSError as error:
            failed = f"cannot listen on {host}:{port} ({error.strerror})"
        else:
            await asyncio.wait({ended, stop}, return_when=asyncio.FIRST_COMPLETED)
    if server is not None:
        server.close()
    if not ended.done():
        gunicorn.terminate()
        try:
            await asyncio.wait_for(asyncio.shield(ended), GRACEFUL_TIMEOUT + 20)
        except TimeoutError:
            gunicorn.kill()
    code = await ended
    socket_path.unlink(missing_ok=True)
    if failed:
        print(f"concord.serve: {failed}", file=sys.stderr)
        return 1
    if stop.done():
        return 0  # asked to stop
    print(f"concord.serve: gunicorn ended (exit status {code})", file=sys.stderr)
    return code or 1


def main() -> None:
    parser = argparse.ArgumentParser(description="gunicorn behind the buffering front (./run's web server)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--socket", type=Path, default=ROOT / "var" / "run" / "web.sock", help="gunicorn's socket")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    sys.exit(asyncio.run(serve(args.host, args.port, args.socket)))


if __name__ == "__main__":
    main()
