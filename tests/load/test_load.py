"""The load test, small: each phase of ``harness.run_load`` at a tiny size (5
requests per kind one at a time, 1 s of closed-loop and 2 s of open-loop submits,
8 locust assessors judging every kind for 8 s, one timed submission per kind on
10-topic campaigns) against gunicorn (4 workers) and the task workers, then the
database checked.

On SQLite in the suite's SQLite pass; on PostgreSQL in the pass where
DATABASE_URL points at a server (.ci/run), in a database of its own created
on that server and dropped afterwards. The full run is ``python -m benchmarks.load``.
No timing is asserted: the machine is shared.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the harness is imported as benchmarks.loadrig.harness, as its subprocesses run it
    sys.path.insert(0, str(ROOT))

from benchmarks.loadrig import harness  # noqa: E402

DATABASE_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = DATABASE_URL.startswith("postgres")

pytestmark = pytest.mark.load


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param("sqlite", marks=pytest.mark.skipif(bool(DATABASE_URL), reason="runs in the SQLite pass")),
        pytest.param(
            "postgresql",
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(not ON_POSTGRES, reason="needs DATABASE_URL pointing at PostgreSQL"),
            ],
        ),
    ],
)
def test_concurrent_assessors_lose_nothing_and_duplicate_nothing(engine, tmp_path):
    result = harness.run_load(
        engine,
        users=8,
        seconds=8,
        workers=4,
        think=0.1,
        per_assessor=2,
        cost_requests=5,
        rate_seconds=1,
        open_seconds=2,
        sizes=(10,),
        fresh_samples=1,
        save_rate=2,
        save_seconds=2,
        database_url=DATABASE_URL if engine == "postgresql" else None,
        directory=tmp_path,
    )
    errors = result.locust["errors"]
    assert result.failures == 0, f"{result.failures} failed requests: {errors} {result.figures.failures}"
    assert result.submits > 0
    check = result.verification
    # Every acknowledged judgment once, its revisions holding every acknowledged
    # save once (drafts in a row from one token share one), replays and stale
    # edits wrote nothing, and the reports caught up.
    assert check["problems"] == [], check
    assert check["judgments"] > 0
    assert check["revision_saves"] == check["saves"] and check["revisions"] <= check["saves"]
    assert result.locust["in_flight_at_exit"] == 0
    # The measured phases ran for every registered kind, their requests answered
    # (their saves are among the checked ones above).
    from kinds.registry import KINDS

    registered = sorted(KINDS)
    figures = result.figures
    assert figures.failures == []
    assert sorted(figures.cost) == registered == sorted(figures.fresh[10])
    assert figures.open_sent > 0 and sum(n for _, _, n in figures.open_by_kind.values()) == figures.open_sent
    assert [len(k["samples_s"]) for k in figures.fresh[10].values()] == [1] * len(registered)
    # Every process counted: the task workers' CPU is in each submit's total (the
    # workers rebuilt the reports the submits queued before it was read), and the
    # bare endpoint's total holds the web worker's share too.
    for kind, cost in figures.cost.items():
        assert cost["submit_workers_ms"] > 0, (kind, cost)
        assert cost["submit_total_ms"] == pytest.approx(cost["submit_ms"] + cost["submit_workers_ms"], abs=0.02)
    assert figures.bare_parts["total"] >= figures.bare_parts["web"] == figures.bare_ms > 0
    assert figures.cpu_ratio_total > 0
    # The CPU per save at a size: the 4 spare submits (2/s for 2 s) were sent and counted.
    at_size = figures.at_size[10]
    assert at_size["saves"] == 4 and at_size["workers_ms"] > 0
    assert at_size["total_ms"] == pytest.approx(at_size["web_ms"] + at_size["workers_ms"], abs=0.02)
    # the later refreshes of the costly figures, timed and amortised: some kind has them
    assert at_size["fits_ms"] > 0
    assert at_size["total_with_fits_ms"] == pytest.approx(at_size["total_ms"] + at_size["fits_ms"], abs=0.02)
