"""Benchmark: one recompute after one submission, incremental against from scratch.

For each kind and size, a synthetic campaign (N topics, each a copy of the
kind's example topic, judged by 10 assessors who each submit one of the
kind's two example payloads at random; the example run copied to score every
topic) is written in bulk to a fresh SQLite database, and every report is
computed once. Then one assessor reopens and resubmits one topic through
Concord's services, and the worker's recompute (``scoring.jobs.recompute_reports``,
the task function run directly) is timed: the median of 3, wall and CPU (``process_time``:
what the recompute costs whatever else the machine runs). The reference in
the same run is the recompute from scratch that a campaign without partial
results does after every submission (``everything=True``: every topic and the
campaign report from every judgment), timed once; above 1,000 topics it is the
first build itself (every topic stale: every topic's report and partial, then
the campaign report: the same work), so a 10,000-topic campaign is built once.
Then ``check_reports`` confirms the incremental report equals a recompute from
scratch (to 1e-12; up to 1,000 topics).

The first build is timed as an organiser waits for it: from the
commit of the import's last transaction (``mark_all_stale``, every topic stale)
to the campaign report present and fresh, through the worker's tasks on one
worker (the in-process backend runs each queued task in turn: the rebuild, its
chunks of ``CONCORD_BUILD_CHUNK`` topics, the merge); printed per kind as
``first_build_s`` and ms per topic.

Run from the project root::

    python -m benchmarks.incremental [--kind pairs] [--topics 100,1000,10000] [--assessors 10] [--first-build-only]

``--crowd`` measures a crowd instead (the shape of ``benchmarks.distributed``, in one process on
SQLite): a pairs campaign of N items, each a topic of one candidate labelled by 10 of N / 50
workers (at 100,000 items: 1,000,000 labels from 2,000 workers, 1.5 million pairs of workers
sharing an item); a resubmission flips one label.
"""

from __future__ import annotations

import argparse
import copy
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

_database = Path(tempfile.mkdtemp(prefix="concord-incremental-")) / "bench.sqlite3"
os.environ["CONCORD_SQLITE_PATH"] = str(_database)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import override_settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from annotate.imports.write import import_runs  # noqa: E402
from annotate.models import Assignment, Campaign, Judgment, JudgmentRevision, Topic  # noqa: E402
from annotate.services.campaigns import create_campaign  # noqa: E402
from annotate.services.judgments import reopen_judgment, save_judgment  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from kinds.base import ASSESSOR_SEED, assessor_seed  # noqa: E402
from kinds.registry import KINDS  # noqa: E402
from scoring import jobs, sums  # noqa: E402
from scoring import services as scoring_services  # noqa: E402
from scoring.models import Report, ScoringState, StaleTopic  # noqa: E402

#: One worker, in this process: every task runs as it is queued, in turn.
ONE_WORKER = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": []}}


