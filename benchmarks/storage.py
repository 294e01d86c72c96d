"""Benchmark: database bytes per saved judgment, per group of tables, on SQLite and PostgreSQL.

The workload (the one Label Studio and doccano are measured on): 5
assessors label 1,000 binary items (a pairs campaign of 1,000 topics of one
candidate each, 5 assessors per topic) in interleaved rounds: the items come in
rounds of ``--round`` (default 100), and within a round the assessors take turns
item by item. Every judgment goes through the real save path, the API the
judging page uses (``PUT /api/campaigns/<id>/topics/<topic>/judgment/`` with an
assessor's token, Django's whole request handler), as ``--drafts`` draft saves
(default 1: the page saves a draft as the label is chosen) and then a submit.
After each round the report worker runs what was queued (scoring's
``db_worker --batch``, in process), as it would between rounds.

The database's size is read before the first save and after the last, each
table with its indexes (and, on PostgreSQL, its TOAST): on SQLite after
``VACUUM`` from the ``dbstat`` virtual table, on PostgreSQL after ``VACUUM FULL``
and ``ANALYZE`` from ``pg_total_relation_size``. Bytes per judgment is the growth
over the judgments saved, by group: judgments, revisions, reports (topic and
campaign), partials, other (stale marks, task results, ...). The goal
is 0.5 MB per 1,000 judgments, i.e. 500 bytes per judgment, reports included.

Each engine runs in its own process, on a fresh database: SQLite in a scratch
file; PostgreSQL on the server of ``DATABASE_URL`` (a new database there,
dropped afterwards) or on a throw-away server started here (as .ci/run does).

Run from the project root: ``python -m benchmarks.storage [--engines sqlite,postgresql] [--items 1000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from benchmarks._harness import print_result, print_table

#: The goal: 0.5 MB per 1,000 judgments (bytes per judgment).
GOAL = 500_000 / 1000

#: Table -> group; any other table is "other".
GROUPS = {
    "annotate_judgment": "judgments",
    "annotate_judgmentrevision": "revisions",
    "scoring_report": "reports",
    "scoring_topicpartial": "partials",
}
ORDER = ["judgments", "revisions", "reports", "partials", "other"]


# -- the child: one engine, inside Django --------------------------------------------


def table_sizes() -> dict[str, int]:
    """Bytes of every table with its indexes, after the engine reclaimed what is free."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("VACUUM")
            cursor.execute(
                "SELECT m.tbl_name, SUM(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name "
                "GROUP BY m.tbl_name"
            )
        else:
            cursor.execute("VACUUM FULL")
            cursor.execute("ANALYZE")
            cursor.execute(
                "SELECT tablename, pg_total_relation_size(quote_ident(tablename)) FROM pg_tables "
                "WHERE schemaname = current_schema()"
            )
        return {name: int(size) for name, size in cursor.fetchall()}


def part_sizes() -> dict[str, int]:
    """Bytes of each part of the judgments' and revisions' tables: the rows (``<table>``),
    on PostgreSQL their TOAST and maps (``<table> toast``), and each index by name; read
    after :func:`table_sizes` reclaimed what is free."""
    from django.db import connection

    tables = ("annotate_judgment", "annotate_judgmentrevision")
    found: dict[str, int] = {}
    with connection.cursor() as cursor:
        for table in tables:
            if connection.vendor == "sqlite":
                cursor.execute(
                    "SELECT s.name, SUM(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name "
                    "WHERE m.tbl_name = %s GROUP BY s.name",
                    [table],
                )
                found.update({name: int(size) for name, size in cursor.fetchall()})
            else:
                cursor.execute(
                    "SELECT pg_relation_size(%s::regclass), pg_table_size(%s::regclass) - pg_relation_size(%s::regclass)",
                    [table, table, table],
                )
                rows, toast = cursor.fetchone()
                found[table], found[f"{table} toast"] = int(rows), int(toast)
                cursor.execute(
                    "SELECT c.relname, pg_relation_size(i.indexrelid) FROM pg_index i "
                    "JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = %s::regclass",
                    [table],
                )
                found.update({name: int(size) for name, size in cursor.fetchall()})
    return found


