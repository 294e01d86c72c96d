"""System evaluation under every truth set, as a chunked job."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from annotate.services.campaigns import create_campaign
from kinds.pairs.analyses import returned_matrix
from kinds.pairs.partials import system_runs
from kinds.pairs.report import votes
from kinds.pairs.stats import consensus, random_truth_sets
from scoring import services as scoring_services
from scoring.charts import specs_in
from scoring.models import Job, JobChunk
from scoring.selectors import submitted_judgments
from stats.significance import compare_statements, compare_systems, summarize_against_baseline

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]

BUILD = textwrap.dedent(
    """
    import random
    from django.contrib.auth.models import User
    from kinds.pairs.pools import build_pools
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member

    def build(organiser, names):
        rng = random.Random(5)
        campaign = create_campaign(creator=organiser, kind="pairs", name="Eval", overlap=len(names))
        for name in names:
            add_member(campaign=campaign, username=name, role="assessor")
        queries = {f"q{q}": f"Query {q}" for q in range(12)}
        truth = {(q, c): rng.random() < 0.35 for q in queries for c in range(8)}
        runs = []
        for s in range(4):
            recall, noise = 0.5 + 0.12 * s, 0.1 + 0.05 * s
            runs.append({"name": f"sys{s}", "data": {"results": {
                q: [{"id": f"c{c}", "text": f"cand {c}"} for c in range(8)
                    if (truth[(q, c)] and rng.random() < recall) or (not truth[(q, c)] and rng.random() < noise)]
                for q in queries}}})
        topics = build_pools(campaign=campaign, queries=queries, runs=runs)
        strict = {name: 0.1 * i for i, name in enumerate(names)}
        for topic in topics:
            for a in topic.assignments.select_related("assessor"):
                matches = {c["id"]: truth[(topic.external_id, int(c["id"][1:]))] != (rng.random() < 0.1 + strict[a.assessor.username])
                           for c in topic.data["candidates"]}
                save_judgment(topic=topic, assessor=a.assessor, payload={"matches": matches}, status="submitted", version=0)
        return campaign
