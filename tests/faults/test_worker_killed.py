"""kill -9 of a task worker in the middle of an analysis: ``recover_jobs``
queues the work again, a new worker finishes it with the result an
uninterrupted run gives, and no half-written result is ever visible.

Real processes on a temporary SQLite file: ``manage.py db_worker`` started as
./run starts it, killed with SIGKILL while the job runs."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scoring import services

ROOT = Path(__file__).resolve().parents[2]
# Real processes on a SQLite file of their own: the PostgreSQL pass of .ci/run would only repeat them.
pytestmark = pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")

# The run script's worker id: host:pid:boot (see ./run and services.worker_id).
AS_RUN_STARTS_IT = (
    "boot=$(head -c 8 /proc/sys/kernel/random/boot_id 2>/dev/null || echo -); "
    'exec "$0" manage.py db_worker --queue-name "*" --no-startup-delay --interval 0.1 --worker-id "${HOSTNAME:0:40}:$$:$boot"'
)

ORDERING = textwrap.dedent(
    """
    import django, random
    django.setup()
    from django.contrib.auth.models import User
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    organiser = User.objects.create_user("org", password="x")
    names = ["a1", "a2", "a3", "a4"]
    for name in names:
        User.objects.create_user(name, password="x")
    campaign = create_campaign(creator=organiser, kind="ordering", name="O", overlap=4)
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    rng = random.Random(1)
    import_topics(campaign=campaign, topics=[
        {"external_id": f"t{t}", "data": {"items": [{"id": f"i{i}", "text": f"s{i}"} for i in range(8)]}} for t in range(10)])
    for topic in campaign.topics.all():
        for a in topic.assignments.select_related("assessor"):
            order = [f"i{i}" for i in range(8)]
            i = rng.randrange(7)
            order[i], order[i + 1] = order[i + 1], order[i]
            save_judgment(topic=topic, assessor=a.assessor, payload={"order": order}, status="submitted", version=0)
"""
)

PAIRS = textwrap.dedent(
    """
    import django, random
    django.setup()
    from django.contrib.auth.models import User
    from kinds.pairs.pools import build_pools
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    organiser = User.objects.create_user("org", password="x")
    names = ["ann", "ben", "cat"]
    for name in names:
        User.objects.create_user(name, password="x")
    rng = random.Random(5)
    campaign = create_campaign(creator=organiser, kind="pairs", name="Eval", overlap=3)
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    queries = {f"q{q}": f"Query {q}" for q in range(12)}
    truth = {(q, c): rng.random() < 0.35 for q in queries for c in range(8)}
    runs = [{"name": f"sys{s}", "data": {"results": {
        q: [{"id": f"c{c}", "text": f"cand {c}"} for c in range(8)
            if (truth[(q, c)] and rng.random() < 0.5 + 0.12 * s) or (not truth[(q, c)] and rng.random() < 0.1 + 0.05 * s)]
        for q in queries}}} for s in range(4)]
    for topic in build_pools(campaign=campaign, queries=queries, runs=runs):
        for a in topic.assignments.select_related("assessor"):
            flip = 0.1 + 0.1 * names.index(a.assessor.username)
            matches = {c["id"]: truth[(topic.external_id, int(c["id"][1:]))] != (rng.random() < flip)
                       for c in topic.data["candidates"]}
            save_judgment(topic=topic, assessor=a.assessor, payload={"matches": matches}, status="submitted", version=0)