def set_up(items: int, assessors: int):
    """A pairs campaign of ``items`` one-candidate topics, ``assessors`` assessors
    each with an API client; (campaign id, clients, topic ids)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member
    from concord import tokens

    User = get_user_model()
    organiser = User.objects.create(username="storage-organiser", is_staff=True)
    campaign = create_campaign(creator=organiser, kind="pairs", name="storage", overlap=assessors, params={})
    clients = []
    for a in range(assessors):
        user = User.objects.create(username=f"assessor{a + 1}")
        add_member(campaign=campaign, username=user.username, role="assessor")
        token = tokens.issue(user)[1]
        clients.append(Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_HOST="localhost", raise_request_exception=True))
    ids = [f"item{i + 1}" for i in range(items)]
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "data": {"query": f"Item {t}", "candidates": [{"id": "c1", "text": f"text of {t}"}]}}
            for t in ids
        ],
    )
    return campaign.pk, clients, ids


def label(item: int, assessor: int) -> bool:
    """A fixed, disagreeing labelling: most assessors agree on most items."""
    return (item * 7 + assessor * (item % 3)) % 5 < 3


def put(client, url: str, body: dict) -> None:
    response = client.put(url, data=body, content_type="application/json")
    assert response.status_code == 200, (url, response.status_code, response.content[:300])


def run_workload(campaign: int, clients: list, ids: list[str], *, drafts: int, round_size: int) -> int:
    from django.core.management import call_command

    saved = 0
    for start in range(0, len(ids), round_size):
        for i in range(start, min(start + round_size, len(ids))):
            for a, client in enumerate(clients):
                url = f"/api/campaigns/{campaign}/topics/{ids[i]}/judgment/"
                version = 0
                for d in range(drafts):
                    put(
                        client, url, {"payload": {"matches": {"c1": d % 2 == 0}}, "status": "draft", "version": version}
                    )
                    version += 1
                payload = {"matches": {"c1": label(i, a)}}
                put(client, url, {"payload": payload, "status": "submitted", "version": version})
                saved += 1
        call_command("db_worker", batch=True, queue_name="default", verbosity=0)
    return saved


def child(args: argparse.Namespace) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotate.models import Judgment
    from scoring.models import StaleTopic, TopicPartial

    call_command("migrate", verbosity=0)
    campaign, clients, ids = set_up(args.items, args.assessors)
    before = table_sizes()
    parts_before = part_sizes()
    judgments = run_workload(campaign, clients, ids, drafts=args.drafts, round_size=args.round)
    assert Judgment.objects.filter(status="submitted").count() == judgments
    assert not StaleTopic.objects.exists(), "the worker left stale topics"
    assert TopicPartial.objects.count() == len(ids)
    after = table_sizes()
    grown = {table: after.get(table, 0) - before.get(table, 0) for table in after}
    parts_after = part_sizes()
    parts = {part: parts_after[part] - parts_before.get(part, 0) for part in parts_after}
    print(
        json.dumps(
            {
                "engine": connection.vendor,
                "judgments": judgments,
                "grown": grown,
                "parts": parts,
                "total_after": sum(after.values()),
            }
        )
    )


# -- the parent: one child per engine, then the table ---------------------------------


def run_engine(engine: str, args: argparse.Namespace, stack: ExitStack) -> dict:
    from benchmarks.loadrig import harness

    if engine == "sqlite":
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="concord-storage-")))
        database = stack.enter_context(harness.sqlite_database(directory))
    else:
        url = os.environ.get("DATABASE_URL", "")
        database = stack.enter_context(harness.postgres_database(url if url.startswith("postgres") else None))
    # Synchronous NORMAL: the commits need not wait for the disk to measure what they store.
    env = harness.django_env(database) | {"CONCORD_REBUILD_INTERVAL": "0", "CONCORD_SQLITE_SYNCHRONOUS": "normal"}
    command = [sys.executable, "-m", "benchmarks.storage", "--child", *child_args(args)]
    result = subprocess.run(
        command, env=env, capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent
    )
    if result.returncode != 0:
        raise RuntimeError(f"{engine} run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def child_args(args: argparse.Namespace) -> list[str]:
    return [
        f"--items={args.items}",
        f"--assessors={args.assessors}",
        f"--drafts={args.drafts}",
        f"--round={args.round}",
    ]


def by_group(grown: dict[str, int]) -> dict[str, int]:
    groups = dict.fromkeys(ORDER, 0)
    for table, size in grown.items():
        groups[GROUPS.get(table, "other")] += size
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description="Database bytes per saved judgment, by table group.")
    parser.add_argument("--engines", default="sqlite,postgresql", help="comma-separated (default sqlite,postgresql)")
    parser.add_argument("--items", type=int, default=1000, help="binary items, one topic each (default 1000)")
    parser.add_argument("--assessors", type=int, default=5, help="assessors, each labels every item (default 5)")
    parser.add_argument("--drafts", type=int, default=1, help="draft saves before each submit (default 1)")
    parser.add_argument("--round", type=int, default=100, help="items per round; the worker runs after each (100)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    runs = {}
    with ExitStack() as stack:
        for engine in engines:
            runs[engine] = run_engine(engine, args, stack)
    print(
        f"Database growth per saved judgment, bytes: {args.assessors} assessors x {args.items:,} binary items, "
        f"{args.drafts} draft save(s) and a submit each, through the API; worker after every {args.round} items"
    )
    rows = []
    groups = {engine: by_group(run["grown"]) for engine, run in runs.items()}
    for group in [*ORDER, "total"]:
        row = [group]
        for engine, run in runs.items():
            size = sum(groups[engine].values()) if group == "total" else groups[engine][group]
            row.append(round(size / run["judgments"]))
        rows.append(row)
    per_1000 = {e: sum(groups[e].values()) / runs[e]["judgments"] * 1000 / 1e6 for e in runs}
    rows.append(["MB per 1,000 judgments", *(round(per_1000[e], 3) for e in runs)])
    rows.append(["x the 0.5 MB goal", *(round(per_1000[e] / 0.5, 2) for e in runs)])
    print_table(["", *runs], rows)
    print("\nLargest tables' growth, bytes per judgment:")
    for engine, run in runs.items():
        top = sorted(run["grown"].items(), key=lambda kv: -kv[1])[:8]
        print(f"  {engine}: " + ", ".join(f"{t} {s / run['judgments']:.0f}" for t, s in top if s))
    print("\nThe judgments' and revisions' tables by part (rows, TOAST, each index), bytes per judgment:")
    for engine, run in runs.items():
        parts = sorted(run["parts"].items(), key=lambda kv: -kv[1])
        print(f"  {engine}: " + ", ".join(f"{p} {s / run['judgments']:.0f}" for p, s in parts if s))
    first = engines[0]
    per_judgment = {e: sum(groups[e].values()) / runs[e]["judgments"] for e in runs}
    extra = {f"bytes_per_judgment_{e}": round(per_judgment[e]) for e in engines[1:]}
    print_result(
        "storage",
        seconds=per_judgment[first],
        reference_seconds=GOAL,
        peak_mb=0.0,
        engines=",".join(engines),
        judgments=runs[first]["judgments"],
        bytes_per_judgment=round(per_judgment[first]),
        mb_per_1000=round(per_1000[first], 3),
        goal_met=all(v <= GOAL for v in per_judgment.values()),
        **{f"{g}_bytes": round(groups[first][g] / runs[first]["judgments"]) for g in ORDER},
        **extra,
    )


if __name__ == "__main__":
    main()
