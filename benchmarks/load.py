"""Benchmark: concurrent assessors against gunicorn, on SQLite and on PostgreSQL.

50 assessors (locust, token auth) judge every kind -- pairs, ordering,
clustering, nuggets, factoids, one campaign each -- for 60 s against gunicorn
with 4 sync workers and the ``db_worker`` task worker: read a judgment, save a
draft, edit it, submit it, sometimes repeat the submission (a replay) or edit
from a stale tab (409). One organiser polls the agreement report to time how
long a submission takes to show in it. Then the database is checked: every
acknowledged judgment once, with one revision per acknowledged save.

The two databases run one after the other on the same machine, with the same
seed data. PostgreSQL is the ``DATABASE_URL`` server when one is set (a fresh
database on it, dropped afterwards), else a throw-away server started here
(fsync off, as in .ci/run). The RESULT line's "reference" is PostgreSQL:
``seconds`` is SQLite's median submit latency, ``reference_seconds``
PostgreSQL's.

Run from the project root: ``python -m benchmarks.load [--users 50] [--seconds 60]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from benchmarks._harness import print_result, print_table
from tests.load import harness

ENGINES = ("sqlite", "postgresql")


def main() -> None:
    parser = argparse.ArgumentParser(description="Load: SQLite and PostgreSQL side by side.")
    parser.add_argument("--users", type=int, default=50, help="concurrent assessors (default 50)")
    parser.add_argument("--seconds", type=float, default=60, help="length of each run (default 60)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    parser.add_argument(
        "--think", type=float, default=0.5, help="mean pause of an assessor between two requests, seconds (default 0.5)"
    )
    args = parser.parse_args()
    # A plain kill should stop the servers too: SystemExit runs the harness's finally blocks.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    results = {}
    for engine in ENGINES:
        url = os.environ.get("DATABASE_URL") if engine == "postgresql" else None
        results[engine] = harness.run_load(
            engine,
            users=args.users,
            seconds=args.seconds,
            workers=args.workers,
            think=args.think,
            database_url=url if url and url.startswith("postgres") else None,
            log=lambda line, engine=engine: print(f"[{engine}] {line}", flush=True),
        )
    sqlite, postgres = results["sqlite"], results["postgresql"]

    print()
    print(
        f"{args.users} assessors + 1 organiser, {args.seconds:.0f} s, gunicorn -w {args.workers}, "
        f"think {args.think} s between requests"
    )
    print_table(["", "SQLite", "PostgreSQL"], [[label, *(fn(r) for r in (sqlite, postgres))] for label, fn in ROWS])
    print()
    print("Submit latency by kind (p50 / p95 ms):")
    print_table(
        ["kind", "SQLite", "PostgreSQL"],
        [[kind, *(by_kind(r, kind) for r in (sqlite, postgres))] for kind in harness.KINDS],
    )
    for r in (sqlite, postgres):
        for problem in r.verification["problems"]:
            print(f"  {r.engine}: {problem}")
        for error in r.locust["errors"][:10]:
            print(f"  {r.engine}: {error['occurrences']} x {error['method']} {error['name']}: {error['error'][:200]}")
    print()
    print_result(
        "load",
        seconds=sqlite.submit_p50_ms / 1000,
        reference_seconds=postgres.submit_p50_ms / 1000,
        peak_mb=max(sqlite.peak_mb, postgres.peak_mb),
        users=args.users,
        duration_s=args.seconds,
        requests_sqlite=sqlite.requests,
        requests_postgres=postgres.requests,
        failures_sqlite=sqlite.failures,
        failures_postgres=postgres.failures,
        submits_sqlite=sqlite.submits,
        submits_postgres=postgres.submits,
        p95_sqlite=sqlite.submit_p95_ms / 1000,
        p95_postgres=postgres.submit_p95_ms / 1000,
        p99_sqlite=sqlite.submit_p99_ms / 1000,
        p99_postgres=postgres.submit_p99_ms / 1000,
        report_p50_sqlite=_num(sqlite.report_p50_s),
        report_p50_postgres=_num(postgres.report_p50_s),
        report_max_sqlite=_num(sqlite.report_max_s),
        report_max_postgres=_num(postgres.report_max_s),
        cpu_ms_per_request_sqlite=_cpu_per_request(sqlite),
        cpu_ms_per_request_postgres=_cpu_per_request(postgres),
        verified=all(r.verification["problem_count"] == 0 for r in (sqlite, postgres)),
    )


def _num(value: float | None) -> float | str:
    return "none" if value is None else value


def _ms(value: float) -> str:
    return f"{value:.0f}"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def by_kind(result: harness.LoadResult, kind: str) -> str:
    times = sorted(result.locust["submit_ms_by_kind"].get(kind, []))
    if not times:
        return "-"
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]  # noqa: E731
    return f"{pick(0.5):.0f} / {pick(0.95):.0f}  (n={len(times)})"


ROWS = [
    ("requests", lambda r: r.requests),
    ("requests per second", lambda r: f"{r.rps:.1f}"),
    ("failures", lambda r: r.failures),
    ("submissions", lambda r: r.submits),
    ("submit p50 ms", lambda r: _ms(r.submit_p50_ms)),
    ("submit p95 ms", lambda r: _ms(r.submit_p95_ms)),
    ("submit p99 ms", lambda r: _ms(r.submit_p99_ms)),
    ("409 on saves (re-read, retried)", lambda r: r.conflicts),
    ("409 on stale edits (expected)", lambda r: r.stale_409),
    ("replays answered, nothing written", lambda r: r.replays),
    ("time to report p50 s", lambda r: _s(r.report_p50_s)),
    ("time to report max s", lambda r: _s(r.report_max_s)),
    ("  samples (unresolved at the end)", lambda r: f"{r.report_samples} ({r.report_unresolved})"),
    ("judgments checked", lambda r: r.verification["judgments"]),
    ("revisions = acknowledged saves", lambda r: f"{r.verification['revisions']} = {r.verification['saves']}"),
    ("reports caught up after the run, s", lambda r: _s(r.verification["reports_settled_s"])),
    (
        "database check",
        lambda r: "ok" if r.verification["problem_count"] == 0 else f"{r.verification['problem_count']} problems",
    ),
    ("peak RSS of a web worker, MB", lambda r: f"{r.peak_mb:.0f}"),
    ("CPU ms per request: web workers", lambda r: _per_request(r, "web")),
    ("  database server", lambda r: _per_request(r, "database")),
    ("CPU s of the task worker", lambda r: f"{r.cpu_seconds['worker']:.1f}"),
]


def _cpu_per_request(result: harness.LoadResult) -> float:
    """Web workers and (when started here) the database server, per request."""
    used = result.cpu_seconds["web"] + result.cpu_seconds.get("database", 0.0)
    return 1000 * used / result.requests if result.requests else 0.0


def _per_request(result: harness.LoadResult, part: str) -> str:
    if part not in result.cpu_seconds or not result.requests:
        return "-"
    return f"{1000 * result.cpu_seconds[part] / result.requests:.1f}"


if __name__ == "__main__":
    main()
