"""Benchmark: how long one organiser's analysis waits behind another's evaluation.

Two pairs campaigns in a fresh SQLite database, on django-tasks-db's queue
(the default backend), worked through by one worker in the queue's own order
(the task of the first ready row, run in-process, as ``db_worker`` picks it):

- campaign A's organiser starts a large pairs ``evaluation``, split into
  ``--chunks`` chunks (12 queries, 4 systems, 3 assessors; 5 Random truth sets
  and ``--n-resamples`` bootstrap resamples per chunk);
- once it is split, campaign B's organiser starts a small one on B
  (``--b-chunks`` chunks), as in the report that led to this (another
  organiser's job waited 156 s behind one evaluation).

Measured: the seconds from B's start to B's result (B's wait), and A's, in
two modes of the same run: campaigns taking turns (``CONCORD_ANALYSIS_SLOTS``
1, scoring/dispatch.py) and the queue as it was before, every chunk queued
at once (slots unbounded). The ratio is B's wait before over B's wait with
turns. Both modes compute the same results (checked).

Run from the project root::

    python -m benchmarks.job_turns [--chunks 20] [--n-resamples 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

_database = Path(tempfile.mkdtemp(prefix="concord-turns-")) / "bench.sqlite3"
os.environ["CONCORD_SQLITE_PATH"] = str(_database)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.pop("DATABASE_URL", None)
os.environ["CONCORD_TASKS_BACKEND"] = "db"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402
from django_tasks_db.models import DBTaskResult  # noqa: E402

from annotate.models import Campaign  # noqa: E402
from annotate.services.campaigns import create_campaign  # noqa: E402
from annotate.services.judgments import save_judgment  # noqa: E402
from annotate.services.members import add_member  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from kinds.pairs.pools import build_pools  # noqa: E402
from scoring import services as scoring_services  # noqa: E402
from scoring.models import Job  # noqa: E402


def campaign(name: str, organiser, seed: int) -> Campaign:
    """12 queries pooled from 4 systems, judged by 3 assessors of different strictness."""
    rng = random.Random(seed)
    made = create_campaign(creator=organiser, kind="pairs", name=name, overlap=3)
    names = [f"{name.lower()}-{i}" for i in range(3)]
    for assessor in names:
        add_member(campaign=made, username=assessor, role="assessor")
    queries = {f"q{q}": f"Query {q}" for q in range(12)}
    truth = {(q, c): rng.random() < 0.35 for q in queries for c in range(8)}
    runs = []
    for s in range(4):
        recall, noise = 0.5 + 0.12 * s, 0.1 + 0.05 * s
        results = {
            q: [
                {"id": f"c{c}", "text": f"cand {c}"}
                for c in range(8)
                if (truth[(q, c)] and rng.random() < recall) or (not truth[(q, c)] and rng.random() < noise)
            ]
            for q in queries
        }
        runs.append({"name": f"sys{s}", "data": {"results": results}})
    for topic in build_pools(campaign=made, queries=queries, runs=runs):
        for i, assignment in enumerate(topic.assignments.select_related("assessor")):
            matches = {
                c["id"]: truth[(topic.external_id, int(c["id"][1:]))] != (rng.random() < 0.1 + 0.1 * i)
                for c in topic.data["candidates"]
            }
            save_judgment(
                topic=topic, assessor=assignment.assessor, payload={"matches": matches}, status="submitted", version=0
            )
    return made


def work_one() -> bool:
    """One worker's step: the first ready analyses task in the queue's order, run to its end."""
    row = DBTaskResult.objects.ready().filter(queue_name="analyses").first()
    if row is None:
        return False
    row.claim("bench")
    import_string(row.task_path).call(*row.args_kwargs["args"])
    row.set_successful(None)
    return True


def one_mode(slots: int, campaigns: tuple[Campaign, Campaign], params: tuple[dict, dict]) -> dict:
    settings.CONCORD_ANALYSIS_SLOTS = slots
    first, second = campaigns
    start = time.perf_counter()
    a = scoring_services.start_analysis(campaign=first, analysis="evaluation", params=params[0], user=None)
    work_one()  # A starts: split into its chunks
    b_start = time.perf_counter()
    b = scoring_services.start_analysis(campaign=second, analysis="evaluation", params=params[1], user=None)
    finished: dict[int, float] = {}
    while work_one():
        for job in Job.objects.filter(pk__in=[a.pk, b.pk], status="done").exclude(pk__in=list(finished)):
            finished[job.pk] = time.perf_counter()
    a, b = Job.objects.get(pk=a.pk), Job.objects.get(pk=b.pk)
    assert a.status == b.status == "done", (a.message, b.message)
    return {
        "b_wait": finished[b.pk] - b_start,
        "a_total": finished[a.pk] - start,
        "chunks": f"{a.chunks_total} / {b.chunks_total}",
        "results": (a.result, b.result),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--b-chunks", type=int, default=1)
    parser.add_argument("--n-resamples", type=int, default=10000)
    args = parser.parse_args(argv)
    call_command("migrate", verbosity=0)
    organiser = get_user_model().objects.create_user("organiser")
    campaigns = (campaign("A", organiser, 1), campaign("B", organiser, 2))
    params = tuple(
        {"n_random": 5 * chunks, "chunk_size": 5, "n_resamples": args.n_resamples, "seed": 3}
        for chunks in (args.chunks, args.b_chunks)
    )
    turns = one_mode(1, campaigns, params)
    before = one_mode(10**6, campaigns, params)
    assert turns["results"] == before["results"], "the two modes computed different results"
    print_table(
        ["mode", "chunks of A / B", "B waits (s)", "A done after (s)"],
        [
            ["turns (1 slot)", turns["chunks"], f"{turns['b_wait']:.2f}", f"{turns['a_total']:.2f}"],
            ["all queued at once", before["chunks"], f"{before['b_wait']:.2f}", f"{before['a_total']:.2f}"],
        ],
    )
    print_result(
        "job_turns",
        seconds=turns["b_wait"],
        reference_seconds=before["b_wait"],
        peak_mb=0.0,
        chunks=turns["chunks"].replace(" ", ""),
        a_seconds=turns["a_total"],
        a_reference_seconds=before["a_total"],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
