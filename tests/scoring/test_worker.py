"""The real embedded queue: submissions enqueue through django-tasks-db and a
``db_worker`` process computes the reports, one recompute per burst."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SUBMIT_BURST = textwrap.dedent(
    """
    import django; django.setup()
    from django.contrib.auth.models import User
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    organiser = User.objects.create_user("org", password="x")
    campaign = create_campaign(creator=organiser, kind="pairs", name="W", overlap=2)
    for name in ("ann", "ben"):
        User.objects.create_user(name, password="x")
        add_member(campaign=campaign, username=name, role="assessor")
    topics = [{"external_id": f"q{t}", "data": {"query": f"Q{t}", "candidates": [{"id": f"c{c}", "text": "x"} for c in range(3)]}} for t in range(5)]
    import_topics(campaign=campaign, topics=topics)
    for topic in campaign.topics.all():
        for a in topic.assignments.select_related("assessor"):
            matches = {f"c{c}": (c + len(a.assessor.username) + topic.pk) % 2 == 0 for c in range(3)}
            save_judgment(topic=topic, assessor=a.assessor, payload={"matches": matches}, status="submitted", version=0)
"""
)

READ_STATE = textwrap.dedent(
    """
    import django, json; django.setup()
    from django_tasks_db.models import DBTaskResult
    from scoring.models import Report, TopicPartial
    campaign_report = Report.objects.filter(name="agreement").first()
    print(json.dumps({
        "queued": list(DBTaskResult.objects.values_list("task_path", "status")),
        "topic_reports": TopicPartial.objects.count(),
        "seen": campaign_report.judgments_seen if campaign_report else None,
        "kappa": campaign_report.data["pairs"][0]["kappa"] if campaign_report else None,
    }))
    """
)


@pytest.fixture
def environment(tmp_path, migrated_sqlite):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "worker.sqlite3")),
    )
    return env


def run(env, *args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_db_worker_computes_the_reports_once_per_burst(environment):
    run(environment, "-c", SUBMIT_BURST)
    before = json.loads(run(environment, "-c", READ_STATE))
    # Ten submissions in ten transactions queued a single recompute.
    assert before["queued"] == [["scoring.tasks.recompute_campaign_reports", "READY"]]
    assert before["seen"] is None
    run(environment, "manage.py", "db_worker", "--batch", "--no-startup-delay")
    after = json.loads(run(environment, "-c", READ_STATE))
    assert after["queued"] == [["scoring.tasks.recompute_campaign_reports", "SUCCESSFUL"]]
    assert (after["topic_reports"], after["seen"]) == (5, 10)
    assert after["kappa"] == 1.0  # both assessors answer by the same rule


@pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")
def test_two_workers_share_a_first_build_in_chunks(environment):
    """Chunks of 2 topics: the rebuild splits the 5 stale topics into 3 chunk tasks that
    two ``db_worker`` processes take from the queue at once (concurrent writers on one
    SQLite file), then the merge; the reports equal a recompute from scratch."""
    environment["CONCORD_BUILD_CHUNK"] = "2"
    run(environment, "-c", SUBMIT_BURST)
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--batch", "--interval", "0.1", "--no-startup-delay"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for worker in workers:
        _, errors = worker.communicate(timeout=300)
        assert worker.returncode == 0, errors
    run(environment, "manage.py", "db_worker", "--batch", "--no-startup-delay")  # whatever a worker left queued
    after = json.loads(run(environment, "-c", READ_STATE))
    paths = [path for path, status in after["queued"] if status == "SUCCESSFUL"]
    assert len(paths) == len(after["queued"])
    assert paths.count("scoring.tasks.build_reports_chunk") == 3
    assert (after["topic_reports"], after["seen"], after["kappa"]) == (5, 10, 1.0)
    check = run(environment, "manage.py", "recompute_reports", "--full", "--check")
    assert "equal to a recompute from scratch" in check
