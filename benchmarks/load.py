"""Benchmark: what the server spends, how fast it can go, and how fresh the reports stay.

One run per database (SQLite; PostgreSQL too with ``--engines sqlite,postgresql``
or when ``DATABASE_URL`` points at a server: a fresh database on it, else a
throw-away server started here with fsync off, as in .ci/run), each against
gunicorn with 4 sync workers and the task workers as ./run starts them, on
campaigns of every registered kind made of copies of its example topic
(``KINDS[kind].examples``). The phases, one after the other
(benchmarks/loadrig/harness.py, ``run_load``):

1. **Cost.** Per kind, ``--requests`` draft PUTs and then as many submits,
   sent one at a time, and as many PUTs of a bare DRF endpoint doing one read
   and one write on the same database (benchmarks/bare_api.py, served by the
   same gunicorn through benchmarks/loadrig/settings.py): the CPU time (utime + stime
   in /proc) of gunicorn's processes and of the task workers (reports and
   analyses) before and after each batch, per request; the workers' until the
   report counts the batch's submits, so the rebuilds they queued are in it.
   ``cpu_ratio`` is the worst kind's submit over the bare endpoint, web
   worker only; ``cpu_ratio_total`` the same with every process counted (a
   PostgreSQL server started here is shown beside it, not in it, so both
   engines' totals compare).
2. **Rate.** 4 closed-loop clients (one per gunicorn worker) submit back to
   back for ``--rate-seconds``: the maximum rate. Then a threaded open-loop
   generator submits at half of it for ``--open-seconds`` (fixed arrivals,
   latency from each request's scheduled time), its own CPU measured. The
   task workers rebuild the reports meanwhile, on the same 2 cores.
3. **Concurrency.** locust, ``--users`` assessors for ``--seconds``: reads,
   drafts, edits, submits, reopenings, replays of lost answers, edits from
   stale tabs (409). Its latencies are not figures: it is here for the check.
4. **The database check.** Every acknowledged save of phases 1-3 is in the
   database once, with one revision per acknowledged save; nothing
   unacknowledged; the reports catch up; no task failed (``lost``).
5. **Freshness.** For each of ``--sizes``, a campaign of every kind with that
   many topics and 10 assessors per topic, seeded in bulk (not through the
   API: topics and assignments by ``import_topics``, submitted judgments and
   their revisions by ``bulk_create`` as ``import_judgments`` writes them,
   every topic marked stale), its report computed once by the worker; then
   ``--samples`` submissions per kind, each through the API, timed from its
   acknowledgement until the organiser's agreement API (polled every 50 ms
   with If-None-Match) counts it. ``fresh_p95_s`` is the worst kind's p95 at
   the largest size. Then submits of every kind, interleaved, arriving at
   ``--save-rate`` per second for ``--save-seconds``, and a wait until the
   reports count them: every process's CPU per save at that size
   (``total_ms_per_save`` at the largest size). The refreshes of the costly
   figures come later, every 1% of a campaign's judgments
   (``scoring.jobs.FITS_SHARE``): each campaign's is then timed (in a
   subprocess on the same database) and amortised over the saves that wait for
   it (``fits_ms_per_save``; ``total_with_fits_ms_per_save`` the sum).

Run from the project root: ``python -m benchmarks.load [--sizes 100,1000,10000]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from benchmarks._harness import print_result, print_table
from benchmarks.loadrig import harness


def main() -> None:
    parser = argparse.ArgumentParser(description="Load: cost, rate, latency and freshness, side by side.")
    url = os.environ.get("DATABASE_URL", "")
    default_engines = "sqlite,postgresql" if url.startswith("postgres") else "sqlite"
    parser.add_argument("--engines", default=default_engines, help=f"comma-separated (default {default_engines})")
    parser.add_argument("--sizes", default="100", help="topics per kind for freshness, comma-separated (default 100)")
    parser.add_argument("--samples", type=int, default=5, help="timed submissions per kind and size (default 5)")
    parser.add_argument(
        "--fresh-timeout",
        type=float,
        default=600,
        help="seconds to wait for the first reports of a size's campaigns, and for each timed one (default 600; "
        "the worker builds the six 10,000-topic campaigns one after another: allow 3600)",
    )
    parser.add_argument(
        "--fresh-kinds", default="", help="comma-separated kinds measured for freshness (default every kind)"
    )
    parser.add_argument("--requests", type=int, default=200, help="requests per kind for the cost (default 200)")
    parser.add_argument(
        "--save-rate", type=float, default=20, help="submits/s for the CPU per save at each size (default 20)"
    )
    parser.add_argument(
        "--save-seconds", type=float, default=10, help="seconds of those submits; 0 skips them (default 10)"
    )
    parser.add_argument("--rate-seconds", type=float, default=10, help="closed-loop phase, seconds (default 10)")
    parser.add_argument("--open-seconds", type=float, default=30, help="open-loop phase, seconds (default 30)")
    parser.add_argument("--users", type=int, default=20, help="locust assessors of the check (default 20)")
    parser.add_argument("--seconds", type=float, default=20, help="locust phase, seconds; 0 skips it (default 20)")
    parser.add_argument("--think", type=float, default=0.5, help="locust assessors' mean pause, s (default 0.5)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    # A plain kill should stop the servers too: SystemExit runs the harness's finally blocks.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    results = {}
    for engine in engines:
        results[engine] = harness.run_load(
            engine,
            users=args.users,
            seconds=args.seconds,
            workers=args.workers,
            think=args.think,
            cost_requests=args.requests,
            rate_seconds=args.rate_seconds,
            open_seconds=args.open_seconds,
            sizes=sizes,
            fresh_samples=args.samples,
            fresh_timeout=args.fresh_timeout,
            fresh_kinds=tuple(k.strip() for k in args.fresh_kinds.split(",") if k.strip()),
            save_rate=args.save_rate,
            save_seconds=args.save_seconds,
            database_url=url if engine == "postgresql" and url.startswith("postgres") else None,
            log=lambda line, engine=engine: print(f"[{engine}] {line}", flush=True),
        )
    runs = [results[e] for e in engines]
    names = [NAMES.get(e, e) for e in engines]
    kinds = list(runs[0].figures.cost)

    print()
    print(
        f"Server CPU ms per request, {args.requests} of each sent one at a time (gunicorn -w {args.workers}): "
        "web worker / every process (web and task workers, until the report counts the submits):"
    )
    rows = []
    for kind in kinds:
        for step in ("draft", "submit"):
            rows.append([f"{kind} {step}", *(_cpu(r, kind, step) for r in runs)])
    rows.append(["bare read + write", *(_parts(r.figures.bare_parts) for r in runs)])
    rows.append(
        ["worst submit / bare", *(f"{r.figures.cpu_ratio:.2f}x / {r.figures.cpu_ratio_total:.2f}x" for r in runs)]
    )
    print_table(["", *names], rows)
    if any(r.figures.at_size for r in runs):
        print()
        print(
            f"CPU ms per save at each size: submits at {args.save_rate:g}/s for {args.save_seconds:g} s "
            "(every kind, interleaved), until the reports count them: web / task workers / total:"
        )
        print_table(["topics", *names], [[f"{size:,}", *(_at_size(r.figures, size) for r in runs)] for size in sizes])
    print()
    print("Submit rate and latency (every kind, interleaved):")
    print_table(["", *names], [[label, *(fn(r.figures) for r in runs)] for label, fn in RATE_ROWS])
    print()
    print("Open-loop submit latency by kind, p50 / p95 ms (n):")
    print_table(["kind", *names], [[kind, *(_by_kind(r.figures, kind) for r in runs)] for kind in kinds])
    if sizes:
        print()
        print(
            f"Time from a submission to the organiser's report counting it, s: p50 / p95 of {args.samples} "
            "(10 assessors per topic, seeded in bulk):"
        )
        print_table(
            ["kind", "topics", *names],
            [[kind, f"{size:,}", *(_fresh(r.figures, size, kind) for r in runs)] for size in sizes for kind in kinds],
        )
    print()
    print(f"Concurrency check: locust, {args.users} assessors for {args.seconds:.0f} s, then the database:")
    print_table(["", *names], [[label, *(fn(r) for r in runs)] for label, fn in CHECK_ROWS])
    for r in runs:
        for problem in r.verification["problems"]:
            print(f"  {r.engine}: {problem}")
        for failure in r.figures.failures[:10]:
            print(f"  {r.engine}: {failure[:300]}")
        for error in r.locust["errors"][:10]:
            print(f"  {r.engine}: {error['occurrences']} x {error['method']} {error['name']}: {error['error'][:200]}")
    print()
    first = runs[0]
    worst_submit = max(c["submit_ms"] for c in first.figures.cost.values())
    extra = {}
    for r in runs[1:]:
        extra |= {
            f"cpu_ratio_{r.engine}": round(r.figures.cpu_ratio, 2),
            f"cpu_ratio_total_{r.engine}": round(r.figures.cpu_ratio_total, 2),
            f"total_ms_per_save_{r.engine}": _num(_largest(r.figures, "total_ms")),
            f"total_with_fits_ms_per_save_{r.engine}": _num(_largest(r.figures, "total_with_fits_ms")),
            f"fresh_p95_s_{r.engine}": _num(r.figures.fresh_p95_s()),
            f"max_rate_{r.engine}": r.figures.max_rate,
            f"open_p95_s_{r.engine}": _num(_s(r.figures.open_p95_ms)),
        }
    print_result(
        "load",
        seconds=worst_submit / 1000,
        reference_seconds=first.figures.bare_ms / 1000,
        peak_mb=max(r.peak_mb for r in runs),
        engines=",".join(engines),
        failures=sum(r.failures for r in runs),
        lost=sum(r.lost for r in runs),
        cpu_ratio=round(first.figures.cpu_ratio, 2),
        cpu_ratio_total=round(first.figures.cpu_ratio_total, 2),
        web_ms_per_save=_num(_largest(first.figures, "web_ms")),
        total_ms_per_save=_num(_largest(first.figures, "total_ms")),
        fits_ms_per_save=_num(_largest(first.figures, "fits_ms")),
        total_with_fits_ms_per_save=_num(_largest(first.figures, "total_with_fits_ms")),
        fresh_p95_s=_num(first.figures.fresh_p95_s()),
        fresh_topics=max(sizes) if sizes else 0,
        max_rate=first.figures.max_rate,
        open_rate=first.figures.open_rate,
        open_p50_s=_num(_s(first.figures.open_p50_ms)),
        open_p95_s=_num(_s(first.figures.open_p95_ms)),
        generator_cpu_pct=first.figures.generator_cpu_pct,
        **extra,
    )


NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def _num(value: float | None) -> float | str:
    return "none" if value is None else value


def _s(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1000, 4)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _cpu(result: harness.LoadResult, kind: str, step: str) -> str:
    """``web (x bare) / total (x bare)``, ms per request."""
    cost, bare = result.figures.cost[kind], result.figures.bare_parts
    web, total = cost[f"{step}_ms"], cost[f"{step}_total_ms"]
    if not bare.get("web") or not bare.get("total"):
        return f"{web:.1f} / {total:.1f}"
    return f"{web:.1f} ({web / bare['web']:.1f}x) / {total:.1f} ({total / bare['total']:.1f}x)"


def _parts(parts: dict[str, float]) -> str:
    database = f" (+ database {parts['database']:.1f})" if "database" in parts else ""
    return f"{parts['web']:.1f} / {parts['total']:.1f}{database}"


def _at_size(figures: harness.Figures, size: int) -> str:
    found = figures.at_size.get(size)
    if not found:
        return "-"
    database = f" (+ database {found['database_ms']:.1f})" if "database_ms" in found else ""
    return (
        f"{found['web_ms']:.1f} / {found['workers_ms']:.1f} / {found['total_ms']:.1f}{database}, {found['saves']} saves"
    )


def _largest(figures: harness.Figures, key: str) -> float | None:
    """``key`` of the CPU per save at the largest size measured."""
    return figures.at_size[max(figures.at_size)][key] if figures.at_size else None


def _by_kind(figures: harness.Figures, kind: str) -> str:
    p50, p95, n = figures.open_by_kind.get(kind, (None, None, 0))
    return f"{_ms(p50)} / {_ms(p95)} ({n})"


def _fresh(figures: harness.Figures, size: int, kind: str) -> str:
    found = figures.fresh.get(size, {}).get(kind)
    if not found or found["p50_s"] is None:
        return "-"
    return f"{found['p50_s']:.2f} / {found['p95_s']:.2f}"


RATE_ROWS = [
    ("max submits/s (closed loop, 1 client per worker)", lambda f: f"{f.max_rate:.1f}"),
    ("  latency p50 ms at the max", lambda f: _ms(f.closed_p50_ms)),
    ("open-loop rate (half the max), submits/s", lambda f: f"{f.open_rate:.1f}"),
    ("  sent", lambda f: f.open_sent),
    ("  latency p50 ms", lambda f: _ms(f.open_p50_ms)),
    ("  latency p95 ms", lambda f: _ms(f.open_p95_ms)),
    ("  the generator's own CPU, % of a core", lambda f: f"{f.generator_cpu_pct:.1f}"),
]

CHECK_ROWS = [
    ("locust requests", lambda r: r.requests),
    ("failures (all phases)", lambda r: r.failures),
    ("409 on saves (re-read, retried)", lambda r: r.conflicts),
    ("409 on stale edits (expected)", lambda r: r.stale_409),
    ("replays answered, nothing written", lambda r: r.replays),
    ("judgments checked (all phases)", lambda r: r.verification["judgments"]),
    (
        "saves held by revisions = acknowledged saves",
        lambda r: (
            f"{r.verification['revision_saves']} = {r.verification['saves']} (in {r.verification['revisions']} revisions)"
        ),
    ),
    ("reports caught up after, s", lambda r: f"{r.verification['reports_settled_s']:.1f}"),
    ("database check", lambda r: "ok" if r.lost == 0 else f"{r.lost} problems"),
    ("peak RSS of a web worker, MB", lambda r: f"{r.peak_mb:.0f}"),
]


if __name__ == "__main__":
    main()
