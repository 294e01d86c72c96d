"""concord/serve.py: the command line ./run's gunicorn runs with (the server itself is
tested in tests/faults/test_slow_clients.py), and the front's limits it reads."""

from __future__ import annotations

import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from concord import serve


def test_gunicorn_keeps_what_run_promises(monkeypatch, tmp_path):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("CONCORD_REQUEST_TIMEOUT", raising=False)
    assert serve.gunicorn_command(tmp_path / "web.sock") == [
        sys.executable,
        "-m",
        "gunicorn",
        "concord.wsgi",
        "--preload",
        "-b",
        f"unix:{tmp_path / 'web.sock'}",
        "--proxy-protocol",
        "v1",
        "-w",
        "3",
        "--timeout",
        "120",
        "--graceful-timeout",
        "10",
        "--log-level",
        "error",
    ]
    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    monkeypatch.setenv("CONCORD_REQUEST_TIMEOUT", "30")
    command = serve.gunicorn_command(tmp_path / "web.sock")
    assert command[command.index("-w") + 1] == "5" and command[command.index("--timeout") + 1] == "30"


@pytest.mark.parametrize(("name", "value"), [("WEB_CONCURRENCY", "0"), ("CONCORD_REQUEST_TIMEOUT", "soon")])
def test_bad_values_fail_loudly(monkeypatch, tmp_path, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=name):
        serve.gunicorn_command(tmp_path / "web.sock")


def test_the_fronts_body_limits_are_djangos(settings):
    settings.CONCORD_MAX_UPLOAD_BYTES = 100 * 2**20
    settings.CONCORD_ANONYMOUS_MAX_BODY_BYTES = 32 * 2**10
    settings.CONCORD_HEADER_TIMEOUT = 7.5
    limits = serve.front_limits()
    assert (limits.max_body, limits.body_memory, limits.header_timeout) == (100 * 2**20, 32 * 2**10, 7.5)
    assert limits.spool_budget == 400 * 2**20  # room for four of the largest uploads


def test_a_socket_folder_others_may_enter_is_refused(tmp_path):
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o755)
    open_folder.chmod(0o755)
    with pytest.raises(SystemExit, match="only its owner may enter"):
        serve.private_folder(open_folder)
    serve.private_folder(tmp_path / "new" / "run")
    assert (tmp_path / "new" / "run").stat().st_mode & 0o777 == 0o700
