"""Benchmark: the server CPU cost of a submit and of a draft PUT, per kind, against a
bare DRF endpoint doing one read and one write on the same database.

In-process, through Django's whole request handler (middleware, token
authentication, the view, the renderer, the request_finished signal that
closes or keeps the database connection): ``django.test.Client`` with
``Authorization: Token ...`` against a scratch SQLite file (not a test
transaction). For each kind, one campaign of N copies of the kind's example
topic and one assessor; for each topic a draft PUT (version 0) and then a
submit PUT of the kind's first example payload (version 1), each timed with
``time.process_time()`` (CPU of this process: what the web worker spends).
Before every submit the campaign's recompute flag is cleared (untimed), as if
the worker had just finished a rebuild: every measured submit is one that
queues a recompute (the worst case; in a burst most submissions ride along).
The reference is ``PUT /bare/<id>/`` (benchmarks/bare_api.py): read one
judgment, update one column in a transaction, answer a small JSON object; it is
timed once on its own (the first line) and once before each kind's draft and submit
pair (each kind's ``bare ms beside it``, which its ratios divide by).
Query counts come from a separate pass under ``CaptureQueriesContext``
(which slows queries down, so it is not timed).

Then the cost of durability: the wall-clock time of a pairs submit with SQLite's
``synchronous=FULL`` (Concord's default: the commit waits for the WAL's fsync)
against ``NORMAL``, in alternating blocks on one connection (CPU time does not
show a wait for the disk).

Run from the project root: ``python -m benchmarks.submit_cost [--requests 300] [--sync-requests 200]``.
The target: a submit of every kind costs at most 1.5x the bare endpoint (``cpu_ratio``: the
largest of the kinds' ratios, each to the bare PUTs measured between its own, one before each
draft and submit pair: the CPU time of a request on a shared machine moves 1.5-2x within a
minute, and a ratio to a reference measured minutes earlier says as much about the machine as
about the code).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path

_scratch = Path(tempfile.mkdtemp(prefix="concord-submit-cost-"))
os.environ["CONCORD_SQLITE_PATH"] = str(_scratch / "bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from annotate.imports.write import import_topics  # noqa: E402
from annotate.models import Judgment  # noqa: E402
from annotate.services.campaigns import create_campaign  # noqa: E402
from annotate.services.members import add_member  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from concord import tokens  # noqa: E402
from kinds.registry import KINDS  # noqa: E402
from scoring.models import ScoringState  # noqa: E402


def setup_kind(kind: str, topics: int, organiser, name: str = "") -> tuple[int, Client, list[str], dict]:
    """A campaign of ``topics`` copies of the kind's example topic, one assessor
    (with a token); the campaign id, an authenticated client, topic ids, a payload."""
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=organiser, kind=kind, name=f"cost {name or kind}", overlap=1, params=dict(examples.params)
    )
    assessor = get_user_model().objects.create(username=f"cost-{name or kind}")
    add_member(campaign=campaign, username=assessor.username, role="assessor")
    ids = [f"t{i}" for i in range(1, topics + 1)]
    import_topics(campaign=campaign, topics=[{"external_id": t, "data": dict(examples.topic)} for t in ids])
    client = Client(HTTP_AUTHORIZATION=f"Token {tokens.issue(assessor)[1]}", raise_request_exception=True)
    return campaign.pk, client, ids, dict(examples.payloads[0])


def put(client: Client, url: str, body: dict) -> float:
    """CPU seconds of one PUT; the response must be 200."""
    start = time.process_time()
    response = client.put(url, data=body, content_type="application/json")
    spent = time.process_time() - start
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return spent


def counted(client: Client, url: str, body: dict) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.put(url, data=body, content_type="application/json")
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return len(queries)


def measure_kind(kind: str, requests: int, organiser, bare: tuple[Client, str]) -> dict:
    """The kind's draft and submit PUTs, each pair after a bare PUT (``bare``: its client and
    URL), so that the kind's ratio is to the bare endpoint measured in the same seconds: on a
    shared machine the CPU time of one request moves 1.5-2x within a minute (the clock, the
    other core's load)."""
    bare_client, bare_url = bare
    campaign, client, ids, payload = setup_kind(kind, requests + 1, organiser)
    base = f"/api/campaigns/{campaign}/topics/"
    state = ScoringState.objects.filter(campaign_id=campaign)
    # One untimed pair first (imports, caches), and the query counts on it.
    state.update(pending=False)
    draft_queries = counted(client, f"{base}{ids[0]}/judgment/", {"payload": payload, "status": "draft", "version": 0})
    state.update(pending=False)
    submit_queries = counted(
        client, f"{base}{ids[0]}/judgment/", {"payload": payload, "status": "submitted", "version": 1}
    )
    drafts, submits, bares = [], [], []
    gc.collect()
    gc.disable()
    try:
        for topic in ids[1:]:
            url = f"{base}{topic}/judgment/"
            bares.append(put(bare_client, bare_url, {}))
            drafts.append(put(client, url, {"payload": payload, "status": "draft", "version": 0}))
            state.update(pending=False)
            submits.append(put(client, url, {"payload": payload, "status": "submitted", "version": 1}))
    finally:
        gc.enable()
    return {
        "bare_ms": 1000 * statistics.median(bares),
        "draft_ms": 1000 * statistics.median(drafts),
        "submit_ms": 1000 * statistics.median(submits),
        "draft_queries": draft_queries,
        "submit_queries": submit_queries,
    }


def measure_bare(requests: int, organiser) -> dict:
    """The bare endpoint, on a judgment of an assessor of its own campaign (``target``: its
    client and URL, for :func:`measure_kind`)."""
    campaign, client, ids, payload = setup_kind("pairs", 1, organiser, name="bare")
    client.put(
        f"/api/campaigns/{campaign}/topics/{ids[0]}/judgment/",
        data={"payload": payload, "status": "draft", "version": 0},
        content_type="application/json",
    )
    judgment = Judgment.objects.get(topic__campaign_id=campaign)
    url = f"/bare/{judgment.pk}/"
    queries = counted(client, url, {})
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(requests):
            times.append(put(client, url, {}))
    finally:
        gc.enable()
    return {"ms": 1000 * statistics.median(times), "queries": queries, "target": (client, url)}


def measure_sync(requests: int, organiser) -> dict:
    """Wall-clock and CPU per submit (pairs) with SQLite's synchronous=NORMAL and
    FULL, in alternating blocks of 20 on the same connection (Concord's default is
    FULL: the commit waits for the WAL's fsync, which CPU time does not show)."""
    campaign, client, ids, payload = setup_kind("pairs", 2 * requests + 1, organiser, name="sync")
    base = f"/api/campaigns/{campaign}/topics/"
    state = ScoringState.objects.filter(campaign_id=campaign)
    client.put(
        f"{base}{ids[0]}/judgment/",
        data={"payload": payload, "status": "submitted", "version": 0},
        content_type="application/json",
    )
    times: dict[str, list[tuple[float, float]]] = {"NORMAL": [], "FULL": []}
    topics = iter(ids[1:])
    for block in range(2 * requests // 20):
        mode = ("NORMAL", "FULL")[block % 2]
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA synchronous={mode}")
        for _ in range(20):
            state.update(pending=False)
            url = f"{base}{next(topics)}/judgment/"
            wall, cpu = time.perf_counter(), time.process_time()
            response = client.put(
                url, data={"payload": payload, "status": "submitted", "version": 0}, content_type="application/json"
            )
            times[mode].append((time.perf_counter() - wall, time.process_time() - cpu))
            assert response.status_code == 200, response.content[:300]
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA synchronous={settings.SQLITE_SYNCHRONOUS}")
    return {
        mode: {
            "wall_ms": 1000 * statistics.median(w for w, _ in pairs),
            "wall_p95_ms": 1000 * sorted(w for w, _ in pairs)[int(0.95 * len(pairs))],
            "cpu_ms": 1000 * statistics.median(c for _, c in pairs),
        }
        for mode, pairs in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU per submit and draft PUT against a bare read-plus-write.")
    parser.add_argument("--requests", type=int, default=300, help="timed requests of each sort per kind (default 300)")
    parser.add_argument("--kind", action="append", help="only these kinds (default: every kind)")
    parser.add_argument(
        "--sync-requests", type=int, default=200, help="submits with synchronous NORMAL and as many with FULL"
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    organiser = get_user_model().objects.create(username="cost-organiser", is_staff=True)
    with override_settings(ROOT_URLCONF="benchmarks.bare_api"):
        bare = measure_bare(args.requests, organiser)
        results = {
            kind: measure_kind(kind, args.requests, organiser, bare["target"]) for kind in args.kind or sorted(KINDS)
        }
        sync = measure_sync(args.sync_requests, organiser)
    print(
        f"bare DRF read + write: {bare['ms']:.2f} ms CPU, {bare['queries']} queries "
        f"(median of {args.requests}; SQLite, CONN_MAX_AGE={connection.settings_dict['CONN_MAX_AGE']})"
    )
    rows = []
    for kind, r in results.items():
        rows.append([kind, "submit", round(r["submit_ms"], 2), r["submit_queries"], round(r["bare_ms"], 2)])
        rows[-1].append(round(r["submit_ms"] / r["bare_ms"], 2))
        rows.append([kind, "draft PUT", round(r["draft_ms"], 2), r["draft_queries"], round(r["bare_ms"], 2)])
        rows[-1].append(round(r["draft_ms"] / r["bare_ms"], 2))
    print_table(["kind", "request", "CPU ms/request", "queries", "bare ms beside it", "x bare"], rows)
    print(f"\nSQLite synchronous, pairs submits ({args.sync_requests} each, alternating blocks of 20):")
    print_table(
        ["synchronous", "wall ms median", "wall ms p95", "CPU ms median"],
        [[mode, round(r["wall_ms"], 2), round(r["wall_p95_ms"], 2), round(r["cpu_ms"], 2)] for mode, r in sync.items()],
    )
    worst_submit = max(r["submit_ms"] for r in results.values())
    cpu_ratio = max(r["submit_ms"] / r["bare_ms"] for r in results.values())
    draft_ratio = max(r["draft_ms"] / r["bare_ms"] for r in results.values())
    print_result(
        "submit_cost",
        seconds=worst_submit / 1000,
        reference_seconds=bare["ms"] / 1000,
        peak_mb=0.0,
        cpu_ratio=round(cpu_ratio, 2),
        draft_ratio=round(draft_ratio, 2),
        submit_queries=max(r["submit_queries"] for r in results.values()),
        bare_queries=bare["queries"],
        target_met=cpu_ratio <= 1.5,
        sync_full_wall_ms=round(sync["FULL"]["wall_ms"], 2),
        sync_normal_wall_ms=round(sync["NORMAL"]["wall_ms"], 2),
        sync_cost_ms=round(sync["FULL"]["wall_ms"] - sync["NORMAL"]["wall_ms"], 2),
    )


if __name__ == "__main__":
    try:
        main()
    finally:
        for path in _scratch.iterdir():
            path.unlink()
        _scratch.rmdir()
