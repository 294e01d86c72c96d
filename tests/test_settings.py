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
    ],
)
def test_bad_environment_values_fail_loudly(name, value, message):
    result = manage("check", **{name: value})
    assert result.returncode != 0 and message in result.stderr


def test_debug_is_off_unless_asked_for():
    from django.conf import settings

    assert settings.DEBUG is False
