"""The production profile: refuses to start without SECRET_KEY, passes check --deploy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "SECRET_KEY",
            "CONCORD_ENV",
            "DJANGO_SETTINGS_MODULE",
            "CONCORD_DEBUG",
            "DATABASE_URL",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        }
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "concord.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", CONCORD_ENV="production", ALLOWED_HOSTS="concord.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when CONCORD_ENV=production" in result.stderr


def test_production_passes_the_deployment_checklist():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        CONCORD_ENV="production",
        SECRET_KEY="x" * 20 + "a-long-random-production-secret-key-0123456789",
        ALLOWED_HOSTS="concord.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CONCORD_DEBUG", "perhaps", "CONCORD_DEBUG='perhaps'"),
        ("CONCORD_SQLITE_TIMEOUT", "soon", "whole number"),
        ("CONCORD_ENV", "staging", "expected one of development, production"),
        ("CONCORD_STATIC", "hashed", "expected one of source, collected"),
    ],
)
def test_bad_environment_values_fail_loudly(name, value, message):
    result = manage("check", **{name: value})
    assert result.returncode != 0 and message in result.stderr


def test_debug_is_off_unless_asked_for():
    from django.conf import settings

    assert settings.DEBUG is False


# -- durability: SQLite synchronous (docs/operations.md, "What survives a failure") ----------------

SYNCHRONOUS_LEVELS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


@pytest.mark.django_db
def test_sqlite_connections_sync_every_commit_to_disk_by_default():
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's setting")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        level = cursor.fetchone()[0]
        cursor.execute("PRAGMA journal_mode")
        mode = cursor.fetchone()[0]
    assert (SYNCHRONOUS_LEVELS[level], mode) == ("FULL", "wal")


def test_sqlite_synchronous_can_be_relaxed_knowingly(tmp_path):
    read_back = (
        "from django.db import connection; c = connection.cursor(); c.execute('PRAGMA synchronous'); "
        "print('synchronous', c.fetchone()[0])"
    )
    result = manage(
        "shell",
        "-c",
        read_back,
        CONCORD_SQLITE_SYNCHRONOUS="normal",
        CONCORD_SQLITE_PATH=str(tmp_path / "relaxed.sqlite3"),
    )
    assert result.returncode == 0, result.stderr
    assert "synchronous 1" in result.stdout  # NORMAL


@pytest.mark.parametrize("value", ["FULL", "off", "sometimes", ""])
def test_a_bad_sqlite_synchronous_value_fails_loudly(value, tmp_path):
    result = manage("check", CONCORD_SQLITE_SYNCHRONOUS=value, CONCORD_SQLITE_PATH=str(tmp_path / "x.sqlite3"))
    assert result.returncode != 0
    assert "CONCORD_SQLITE_SYNCHRONOUS=" in result.stderr and "expected one of full, normal" in result.stderr


def test_postgresql_connections_get_a_lock_timeout():
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])",
        DATABASE_URL="postgres://u@127.0.0.1:1/x?options=-c%20statement_timeout%3D5000",
        CONCORD_PG_LOCK_TIMEOUT="7",
    )
    assert result.returncode == 0, result.stderr
    assert "-c statement_timeout=5000 -c lock_timeout=7000" in result.stdout


# -- the secret key: SECRET_KEY, or a file of its own (./run's var/secret_key) ----------------

SHOW_KEY = "from django.conf import settings; print('key', settings.SECRET_KEY)"


def test_the_key_file_is_read_and_serves_production(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text("  a-key-of-its-own-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEF\n")
    shown = manage("shell", "-c", SHOW_KEY, CONCORD_SECRET_KEY_FILE=str(key_file))
    assert shown.returncode == 0, shown.stderr
    assert "key a-key-of-its-own-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEF\n" in shown.stdout
    deploy = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        CONCORD_ENV="production",
        CONCORD_SECRET_KEY_FILE=str(key_file),
        ALLOWED_HOSTS="concord.example.org",
    )
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr


def test_secret_key_wins_over_the_key_file(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text("from-the-file")
    shown = manage("shell", "-c", SHOW_KEY, CONCORD_SECRET_KEY_FILE=str(key_file), SECRET_KEY="from-the-environment")
    assert "key from-the-environment\n" in shown.stdout


@pytest.mark.parametrize(("content", "message"), [(None, "cannot read it"), ("\n", "the file is empty")])
def test_a_key_file_that_is_missing_or_empty_fails_loudly(tmp_path, content, message):
    key_file = tmp_path / "secret_key"
    if content is not None:
        key_file.write_text(content)
    result = manage("check", CONCORD_SECRET_KEY_FILE=str(key_file))
    assert result.returncode != 0
    assert f"CONCORD_SECRET_KEY_FILE='{key_file}': {message}" in result.stderr


def test_secret_key_module_makes_a_key_of_its_own_readable_by_its_owner_only(tmp_path):
    from concord import secret_key

    made = secret_key.ensure(tmp_path / "var" / "secret_key")
    key = made.read_text().strip()
    assert made == (tmp_path / "var" / "secret_key").resolve()
    assert made.stat().st_mode & 0o777 == 0o600
    assert len(key) == 50 and not key.startswith("django-insecure")
    assert secret_key.ensure(made).read_text().strip() == key  # kept on the next start
    assert secret_key.ensure(tmp_path / "elsewhere").read_text().strip() != key  # each its own
    made.chmod(0o644)
    secret_key.ensure(made)
    assert made.stat().st_mode & 0o777 == 0o600
    made.write_text("")
    assert len(secret_key.ensure(made).read_text().strip()) == 50
    assert [p.name for p in made.parent.iterdir()] == ["secret_key"]  # nothing left aside