"""
)

# Queues the analysis as the API does: the job, then its task on commit.
START = textwrap.dedent(
    """
    import django, json, sys
    django.setup()
    from django.db import transaction
    from annotate.models import Campaign
    from scoring import services
    with transaction.atomic():
        job = services.start_analysis(campaign=Campaign.objects.get(), analysis=sys.argv[1], params=json.loads(sys.argv[2]), user=None)
    print(job.pk)
    """
)

# Big enough that the worker is surely in the middle of it when killed: a few seconds.
NOISE = {"ratios": [0, 0.5, 1], "seeds": 20}
# (n_resamples is bounded at 10000, kinds/pairs/analyses.py ANALYSIS_PARAMS: the
# same work per chunk comes from more Random truth sets per chunk.)
EVALUATION = {"n_random": 360, "n_resamples": 10000, "chunk_size": 30, "seed": 3}


@pytest.fixture
def env(tmp_path, migrated_sqlite):
    environment = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    environment.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "faults.sqlite3")),
    )
    return environment


def python(env, *args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def database(env) -> sqlite3.Connection:
    connection = sqlite3.connect(env["CONCORD_SQLITE_PATH"], timeout=30)
    connection.row_factory = sqlite3.Row
    return connection


def query(env, sql: str, *params) -> list[sqlite3.Row]:
    connection = database(env)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def job_row(env, job_id: int) -> sqlite3.Row:
    return query(env, "SELECT * FROM scoring_job WHERE id = ?", job_id)[0]


def tasks(env) -> list[dict]:
    rows = query(
        env,
        "SELECT task_path, status, worker_ids, args_kwargs, exception_class_path FROM django_tasks_database_dbtaskresult",
    )
    return [
        {**dict(r), "worker_ids": json.loads(r["worker_ids"]), "args": json.loads(r["args_kwargs"])["args"]}
        for r in rows
    ]


def prepared(env, seed_script: str) -> None:
    python(env, "-c", seed_script)
    python(
        env, "manage.py", "db_worker", "--queue-name", "*", "--batch", "--no-startup-delay"
    )  # the live reports the judgments queued


def kill_when(env, worker: subprocess.Popen, job_id: int, ready, *, kill: bool = True) -> sqlite3.Row:
    """SIGKILL the worker as soon as ``ready(job row)``; until then, a job that
    is not done shows no result. Returns the job as the kill left it."""
    deadline = time.monotonic() + 300  # a guard against hanging, not a measurement
    while True:
        job = job_row(env, job_id)
        assert job["status"] != "done", "the job finished before the worker could be killed: make it bigger"
        assert job["result"] is None
        if ready(job):
            break
        assert worker.poll() is None, worker.stdout.read()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    if not kill:
        return job
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    return job_row(env, job_id)


def result_of(env, job_id: int) -> dict:
    job = job_row(env, job_id)
    assert job["status"] == "done", job["message"]
    return json.loads(job["result"])


def uninterrupted(env, analysis: str, params: dict) -> dict:
    job_id = int(python(env, "-c", START, analysis, json.dumps(params)))
    python(env, "manage.py", "db_worker", "--queue-name", "*", "--batch", "--no-startup-delay")
    return result_of(env, job_id)


def test_a_plain_job_killed_mid_run_runs_again_from_the_start(env):
    prepared(env, ORDERING)
    reports_before = query(env, "SELECT id, computed_at, judgments_seen FROM scoring_report ORDER BY id")
    job_id = int(python(env, "-c", START, "noise", json.dumps(NOISE)))
    worker = subprocess.Popen(
        ["bash", "-c", AS_RUN_STARTS_IT, sys.executable],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # Well into the analysis: progress reports come from inside it.
        kill_when(env, worker, job_id, lambda job: job["status"] == "running" and job["progress"] > 0, kill=False)
        # A worker that runs is left alone.
        assert "Nothing to recover." in python(env, "manage.py", "recover_jobs")
        kill_when(env, worker, job_id, lambda job: True)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()

    job = job_row(env, job_id)
    assert (job["status"], job["result"], job["finished_at"]) == ("running", None, None)
    assert query(env, "SELECT id, computed_at, judgments_seen FROM scoring_report ORDER BY id") == reports_before
    [lost] = [t for t in tasks(env) if t["task_path"] == "scoring.tasks.run_analysis"]
    # The shell's worker id is the one services.worker_id gives, and recovery sees it is gone.
    assert (lost["status"], lost["worker_ids"]) == ("RUNNING", [services.worker_id(worker.pid)])

    output = python(env, "manage.py", "recover_jobs")
    assert f"job {job_id} queued again from the start" in output, output
    assert "lost task marked failed: scoring.tasks.run_analysis" in output
    job = job_row(env, job_id)
    assert (job["status"], job["progress"], job["result"]) == ("queued", 0.0, None)
    by_status = sorted(
        (t["status"], t["exception_class_path"]) for t in tasks(env) if t["task_path"] == "scoring.tasks.run_analysis"
    )
    assert by_status == [("FAILED", "scoring.services.WorkerLost"), ("READY", "")]
    assert "Nothing to recover." in python(env, "manage.py", "recover_jobs")  # the queued task will run it

    python(env, "manage.py", "db_worker", "--queue-name", "*", "--batch", "--no-startup-delay")
    assert result_of(env, job_id) == uninterrupted(env, "noise", NOISE)


def test_a_chunked_job_killed_mid_run_runs_only_its_unfinished_chunks(env):
    prepared(env, PAIRS)
    job_id = int(python(env, "-c", START, "evaluation", json.dumps(EVALUATION)))
    worker = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--queue-name",
            "*",
            "--no-startup-delay",
            "--interval",
            "0.1",
            "--worker-id",
            "lost-worker",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        job = kill_when(env, worker, job_id, lambda job: job["chunks_done"] >= 3)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()

    total = job["chunks_total"]
    assert total == 12 and 3 <= job["chunks_done"] < total and job["result"] is None
    finished = dict(
        query(
            env,
            "SELECT `index`, finished_at FROM scoring_jobchunk WHERE job_id = ? AND finished_at IS NOT NULL",
            job_id,
        )
    )
    assert len(finished) == job["chunks_done"]
    chunk_tasks = [t for t in tasks(env) if t["task_path"] == "scoring.tasks.run_analysis_chunk"]
    # The chunk the worker was in, if it was in one (almost always: chunks take most of the time). A task
    # killed after its chunk finished, while it queued the campaign's next turn, lost nothing.
    running = sorted(t["args"][1] for t in chunk_tasks if t["status"] == "RUNNING")
    lost = [index for index in running if index not in finished]
    assert all(t["worker_ids"] == ["lost-worker"] for t in chunk_tasks if t["status"] != "READY")

    # A chunk given its turn whose task the worker had not yet queued when it was killed (scoring/dispatch.py
    # queues it just after the turn's commit): no task will ever run it, so recovery queues it without being told.
    given = [
        row[0]
        for row in query(
            env,
            "SELECT `index` FROM scoring_jobchunk WHERE job_id = ? AND finished_at IS NULL AND NOT waits_turn",
            job_id,
        )
    ]
    tasked = {t["args"][1] for t in chunk_tasks if t["status"] in ("READY", "RUNNING")}
    untasked = sorted(set(given) - tasked)
    # Another machine's worker (an id this machine cannot check): its tasks are not touched without the operator's word.
    first = python(env, "manage.py", "recover_jobs")
    if untasked:
        assert first == f"job {job_id}: chunks {', '.join(map(str, untasked))} queued again\n", first
    else:
        assert "Nothing to recover." in first, first
    still = [t for t in tasks(env) if t["task_path"] == "scoring.tasks.run_analysis_chunk" and t["status"] == "RUNNING"]
    assert sorted(t["args"][1] for t in still) == running
    output = python(env, "manage.py", "recover_jobs", "--dead-worker", "lost-worker")
    if lost:
        assert f"job {job_id}: chunks {', '.join(map(str, lost))} queued again" in output, output
    chunk_tasks = [t for t in tasks(env) if t["task_path"] == "scoring.tasks.run_analysis_chunk"]
    assert not [t for t in chunk_tasks if t["status"] == "RUNNING"]
    assert sorted(t["args"][1] for t in chunk_tasks if t["status"] == "FAILED") == running
    # Every unfinished chunk has exactly one task that will run it, or waits its turn (scoring/dispatch.py:
    # one of the campaign's tasks in the queue at a time); finished ones have neither.
    queued = sorted(t["args"][1] for t in chunk_tasks if t["status"] == "READY")
    turns = [
        row[0] for row in query(env, "SELECT `index` FROM scoring_jobchunk WHERE job_id = ? AND waits_turn", job_id)
    ]
    assert len(queued) == 1 and sorted(queued + turns) == sorted(set(range(total)) - set(finished))

    python(env, "manage.py", "db_worker", "--queue-name", "*", "--batch", "--no-startup-delay")
    result = result_of(env, job_id)
    marks = ",".join("?" * len(finished))
    kept = dict(
        query(
            env,
            f"SELECT `index`, finished_at FROM scoring_jobchunk WHERE job_id = ? AND `index` IN ({marks})",
            job_id,
            *finished,
        )
    )
    assert kept == finished  # the chunks finished before the kill were not run again
    assert job_row(env, job_id)["chunks_done"] == total
    assert result == uninterrupted(env, "evaluation", EVALUATION)
