"""./run itself, in a sandbox: a copy of the script with stand-ins for the virtual
environment's python (recording every command, the key file and the static files'
setting it was given) and for scripts/supervise. What it checks: ./run makes a secret
key of its own in var/ on first start (owner-only, kept on the next start), hands it to
every process it starts (collectstatic, migrate, seed_demo, recover_jobs, the task
workers, the web server), serves the collected static files (CONCORD_STATIC=collected,
as tests/test_static_files.py serves them), collecting them again only when a source
changed, and serves with ``concord.serve`` (the command line
tests/faults/test_slow_clients.py runs)."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/bin/sh
echo "$* | key=${CONCORD_SECRET_KEY_FILE:-} | static=${CONCORD_STATIC:-}" >> "%(calls)s"
case "$1 $2" in
  "-m concord.secret_key") PYTHONPATH="%(root)s" exec "%(python)s" "$@" ;;
  "manage.py collectstatic") mkdir -p staticfiles && echo {} > staticfiles/staticfiles.json ;;
  # The server "fails to start" (./run says so and stops), once both task workers have started.
  "-m concord.serve") until [ "$(grep -c '^supervise' "%(calls)s")" -ge 2 ]; do sleep 0.05; done; exit 3 ;;
esac
exit 0
"""
FAKE_SUPERVISE = """#!/bin/sh
echo "supervise $* | key=${CONCORD_SECRET_KEY_FILE:-} | static=${CONCORD_STATIC:-}" >> "%(calls)s"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sandbox(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "concord"
    calls = tmp_path / "calls"
    (home / "scripts").mkdir(parents=True)
    (home / "static").mkdir()
    (home / "static" / "concord.css").write_text("body { margin: 0; }\n")
    (home / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "run", home / "run")
    (home / "requirements.txt").write_text("")
    subprocess.run("sha256sum requirements.txt > .venv/.requirements.sha256", shell=True, cwd=home, check=True)
    fill = {"calls": calls, "root": ROOT, "python": sys.executable}
    for path, text in ((home / ".venv/bin/python", FAKE_PYTHON), (home / "scripts/supervise", FAKE_SUPERVISE)):
        path.write_text(text % fill)
        path.chmod(0o755)
    return home, calls


def run(home: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "CONCORD_SECRET_KEY_FILE", "PORT"}}
    return subprocess.run(
        [str(home / "run")],
        cwd=home,
        env={**clean, "PYTHON": sys.executable, "PORT": str(free_port()), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_run_makes_a_secret_key_of_its_own_and_gives_it_to_every_process(tmp_path):
    home, calls = sandbox(tmp_path)
    port = str(free_port())
    first = run(home, PORT=port)
    assert first.returncode == 1 and "The web server did not start" in first.stderr, first.stderr
    key_file = home / "var" / "secret_key"
    key = key_file.read_text().strip()
    assert len(key) == 50 and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    lines = calls.read_text().splitlines()
    started = [line for line in lines if "concord.secret_key" not in line]
    assert [line.split(" | ")[0].split()[:2] for line in started[:4]] == [
        ["manage.py", "collectstatic"],
        ["manage.py", "migrate"],
        ["manage.py", "seed_demo"],
        ["manage.py", "recover_jobs"],
    ]
    # Then, in the background in any order: the two task workers and the web server.
    assert sorted(line.split(" | ")[0] for line in started[4:]) == [
        f"-m concord.serve --port {port} --socket var/run/web.sock",
        "supervise --before-restart .venv/bin/python manage.py recover_jobs var/analyses-worker.log "
        ".venv/bin/python manage.py db_worker --no-startup-delay --interval 0.5 --queue-name analyses",
        "supervise --before-restart .venv/bin/python manage.py recover_jobs var/worker.log "
        ".venv/bin/python manage.py db_worker --no-startup-delay --interval 0.5 --queue-name default",
    ]
    assert {line.split(" | ")[1] for line in started} == {f"key={key_file}"}
    # Every process serves (or collects) the collected static files.
    assert {line.split(" | ")[2] for line in started} == {"static=collected"}

    calls.unlink()
    run(home)
    assert key_file.read_text().strip() == key  # the same key on the next start
    again = [line for line in calls.read_text().splitlines() if "concord.secret_key" not in line]
    # Nothing changed among the static files: they are not collected again.
    assert [line.split()[1] for line in again[:3]] == ["migrate", "seed_demo", "recover_jobs"]
    assert len(again) == 6 and {line.split(" | ")[1] for line in again} == {f"key={key_file}"}

    # A changed source: collected again before anything else starts.
    calls.unlink()
    (home / "static" / "concord.css").write_text("body { margin: 1px; }\n")
    run(home)
    changed = [line for line in calls.read_text().splitlines() if "concord.secret_key" not in line]
    assert [line.split()[1] for line in changed[:2]] == ["collectstatic", "migrate"]


def test_run_uses_secret_key_when_it_is_set(tmp_path):
    home, calls = sandbox(tmp_path)
    run(home, SECRET_KEY="set-by-the-operator")
    assert not (home / "var" / "secret_key").exists()
    assert {line.split(" | ")[1] for line in calls.read_text().splitlines()} == {"key="}