def synthetic_campaign(kind: str, topics: int, assessors: int, seed: int = 0) -> Campaign:
    """A campaign of ``topics`` copies of the kind's example topic, every one judged by
    ``assessors`` assessors (bulk-written as the services write them: a submitted
    judgment and its revision), every topic marked stale."""
    rng = random.Random(seed)
    examples = KINDS[kind].examples
    kind_data = KINDS[kind].data
    User = get_user_model()
    organiser, _ = User.objects.get_or_create(username="organiser")
    campaign = create_campaign(
        creator=organiser, kind=kind, name=f"{kind} x {topics}", overlap=assessors, params=dict(examples.params) or None
    )
    people = [User.objects.get_or_create(username=f"assessor{a}")[0] for a in range(assessors)]
    ids = [f"t{i + 1}" for i in range(topics)]
    with transaction.atomic():
        Topic.objects.bulk_create(
            [
                Topic(campaign=campaign, external_id=t, title=t, position=i, data=copy.deepcopy(dict(examples.topic)))
                for i, t in enumerate(ids)
            ],
            batch_size=2000,
        )
        rows = list(campaign.topics.order_by("position"))
        Assignment.objects.bulk_create([Assignment(topic=t, assessor=p) for t in rows for p in people], batch_size=5000)
        now = timezone.now()
        judgments = []
        for topic in rows:
            for person in people:
                # cleaned as the assessor's own save cleans it (a kind may fill in what the server knows)
                payload = kind_data.clean_judgment(
                    copy.deepcopy(dict(rng.choice(examples.payloads))),
                    topic.data,
                    complete=True,
                    params={**campaign.params, ASSESSOR_SEED: assessor_seed(person.pk, topic.external_id)},
                )
                judgments.append(
                    Judgment(
                        topic=topic,
                        assessor=person,
                        payload=payload,
                        status=Judgment.Status.SUBMITTED,
                        version=1,
                        submitted_version=1,
                        submitted_at=now,
                    )
                )
        Judgment.objects.bulk_create(judgments, batch_size=5000)
        JudgmentRevision.objects.bulk_create(
            [
                JudgmentRevision(
                    judgment_id=j.pk, version=1, author_id=j.assessor_id, payload=j.payload, status="submitted"
                )
                for j in Judgment.objects.filter(topic__campaign=campaign).only("id", "assessor_id", "payload")
            ],
            batch_size=5000,
        )
    if examples.run is not None:
        # the example run scores ``t1``: made to score every topic (its other fields, such as a
        # labels run's flags, kept as they are)
        run = {
            key: {t: value["t1"] for t in ids} if isinstance(value, dict) and "t1" in value else value
            for key, value in examples.run.items()
        }
        import_runs(campaign=campaign, runs=[{"name": "run-a", "data": run}])
    # The rebuild the runs' import queued is never run (the settings' database queue has
    # no worker here): the first build is what first_build times.
    ScoringState.objects.filter(campaign=campaign).update(pending=False)
    return campaign


