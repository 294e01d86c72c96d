"""Benchmark: the organiser's live pages, in bytes and server CPU time.

Two campaigns in a fresh SQLite database: Snow et al.'s RTE file
(``data/snow2008/rte.csv``: 800 items, 164 workers, 8,000 labels) imported
through Concord's own importer (``manage.py import_judgments``, as the tests
do), and a pairs campaign of 10,000 topics (each a copy of the kind's example
topic, judged by a few assessors; rows bulk-written). Every report is
computed once (``scoring.jobs.recompute_reports``, the task function run
directly). Then, with Django's test client logged in as the organiser, each
page is requested N times and measured: the response's bytes and the server's
CPU time (``time.process_time`` around the request, median of N):

- the organiser's campaign page: its summary (``/campaigns/<id>/``, what it opens on) and its
  Report section (``?section=report``), each once as the first request after a recompute (the
  report decoded) and once as the next ones (the decoded report kept per process under its
  ETag, scoring/live.py),
- the live report fragment it polls every 3 s (``/campaigns/<id>/report/``),
- the same fragment sent with ``If-None-Match`` of its ETag (304, no body),
- the agreement API (``/api/campaigns/<id>/agreement/``) and its 304,
- the large campaign's summary and Progress section with its progress counts as its last
  rebuild stored them (scoring/progress.py) and, as their reference, counted on every view,

against the bare login page in the same run (the ratio is the figure).

Run from the project root::

    python -m benchmarks.pages [--topics 10000] [--assessors 3] [--repeat 7]
"""

from __future__ import annotations

import argparse
import copy
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

_database = Path(tempfile.mkdtemp(prefix="concord-pages-")) / "bench.sqlite3"
os.environ["CONCORD_SQLITE_PATH"] = str(_database)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from annotate.models import Assignment, Campaign, Judgment, Topic  # noqa: E402
from annotate.services.campaigns import create_campaign  # noqa: E402
from annotate.services.members import add_member  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from kinds.registry import KINDS  # noqa: E402
from scoring import jobs, live  # noqa: E402

RTE = Path(__file__).resolve().parents[1] / "data" / "snow2008" / "rte.csv"


def organiser():
    User = get_user_model()
    return User.objects.get_or_create(username="organiser")[0]


def rte_campaign() -> Campaign:
    """Snow et al.'s RTE labels, imported as the docs/formats.md "Import formats" shows."""
    campaign = create_campaign(creator=organiser(), kind="pairs", name="RTE (Snow et al. 2008)", overlap=10)
    call_command("import_judgments", campaign.pk, str(RTE), stdout=io.StringIO())
    return campaign


def large_campaign(topics: int, assessors: int, seed: int = 0) -> Campaign:
    """``topics`` copies of the pairs example topic, each submitted by ``assessors`` assessors (bulk rows)."""
    rng = random.Random(seed)
    examples = KINDS["pairs"].examples
    User = get_user_model()
    campaign = create_campaign(
        creator=organiser(),
        kind="pairs",
        name=f"pairs x {topics}",
        overlap=assessors,
        params=dict(examples.params) or None,
    )
    people = [User.objects.get_or_create(username=f"assessor{a}")[0] for a in range(assessors)]
    for person in people:
        add_member(campaign=campaign, username=person.username, role="assessor")
    with transaction.atomic():
        Topic.objects.bulk_create(
            [
                Topic(
                    campaign=campaign,
                    external_id=f"t{i + 1}",
                    title=f"Topic {i + 1}",
                    position=i,
                    data=copy.deepcopy(dict(examples.topic)),
                )
                for i in range(topics)
            ],
            batch_size=2000,
        )
        rows = list(campaign.topics.order_by("position"))
        Assignment.objects.bulk_create([Assignment(topic=t, assessor=p) for t in rows for p in people], batch_size=5000)
        now = timezone.now()
        judgments = []
        for topic in rows:
            for person in people:
                payload = copy.deepcopy(dict(rng.choice(examples.payloads)))
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
    return campaign


def request(client: Client, path: str, cold: bool = False, **headers) -> tuple[float, int, int, int]:
    """One GET: (server CPU seconds, status, bytes, queries); ``cold``: with no decoded report kept
    (scoring.live.campaign_report), as the first request after each recompute."""
    if cold:
        live._cache.clear()
    with CaptureQueriesContext(connection) as queries:
        start = time.process_time()
        response = client.get(path, headers=headers)
        cpu = time.process_time() - start
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return cpu, response.status_code, len(body), len(queries)


def measure(client: Client, path: str, repeat: int, cold: bool = False, **headers) -> dict:
    runs = [request(client, path, cold, **headers) for _ in range(repeat + 1)][1:]  # the first warms caches
    statuses = {status for _, status, _, _ in runs}
    return {
        "cpu_ms": statistics.median(cpu for cpu, *_ in runs) * 1000,
        "status": "/".join(str(s) for s in sorted(statuses)),
        "bytes": max(size for _, _, size, _ in runs),
        "queries": max(q for *_, q in runs),
    }


