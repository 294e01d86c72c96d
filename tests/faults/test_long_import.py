"""A 120,000-row import while assessors of other campaigns save.

Real processes on a SQLite file of their own, as ./run starts them: gunicorn,
the task workers (scoring's db_worker), and ``manage.py import_judgments``
with a CrowdTruth CSV of 120,000 rows (12,000 items x 10 workers). The busy
timeout is 2 s (``CONCORD_SQLITE_TIMEOUT``), so a lock held longer than that
would show: an import held for the whole of one transaction (over 20 s) would
make saves elsewhere answer 500 and both workers exit. Every save answers 200, or 503 with Retry-After (and is sent again), never
anything else; no worker dies; once the import is in, the other campaigns'
reports count every submission, and the imported campaign's rebuild is queued.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    # Real processes on a SQLite file of their own: the PostgreSQL pass of .ci/run would only repeat them.
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file"),
    pytest.mark.load,
]
ITEMS, PER_ITEM = 12_000, 10
OTHERS = 3  # campaigns whose assessors save during the import
CANDIDATES = ["c1", "c2", "c3"]
TOPICS = 1500  # each other campaign's: more than its assessor submits during the import

SEED = textwrap.dedent(
    """
    import django, json
    django.setup()
    from django.contrib.auth.models import User
    from concord import tokens
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member
    organiser = User.objects.create(username="org")
    big = create_campaign(creator=organiser, kind="pairs", name="Crowd", overlap=10)
    others = {}
    for n in range(%(others)d):
        campaign = create_campaign(creator=organiser, kind="pairs", name=f"Other {n}", overlap=1)
        name = f"assessor{n}"
        token = tokens.issue(User.objects.create(username=name))[1]
        add_member(campaign=campaign, username=name, role="assessor")
        import_topics(campaign=campaign, topics=[
            {"external_id": f"q{t}", "data": {"query": f"Q{t}", "candidates": [{"id": c, "text": c} for c in %(candidates)r]}}
            for t in range(%(topics)d)])
        others[campaign.pk] = token
    print(json.dumps({"big": big.pk, "others": others}))
    """
) % {"others": OTHERS, "candidates": CANDIDATES, "topics": TOPICS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def crowdtruth(path: Path) -> None:
    rng = random.Random(25)
    workers = [f"W{n:04d}" for n in range(400)]
    with path.open("w") as out:
        out.write("!amt_worker_ids,orig_id,response,gold\n")
        for item in range(ITEMS):
            gold = item % 2
            for worker in rng.sample(workers, PER_ITEM):
                out.write(f"{worker},{item},{gold if rng.random() < 0.8 else 1 - gold},{gold}\n")


def start(env: dict, log: Path, *args: str) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


class Saver(threading.Thread):
    """One assessor submitting a judgment of each of their topics in turn (a 503
    is sent again a moment later, as the judging page does), until told to stop."""

    def __init__(self, port: int, campaign: int, token: str) -> None:
        super().__init__(daemon=True)
        self.port, self.campaign, self.token = port, campaign, token
        self.statuses: list[tuple[float, int]] = []
        self.submitted = 0
        self.halt = threading.Event()

    def run(self) -> None:
        rng = random.Random(self.campaign)
        topic = 0
        while not self.halt.is_set() and topic < TOPICS:
            body = json.dumps(
                {
                    "payload": {"matches": {c: rng.random() < 0.5 for c in CANDIDATES}},
                    "status": "submitted",
                    "version": 0,
                }
            )
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            connection.request(
                "PUT",
                f"/api/campaigns/{self.campaign}/topics/q{topic}/judgment/",
                body=body,
                headers={"Content-Type": "application/json", "Authorization": f"Token {self.token}"},
            )
            answer = connection.getresponse()
            answer.read()
            connection.close()
            self.statuses.append((time.monotonic(), answer.status))
            if answer.status == 200:
                self.submitted += 1
                topic += 1
            elif answer.status == 503 and answer.getheader("Retry-After"):
                time.sleep(0.2)  # then the same save again
            else:
                return  # the test fails on the status recorded
            time.sleep(0.1)


def wait_until(condition, what: str, limit: float = 600) -> None:
    deadline = time.monotonic() + limit  # a guard against hanging, not a measurement
    while not condition():
        assert time.monotonic() < deadline, f"not within {limit:.0f} s: {what}"
        time.sleep(0.5)


def test_a_long_import_stops_no_campaign_and_no_worker(tmp_path, migrated_sqlite):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    database = migrated_sqlite(tmp_path / "long-import.sqlite3")
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_SQLITE_PATH=str(database),
        CONCORD_SQLITE_TIMEOUT="2",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_TASKS_BACKEND="db",
        ALLOWED_HOSTS="127.0.0.1",
        CONCORD_LOG_LEVEL="WARNING",
    )
    for args in (["-c", SEED],):
        done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    seeded = json.loads(done.stdout)
    csv = tmp_path / "crowdtruth.csv"
    crowdtruth(csv)

    port = free_port()
    logs = {name: tmp_path / f"{name}.log" for name in ("web", "reports", "reports2", "analyses")}
    web = start(env, logs["web"], "-m", "gunicorn", "concord.wsgi", "-w", "2", "-b", f"127.0.0.1:{port}")
    worker = ["manage.py", "db_worker", "--no-startup-delay", "--interval", "0.2", "--queue-name"]
    # Two on the reports queue: the imported campaign's first rebuild takes minutes
    # (12,000 topics x 10 assessors), and the other campaigns' reports must not wait
    # for it (a matter of the rebuild's length, not of the import's).
    workers = [
        start(env, logs["reports"], *worker, "default"),
        start(env, logs["reports2"], *worker, "default"),
        start(env, logs["analyses"], *worker, "analyses"),
    ]
    savers = [Saver(port, int(campaign), token) for campaign, token in seeded["others"].items()]
    try:
        wait_until(lambda: answers(port), "gunicorn up", 120)
        for saver in savers:
            saver.start()
        wait_until(lambda: all(s.submitted for s in savers), "a first save in each campaign", 120)
        began = time.monotonic()
        imported = subprocess.run(
            [sys.executable, "manage.py", "import_judgments", str(seeded["big"]), str(csv)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        ended = time.monotonic()
        print(f"import {ended - began:.1f} s")
        assert imported.returncode == 0, imported.stderr
        assert "Imported 120000 judgments of 12000 topics" in imported.stdout
        for saver in savers:
            saver.halt.set()
            saver.join(timeout=180)
        statuses = [status for saver in savers for _, status in saver.statuses]
        assert set(statuses) <= {200, 503}
        # Saves went on during the import: every campaign saved while it was written.
        for saver in savers:
            assert any(began < at < ended and status == 200 for at, status in saver.statuses), saver.statuses[-5:]
        # Reports catch up: each other campaign's report counts every submission.
        for saver in savers:
            wait_until(lambda s=saver: seen(database, s.campaign) == s.submitted, f"campaign {saver.campaign} fresh")
        print(f"caught up {time.monotonic() - ended:.1f} s after")
        assert all(w.poll() is None for w in workers), [log.read_text()[-2000:] for log in logs.values()]
        with sqlite3.connect(database) as db:
            assert (
                db.execute(
                    "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'FAILED'"
                ).fetchone()[0]
                == 0
            )
            assert db.execute("SELECT count(*) FROM annotate_importfence").fetchone()[0] == 0
            judgments = db.execute(
                "SELECT count(*) FROM annotate_judgment j JOIN annotate_topic t ON j.topic_id = t.id "
                "WHERE t.campaign_id = ?",
                (seeded["big"],),
            ).fetchone()[0]
            assert judgments == ITEMS * PER_ITEM
            # The imported campaign's own rebuild: queued or under way (it takes minutes).
            rebuild = db.execute(
                "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status IN ('READY', 'RUNNING', 'SUCCESSFUL') "
                "AND task_path = 'scoring.tasks.recompute_campaign_reports' AND args_kwargs LIKE ?",
                (f"%[{seeded['big']}]%",),
            ).fetchone()[0]
            assert rebuild >= 1
    finally:
        for saver in savers:
            saver.halt.set()
        web.terminate()
        for process in workers:
            process.kill()  # one may be in the middle of the imported campaign's rebuild
        for process in (web, *workers):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/accounts/login/")
        return connection.getresponse().status == 200
    except (TimeoutError, ConnectionError, http.client.HTTPException):
        return False


def seen(database: Path, campaign: int) -> int:
    with sqlite3.connect(database, timeout=30) as db:
        row = db.execute(
            "SELECT judgments_seen FROM scoring_report WHERE campaign_id = ? AND name = 'agreement'", (campaign,)
        ).fetchone()
    return row[0] if row else -1