def synthetic_crowd(items: int, seed: int = 0) -> Campaign:
    """A crowd pairs campaign as ``benchmarks.distributed`` imports it: ``items`` topics of one
    candidate each, each labelled match or no match by 10 of ``items / 50`` workers (bulk-written
    as :func:`synthetic_campaign` writes them), every topic marked stale."""
    rng = random.Random(seed)
    User = get_user_model()
    organiser, _ = User.objects.get_or_create(username="organiser")
    campaign = create_campaign(creator=organiser, kind="pairs", name=f"crowd x {items}", overlap=2)
    User.objects.bulk_create([User(username=f"worker{k:05d}") for k in range(max(items // 50, 10))], batch_size=2000)
    workers = list(User.objects.filter(username__startswith="worker").order_by("username"))
    with transaction.atomic():
        Topic.objects.bulk_create(
            [
                Topic(
                    campaign=campaign,
                    external_id=f"t{i}",
                    title=f"t{i}",
                    position=i,
                    data={"query": f"item {i}", "candidates": [{"id": "c1", "text": "its label"}]},
                )
                for i in range(items)
            ],
            batch_size=2000,
        )
        rows = list(campaign.topics.order_by("position"))
        labelled = [(topic, worker) for topic in rows for worker in rng.sample(workers, 10)]
        Assignment.objects.bulk_create([Assignment(topic=t, assessor=w) for t, w in labelled], batch_size=5000)
        now = timezone.now()
        Judgment.objects.bulk_create(
            [
                Judgment(
                    topic=t,
                    assessor=w,
                    payload={"matches": {"c1": rng.random() < 0.5}},
                    status=Judgment.Status.SUBMITTED,
                    version=1,
                    submitted_version=1,
                    submitted_at=now,
                )
                for t, w in labelled
            ],
            batch_size=5000,
        )
        JudgmentRevision.objects.bulk_create(
            [
                JudgmentRevision(
                    judgment_id=j.pk, version=1, author_id=j.assessor_id, payload=j.payload, status="submitted"
                )
                for j in Judgment.objects.filter(topic__campaign=campaign).only("id", "assessor_id", "payload")
            ],
            batch_size=5000,
        )
    ScoringState.objects.filter(campaign=campaign).update(pending=False)
    return campaign


def first_build(campaign: Campaign) -> tuple[float, float]:
    """Seconds from the commit of the transaction that marks every topic stale (an
    import's last) to the campaign report present and fresh, on one worker; and the
    CPU seconds the worker spent (the wall time's share of a loaded machine aside)."""
    committed: list[tuple[float, float]] = []
    with override_settings(TASKS=ONE_WORKER), transaction.atomic():
        # Registered first, so it runs first of the commit's callbacks: then the rebuild's enqueue.
        transaction.on_commit(lambda: committed.append((time.perf_counter(), time.process_time())))
        scoring_services.mark_all_stale(campaign)
    elapsed = time.perf_counter() - committed[0][0], time.process_time() - committed[0][1]
    left = StaleTopic.objects.filter(campaign=campaign).count()
    report = Report.objects.filter(campaign=campaign, name="agreement").first()
    if left or report is None:
        raise SystemExit(f"{campaign.kind}: the first build left {left} stale topics, campaign report {report}")
    return elapsed


def resubmit(campaign: Campaign, rng: random.Random) -> None:
    """One assessor reopens one topic's judgment and submits the other example payload."""
    judgment = (
        Judgment.objects.filter(topic__campaign=campaign).order_by("?").select_related("topic", "assessor").first()
    )
    examples = KINDS[campaign.kind].examples
    reopen_judgment(topic=judgment.topic, assessor=judgment.assessor, version=judgment.version)
    if judgment.topic.data.get("candidates") == [{"id": "c1", "text": "its label"}]:  # a crowd's item: the other label
        payload = {"matches": {"c1": not judgment.submitted_payload["matches"]["c1"]}}
    else:
        payload = examples.payloads[1] if judgment.submitted_payload == examples.payloads[0] else examples.payloads[0]
    save_judgment(
        topic=judgment.topic,
        assessor=judgment.assessor,
        payload=dict(payload),
        status="submitted",
        version=judgment.version + 1,
    )


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_kind(kind: str, topics: int, assessors: int, first_build_only: bool = False, crowd: bool = False) -> dict:
    campaign = synthetic_crowd(topics) if crowd else synthetic_campaign(kind, topics, assessors)
    first, first_cpu = first_build(campaign)
    row = {
        "kind": kind,
        "topics": topics,
        "first": first,
        "first_cpu": first_cpu,
        "incremental_kind": KINDS[kind].reports.incremental,
    }
    if first_build_only:
        return {
            **row,
            "incremental": float("nan"),
            "incremental_cpu": float("nan"),
            "full": float("nan"),
            "size_kb": float("nan"),
            "sums_bytes": 0,
            "equal": "-",
        }
    rng = random.Random(1)
    incremental, cpu = [], []
    for _ in range(3):
        resubmit(campaign, rng)
        started = time.process_time()
        incremental.append(timed(lambda: jobs.recompute_reports(campaign.pk)))
        cpu.append(time.process_time() - started)
    resubmit(campaign, rng)
    # above 1,000 topics the first build is the from-scratch reference (the same work: every topic stale)
    full = timed(lambda: jobs.recompute_reports(campaign.pk, everything=True)) if topics <= 1000 else first
    differences = jobs.check_reports(campaign) if topics <= 1000 else ["(not checked above 1,000 topics)"]
    size = len(
        Report.objects.filter(campaign=campaign, name="agreement").values_list("data", flat=True).first().__repr__()
    )
    # the running sums as stored (compressed): what every rebuild from them dumps, compresses and writes
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT length(data) FROM {Report._meta.db_table} WHERE campaign_id = %s AND name = %s",
            [campaign.pk, sums.SUMS],
        )
        stored = cursor.fetchone()
    return {
        **row,
        "incremental": statistics.median(incremental),
        "incremental_cpu": statistics.median(cpu),
        "full": full,
        "size_kb": size / 1024,
        "sums_bytes": stored[0] if stored else 0,
        "equal": "yes" if not differences else ("-" if differences[0].startswith("(") else "NO"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kind", action="append", choices=sorted(KINDS), help="a kind (repeatable; default all)")
    parser.add_argument("--topics", default="100,1000", help="comma-separated sizes (default 100,1000)")
    parser.add_argument("--assessors", type=int, default=10)
    parser.add_argument(
        "--first-build-only", action="store_true", help="time only the first build (not the recompute after a save)"
    )
    parser.add_argument(
        "--crowd",
        action="store_true",
        help="a crowd pairs campaign instead: N items, one a topic, each labelled by 10 of N / 50 workers",
    )
    args = parser.parse_args()
    if args.crowd:
        args.kind = ["pairs"]
    sizes = [int(s) for s in args.topics.split(",")]
    logging.getLogger("django_tasks").setLevel(logging.WARNING)  # not a line per task run
    call_command("migrate", verbosity=0)
    rows = []
    for kind in args.kind or sorted(KINDS):
        for n in sizes:
            row = measure_kind(kind, n, args.assessors, args.first_build_only, args.crowd)
            rows.append(row)
            print(
                f"{kind} {n} topics: first build {row['first']:.2f} s ({1000 * row['first'] / n:.1f} ms per topic, "
                f"CPU {row['first_cpu']:.2f} s), "
                f"incremental {row['incremental']:.3f} s (CPU {row['incremental_cpu']:.3f} s), "
                f"from scratch {row['full']:.3f} s, stored sums {row['sums_bytes']} bytes, equal {row['equal']}",
                file=sys.stderr,
            )
    print_table(
        [
            "kind",
            "topics",
            "partials",
            "first build, s",
            "ms per topic",
            "its CPU, s",
            "one recompute (median of 3), s",
            "its CPU, s",
            "from scratch, s",
            "ratio",
            "report KB",
            "equal",
        ],
        [
            [
                r["kind"],
                r["topics"],
                "yes" if r["incremental_kind"] else "no",
                r["first"],
                1000 * r["first"] / r["topics"],
                r["first_cpu"],
                r["incremental"],
                r["incremental_cpu"],
                r["full"],
                r["full"] / r["incremental"],
                r["size_kb"],
                r["equal"],
            ]
            for r in rows
        ],
    )
    largest = [r for r in rows if r["topics"] == max(sizes)]
    slowest = max(largest, key=lambda r: r["first"])
    if args.first_build_only:
        # The reference is the goal at this size: 60 s for 10,000 topics on one worker.
        print_result(
            "first_build",
            seconds=slowest["first"],
            reference_seconds=60.0 * max(sizes) / 10000,
            peak_mb=0.0,
            topics=max(sizes),
            first_build_s=slowest["first"],
            first_build_ms_per_topic=1000 * slowest["first"] / slowest["topics"],
            first_build_kind=slowest["kind"],
            first_build_cpu_s=slowest["first_cpu"],
            **{f"first_build_s_{r['kind']}": r["first"] for r in largest},
        )
        return
    worst = max(largest, key=lambda r: r["incremental"])
    print_result(
        "incremental",
        seconds=worst["incremental"],
        reference_seconds=worst["full"],
        peak_mb=0.0,
        topics=max(sizes),
        worst_kind=worst["kind"],
        cpu_seconds=worst["incremental_cpu"],
        **{f"incremental_cpu_s_{r['kind']}": r["incremental_cpu"] for r in largest},
        unequal=sum(r["equal"] == "NO" for r in rows),
        first_build_s=slowest["first"],
        first_build_ms_per_topic=1000 * slowest["first"] / slowest["topics"],
        first_build_kind=slowest["kind"],
        first_build_cpu_s=slowest["first_cpu"],
        **{f"first_build_s_{r['kind']}": r["first"] for r in largest},
    )


if __name__ == "__main__":
    main()
