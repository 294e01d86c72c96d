"""Scale-out: the same chunked analysis on the RQ backend (a real redis-server,
two rqworker processes) gives exactly the embedded database backend's result."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from kinds.pairs.tests.test_evaluation import CHUNKS, SETUP, START, evaluate_with, run

ROOT = Path(__file__).resolve().parents[2]

RQ_RESULT = textwrap.dedent(
    """
    import django, json
    django.setup()
    import django_rq
    from rq.job import Job as RQJob
    from rq.registry import FinishedJobRegistry
    from scoring.models import Job
    queue = django_rq.get_queue("default")
    finished = FinishedJobRegistry(queue=queue)
    names = sorted({RQJob.fetch(i, connection=queue.connection).worker_name or "" for i in finished.get_job_ids()})
    job = Job.objects.get(analysis="evaluation")
    print(json.dumps({"status": job.status, "result": job.result, "done": job.chunks_done, "workers": names}))
    """
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: bash .ci/run installs it (apt-get install redis-server)")
    port = free_port()
    server = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


def evaluate_with_rq(tmp_path: Path, redis_url: str, migrated_sqlite) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "rq.sqlite3")),
        CONCORD_TASKS_BACKEND="rq",
        REDIS_URL=redis_url,
    )
    run(env, "-c", SETUP)
    run(env, "-c", START)  # the chunks wait in Redis
    workers = [
        run(
            env,
            "manage.py",
            "rqworker",
            "default",
            "analyses",
            "--job-class",
            "django_tasks_rq.Job",
            "--burst",
            "--name",
            f"rq{i}",
            background=True,
        )
        for i in range(2)
    ]
    for worker in workers:
        output, _ = worker.communicate(timeout=600)
        assert worker.returncode == 0, output
    return json.loads(run(env, "-c", RQ_RESULT))


def test_two_rq_workers_match_the_embedded_backend(tmp_path, redis_url, migrated_sqlite):
    embedded = evaluate_with(1, tmp_path, migrated_sqlite)
    scaled = evaluate_with_rq(tmp_path, redis_url, migrated_sqlite)
    assert scaled["status"] == "done" and scaled["done"] == CHUNKS
    assert scaled["result"] == embedded["result"]
    assert set(scaled["workers"]) <= {"rq0", "rq1"} and scaled["workers"]