def measure_campaign(label: str, campaign: Campaign, client: Client, repeat: int, baseline: dict) -> list[list]:
    rows = []
    page = f"/campaigns/{campaign.pk}/"
    fragment = f"/campaigns/{campaign.pk}/report/"
    api = f"/api/campaigns/{campaign.pk}/agreement/"
    # The campaign page opens on its summary; the report (the page's old whole) is its Report section.
    sections = (("summary page", page), ("report section", page + "?section=report"))
    for name, path in (*sections, ("report fragment", fragment), ("agreement API", api)):
        first = measure(client, path, repeat, cold=True)
        rows.append(
            [
                label,
                f"{name}, report not yet decoded",
                first["status"],
                first["bytes"],
                first["cpu_ms"],
                first["queries"],
                baseline,
            ]
        )
        result = measure(client, path, repeat)
        rows.append([label, name, result["status"], result["bytes"], result["cpu_ms"], result["queries"], baseline])
        if path not in dict(sections).values():
            etag = client.get(path).headers.get("ETag")
            if etag:
                cached = measure(client, path, repeat, if_none_match=etag)
                rows.append(
                    [
                        label,
                        f"{name}, If-None-Match",
                        cached["status"],
                        cached["bytes"],
                        cached["cpu_ms"],
                        cached["queries"],
                        baseline,
                    ]
                )
    return rows


def measure_progress(label: str, campaign: Campaign, client: Client, repeat: int, baseline: dict) -> list[list]:
    """The summary and the Progress section with the campaign's progress as its last rebuild
    stored it (scoring/progress.py; the large campaign has more assignments than
    CONCORD_LIVE_PROGRESS_LIMIT) and, as the reference, counted on every view."""
    rows = []
    for name, path in (("summary page", f"/campaigns/{campaign.pk}/"), ("progress section", "?section=progress")):
        path = path if path.startswith("/") else f"/campaigns/{campaign.pk}/{path}"
        for how, limit in (("as stored", settings.CONCORD_LIVE_PROGRESS_LIMIT), ("counted now", 10**12)):
            with override_settings(CONCORD_LIVE_PROGRESS_LIMIT=limit):
                result = measure(client, path, repeat)
            row = [result["status"], result["bytes"], result["cpu_ms"], result["queries"], baseline]
            rows.append([label, f"{name}, progress {how}", *row])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10000, help="topics of the large pairs campaign (default 10,000)")
    parser.add_argument(
        "--assessors", type=int, default=3, help="assessors per topic of the large campaign (default 3)"
    )
    parser.add_argument("--repeat", type=int, default=7, help="requests per page; the median CPU time is shown")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)

    print("building the RTE campaign ...", file=sys.stderr)
    rte = rte_campaign()
    jobs.recompute_reports(rte.pk)
    print(f"building the {args.topics:,}-topic campaign ...", file=sys.stderr)
    large = large_campaign(args.topics, args.assessors)
    jobs.recompute_reports(large.pk)

    anonymous = Client()
    login = measure(anonymous, "/accounts/login/", args.repeat)
    client = Client()
    client.force_login(organiser())
    rows = [["-", "login page (baseline)", login["status"], login["bytes"], login["cpu_ms"], login["queries"], login]]
    rows += measure_campaign("RTE (800 items, 164 workers)", rte, client, args.repeat, login)
    rows += measure_campaign(f"pairs, {args.topics:,} topics", large, client, args.repeat, login)
    rows += measure_progress(f"pairs, {args.topics:,} topics", large, client, args.repeat, login)
    print_table(
        ["campaign", "page", "status", "KB", "server CPU ms (median)", "x login page", "queries"],
        [[c, p, s, size / 1024, cpu, cpu / base["cpu_ms"], q] for c, p, s, size, cpu, q, base in rows],
    )
    rte_page = next(r for r in rows if r[0].startswith("RTE") and r[1] == "report section")
    rte_fragment = next(r for r in rows if r[0].startswith("RTE") and r[1] == "report fragment")
    not_modified = next((r for r in rows if r[0].startswith("RTE") and r[1] == "report fragment, If-None-Match"), None)
    large_page = next(r for r in rows if r[0].startswith("pairs") and r[1] == "report section")
    rte_summary = next(r for r in rows if r[0].startswith("RTE") and r[1] == "summary page")
    rte_cold = next(r for r in rows if r[0].startswith("RTE") and r[1] == "report section, report not yet decoded")
    stored = next(r for r in rows if r[0].startswith("pairs") and r[1] == "summary page, progress as stored")
    counted = next(r for r in rows if r[0].startswith("pairs") and r[1] == "summary page, progress counted now")
    print_result(
        "pages",
        cpu_ratio=round(rte_page[4] / login["cpu_ms"], 1),
        rte_page_cold_ms=round(rte_cold[4], 1),
        seconds=rte_page[4] / 1000,
        reference_seconds=login["cpu_ms"] / 1000,
        peak_mb=0.0,
        rte_page_kb=round(rte_page[3] / 1024, 1),
        rte_fragment_kb=round(rte_fragment[3] / 1024, 1),
        rte_fragment_ms=round(rte_fragment[4], 1),
        not_modified_status=not_modified[2] if not_modified else "none",
        not_modified_bytes=not_modified[3] if not_modified else "none",
        not_modified_queries=not_modified[5] if not_modified else "none",
        rte_summary_kb=round(rte_summary[3] / 1024, 1),
        rte_summary_ms=round(rte_summary[4], 1),
        rte_summary_queries=rte_summary[5],
        large_page_kb=round(large_page[3] / 1024, 1),
        large_page_ms=round(large_page[4], 1),
        large_summary_stored_ms=round(stored[4], 1),
        large_summary_counted_ms=round(counted[4], 1),
        large_summary_ratio=round(counted[4] / stored[4], 1),
        topics=args.topics,
    )


if __name__ == "__main__":
    main()