"""
)
PARAMS = {"n_random": 24, "n_resamples": 200, "chunk_size": 5, "seed": 3}


@pytest.fixture
def evaluated(people, django_capture_on_commit_callbacks):
    namespace: dict = {}
    exec(BUILD, namespace)
    campaign = namespace["build"](people["organiser"], ["alice", "bob", "carol"])
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_services.start_analysis(campaign=campaign, analysis="evaluation", params=PARAMS, user=None)
    return campaign, Job.objects.get(pk=job.pk)


def test_chunks_combine_into_the_whole_analysis(evaluated):
    campaign, job = evaluated
    assert (job.status, job.chunks_total, job.chunks_done) == ("done", 5, 5), job.message
    assert JobChunk.objects.filter(job=job, finished_at__isnull=False).count() == 5
    # Independently, all at once with the library.
    v = votes(list(campaign.topics.order_by("position")), submitted_judgments(campaign))
    returned = returned_matrix(v, system_runs(campaign.runs.all()))
    query_of = {t.external_id: i for i, t in enumerate(campaign.topics.order_by("position"))}
    queries = np.array([query_of[t] for t, _ in v.items])

    def compare(truth):
        return compare_systems(returned, truth, queries, n_resamples=200, seed=3)

    base = compare(consensus(v.matrix))
    assert job.result["f1"]["consensus"] == pytest.approx(base.f1.tolist())
    sets = random_truth_sets(v.matrix, n_sets=24, seed=3)
    statements = np.array([compare(t).statements for t in sets])
    summary = summarize_against_baseline(statements, base.statements)
    assert job.result["random"]["mean_sensitivity"] == pytest.approx(summary.mean_sensitivity)
    assert job.result["random"]["mean_disagreement"] == pytest.approx(summary.mean_disagreement)
    assert job.result["random"]["n_reversals"] == summary.n_reversals
    rows = {row["truth"]: row for row in job.result["table2"]}
    union = compare_statements(compare(np.nanmax(v.matrix, axis=1)).statements, base.statements)
    assert rows["union"]["sensitivity"] == pytest.approx(float(union.sensitivity))
    assert set(rows) == {"consensus", "union", "intersection", "single:alice", "single:bob", "single:carol", "random:0"}
    assert len(job.result["pairs"]) == 6 and len(job.result["statements"]["consensus"]) == 6


def test_statement_and_comparison_exports(api, people, evaluated):
    campaign, job = evaluated
    client = api(people["admin"])
    statements = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "statements"}
                ).content.decode()
            )
        )
    )
    assert len(statements) == 7 * 6 and statements[0]["truth"] == "consensus"
    assert statements[0]["statement"] == job.result["statements"]["consensus"][0]
    table = client.get(
        f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "comparisons"}
    ).content.decode()
    assert table.splitlines()[-1].startswith("random (mean),")
    qrels = client.get(
        f"/api/campaigns/{campaign.pk}/export/", {"format": "qrels", "truth": "random:5"}
    ).content.decode()
    v = votes(list(campaign.topics.order_by("position")), submitted_judgments(campaign))
    fifth = random_truth_sets(v.matrix, n_sets=6, seed=0)[5]
    assert [int(line.split()[3]) for line in qrels.splitlines()] == [int(x) for x in fifth]


def test_result_page_shows_table2_and_figure6(client, people, evaluated):
    campaign, job = evaluated
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="table2"' in page and "Random (mean of 24)" in page
    assert len(specs_in(page)[0]["datasets"]) == 4  # one line per system


def test_evaluation_needs_two_systems(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="E", overlap=1)
    job = Job.objects.create(campaign=campaign, analysis="evaluation", params={})
    scoring_services.run_job(job.pk)  # a known failure (InvalidInput): recorded for the user, not raised
    job = Job.objects.get(pk=job.pk)
    assert job.status == "failed"
    assert job.message == "campaign: needs the results of at least two systems (runs with results)"


# -- one worker or two: the same result -------------------------------------------------------

SETUP = (
    "import django\ndjango.setup()\n"
    + BUILD
    + textwrap.dedent(
        """
    organiser = User.objects.create_user("org", password="x")
    for name in ("ann", "ben", "cat"):
        User.objects.create_user(name, password="x")
    build(organiser, ["ann", "ben", "cat"])
    """
    )
)
# The job starts here, so the workers waiting for tasks get only its chunks.
START = textwrap.dedent(
    """
    import django
    django.setup()
    from django.db import transaction
    from annotate.models import Campaign
    from scoring import services
    from scoring.models import Job
    with transaction.atomic():
        job = Job.objects.create(campaign=Campaign.objects.get(), analysis="evaluation", params=PARAMS)
        services.run_job(job.pk)  # freezes the snapshot and queues the chunks on commit
    """
).replace("PARAMS", repr({**PARAMS, "chunk_size": 2}))
RESULT = textwrap.dedent(
    """
    import django, json
    django.setup()
    from django_tasks_db.models import DBTaskResult
    from scoring.models import Job
    job = Job.objects.get(analysis="evaluation")
    chunks = DBTaskResult.objects.filter(task_path="scoring.tasks.run_analysis_chunk")
    workers = sorted({w for ids in chunks.values_list("worker_ids", flat=True) for w in ids})
    print(json.dumps({"status": job.status, "result": job.result, "done": job.chunks_done, "workers": workers}))
    """
)
CHUNKS = 12


def run(env, *args, background=False):
    command = [sys.executable, *args]
    if background:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def evaluate_with(workers: int, tmp_path: Path, migrated_sqlite) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_REBUILD_INTERVAL="0",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / f"w{workers}.sqlite3")),
    )
    run(env, "-c", SETUP)
    run(
        env, "manage.py", "db_worker", "--queue-name", "*", "--batch", "--no-startup-delay"
    )  # the live reports the set-up queued
    # Each worker stops after its share, so with two, both must take part.
    processes = [
        run(
            env,
            "manage.py",
            "db_worker",
            "--queue-name",
            "*",
            "--no-startup-delay",
            "--interval",
            "0.1",
            "--worker-id",
            f"w{i}",
            "--max-tasks",
            str(CHUNKS // workers),
            background=True,
        )
        for i in range(workers)
    ]
    run(env, "-c", START)
    for process in processes:
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output
    return json.loads(run(env, "-c", RESULT))


# Real processes on a SQLite file of their own: the PostgreSQL pass of .ci/run would only repeat it.
@pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")
def test_one_worker_and_two_workers_give_the_same_result(tmp_path, migrated_sqlite):
    one = evaluate_with(1, tmp_path, migrated_sqlite)
    two = evaluate_with(2, tmp_path, migrated_sqlite)
    assert (one["workers"], two["workers"]) == (["w0"], ["w0", "w1"])
    assert one["status"] == two["status"] == "done" and one["done"] == two["done"] == CHUNKS
    assert one["result"] == two["result"]
    assert one["result"]["random"]["n_sets"] == 24
