"""What the intervals cost on the demo campaigns: one whole recompute of each demo
campaign's reports (read, every topic report, the campaign report, the writes:
``scoring.jobs.recompute_reports(..., everything=True)``, what the worker runs)
with every interval at 1,000 resamples (the default) against the same recompute
with 2 resamples (the same code and point figures; the resampling nearly gone).

Run from the project root: ``python -m benchmarks.demo_intervals``. It builds the
demo (``annotate.demo.seed``) in a scratch SQLite file and deletes it afterwards.
The target: the intervals cost no more than the report itself, i.e.
``added_seconds <= reference_seconds`` for every kind (ratio >= 0.5).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

scratch = Path(tempfile.mkdtemp(prefix="concord-bench-"))
os.environ["CONCORD_SQLITE_PATH"] = str(scratch / "demo.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

import stats.intervals as intervals  # noqa: E402
from annotate.demo import seed  # noqa: E402
from benchmarks._harness import measure, print_result, print_table  # noqa: E402
from scoring.jobs import recompute_reports  # noqa: E402


def main() -> None:
    call_command("migrate", verbosity=0)
    _, campaigns = seed(reset_passwords=False)
    rows, worst = [], None
    for campaign in campaigns:

        def recompute(pk: int = campaign.pk) -> int:
            return recompute_reports(pk, everything=True)

        intervals.DEFAULT_RESAMPLES = 1000
        full = measure(recompute, repeat=3, trace_memory=False)
        intervals.DEFAULT_RESAMPLES = 2
        bare = measure(recompute, repeat=3, trace_memory=False)
        intervals.DEFAULT_RESAMPLES = 1000
        added = full.seconds - bare.seconds
        rows.append([campaign.kind, campaign.name, campaign.topics.count(), bare.seconds, full.seconds, added])
        share = added / bare.seconds if bare.seconds else float("inf")
        if worst is None or share > worst[0]:
            worst = (share, campaign, full, bare)
    print_table(["kind", "campaign", "topics", "report (2 resamples) s", "with intervals s", "added s"], rows)
    share, campaign, full, bare = worst
    print(f"largest share: {campaign.kind} ({campaign.name}): intervals add {share:.2f} x the report")
    print_result(
        "demo_intervals",
        seconds=full.seconds,
        reference_seconds=bare.seconds,
        peak_mb=0.0,
        added_over_report=round(share, 3),
        target_met=share <= 1.0,
    )


if __name__ == "__main__":
    try:
        main()
    finally:
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()
