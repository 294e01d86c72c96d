"""The task worker outlasts a database locked for longer than its busy timeout
(django-tasks-db's own worker exits on the first "database is locked", and
the reports of every campaign would stop).

A real ``manage.py db_worker`` (scoring's) on a SQLite file of its own with a
1 s busy timeout, while this test holds the write lock for 4 s; then it runs
the rebuild that was waiting. A task that meets a transient error is queued
again rather than marked failed (the second test, in-process)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import OperationalError
from django.utils import timezone

ROOT = Path(__file__).resolve().parents[2]

SEED = textwrap.dedent(
    """
    import django
    django.setup()
    from django.contrib.auth.models import User
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    organiser = User.objects.create(username="org")
    ann = User.objects.create(username="ann")
    campaign = create_campaign(creator=organiser, kind="pairs", name="Locked", overlap=1)
    add_member(campaign=campaign, username="ann", role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[
        {"external_id": "q1", "data": {"query": "Q", "candidates": [{"id": "c1", "text": "C"}]}}])
    save_judgment(topic=topic, assessor=ann, payload={"matches": {"c1": True}}, status="submitted", version=0)
"""
)


@pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")
def test_the_worker_waits_out_a_locked_database_and_then_works(tmp_path, migrated_sqlite):
    database = migrated_sqlite(tmp_path / "locked.sqlite3")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_SQLITE_PATH=str(database),
        CONCORD_SQLITE_TIMEOUT="1",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_TASKS_BACKEND="db",
    )
    for args in (["-c", SEED],):
        done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    log = tmp_path / "worker.log"
    lock = sqlite3.connect(database, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 300  # a guard against hanging, not a measurement
        while "database is unavailable" not in log.read_text():
            assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        time.sleep(4)  # four busy timeouts more
        assert worker.poll() is None, log.read_text()
        lock.execute("ROLLBACK")
        while not report_written(database):
            assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        text = log.read_text()
        assert text.count("database is unavailable") == 1  # logged once, not at every retry
        assert "available again" in text
    finally:
        lock.close()
        worker.terminate()
        worker.wait(timeout=60)


def report_written(database: Path) -> bool:
    with sqlite3.connect(database, timeout=30) as db:
        row = db.execute("SELECT judgments_seen FROM scoring_report WHERE name = 'agreement'").fetchone()
    return row is not None and row[0] == 1


# Committed rows: the worker closes a connection left in a transaction, as between requests.
@pytest.mark.django_db(transaction=True)
def test_a_task_that_meets_a_busy_database_is_queued_again_until_its_tries_run_out():
    from django_tasks_db.models import DBTaskResult

    from scoring.management.commands.db_worker import MAX_TRIES, Worker

    worker = Worker(
        queue_names=["default"],
        interval=0.1,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test:1:boot",
        excluded_queue_names=[],
    )
    row = DBTaskResult.objects.create(
        task_path="scoring.tasks.recompute_campaign_reports",
        args_kwargs={"args": [1], "kwargs": {}},
        backend_name="default",
        queue_name="default",
        run_after=timezone.now(),
        status="RUNNING",
        worker_ids=["test:1:boot"],
    )
    before = timezone.now()
    worker.settle(row, OperationalError("database is locked"))
    row.refresh_from_db()
    assert row.status == "READY" and before + timedelta(seconds=0.9) < row.run_after < before + timedelta(seconds=5)
    DBTaskResult.objects.filter(pk=row.pk).update(status="RUNNING", worker_ids=["w"] * MAX_TRIES)
    row.refresh_from_db()
    worker.settle(row, OperationalError("database is locked"))
    row.refresh_from_db()
    assert row.status == "FAILED" and "database is locked" in row.traceback
    # Any other error fails the task at once, as before.
    other = DBTaskResult.objects.create(
        task_path="scoring.tasks.recompute_campaign_reports",
        args_kwargs={"args": [1], "kwargs": {}},
        backend_name="default",
        queue_name="default",
        run_after=timezone.now(),
        status="RUNNING",
        worker_ids=["test:1:boot"],
    )
    worker.settle(other, ValueError("a bug"))
    other.refresh_from_db()
    assert other.status == "FAILED"
