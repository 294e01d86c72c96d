"""Under CONCORD_ENV=production a login sets its session and CSRF cookies
Secure (and the session cookie HttpOnly), HTTP is redirected to HTTPS and
HTTPS answers carry HSTS: a real production process (its own SQLite file)
logs a user in through Django's test client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOGIN = """
import json
from django.contrib.auth import get_user_model
from django.test import Client

get_user_model().objects.create_user("alice", password="a-long-password-for-alice")
client = Client()
plain = client.get("/accounts/login/")
response = client.post("/accounts/login/", {"username": "alice", "password": "a-long-password-for-alice"}, secure=True)
print(json.dumps({
    "plain_status": plain.status_code,
    "plain_location": plain.get("Location"),
    "status": response.status_code,
    "hsts": response.get("Strict-Transport-Security"),
    "csp": response.get("Content-Security-Policy"),
    "cookies": {name: {"secure": bool(m["secure"]), "httponly": bool(m["httponly"]), "samesite": m["samesite"]}
                for name, m in response.cookies.items()},
}))
"""


def production(*args: str, database: Path) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "CONCORD_ENV", "DJANGO_SETTINGS_MODULE", "CONCORD_DEBUG", "DATABASE_URL"}
    }
    env = {
        **clean,
        "DJANGO_SETTINGS_MODULE": "concord.settings",
        "CONCORD_ENV": "production",
        "SECRET_KEY": "production-test-" + "k" * 50,
        "ALLOWED_HOSTS": "testserver",
        "CONCORD_SQLITE_PATH": str(database),
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_production_login_cookies_are_secure(tmp_path):
    database = tmp_path / "production.sqlite3"
    migrated = production("migrate", "-v", "0", database=database)
    assert migrated.returncode == 0, migrated.stderr
    result = production("shell", "-c", LOGIN, database=database)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain_status"] == 301 and seen["plain_location"].startswith("https://")
    assert seen["status"] == 302, seen
    session, csrf = seen["cookies"]["sessionid"], seen["cookies"]["csrftoken"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
    assert csrf["secure"] and csrf["samesite"] == "Lax"
    assert seen["hsts"].startswith("max-age=31536000") and "includeSubDomains" in seen["hsts"]
    assert "script-src 'self'" in seen["csp"]
