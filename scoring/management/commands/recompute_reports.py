"""Recompute the stored reports of campaigns, or check them against a recompute from scratch.

    manage.py recompute_reports                    the stale topics and the campaign report (what the worker does)
    manage.py recompute_reports --full             every topic's partial and disagreement, and the campaign report
    manage.py recompute_reports --full --check     write nothing: compare every stored partial, disagreement and
                                                   the campaign report with a recompute
                                                   from scratch (to --tolerance, default 1e-12); exit status 1
                                                   and one line per difference when any differs
    manage.py recompute_reports --campaign 3 ...   only campaign 3 (the option repeats; default: every campaign)

The check is the operators' form of tests/scoring/test_incremental.py: the
live campaign report is merged from stored per-topic partial results
(scoring/partials.py) and must equal the report built from every judgment.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from scoring import jobs


class Command(BaseCommand):
    help = "Recompute the stored reports (--full: every topic), or --check them against a recompute from scratch."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--campaign", type=int, action="append", default=[], help="a campaign id (repeatable)")
        parser.add_argument("--full", action="store_true", help="every topic, not only the stale ones")
        parser.add_argument("--check", action="store_true", help="write nothing; compare stored with from scratch")
        parser.add_argument("--tolerance", type=float, default=1e-12, help="largest difference allowed (--check)")

    def handle(self, *args, campaign: list[int], full: bool, check: bool, tolerance: float, **options) -> None:
        if not tolerance >= 0:
            raise CommandError("--tolerance: give a number >= 0")
        campaigns = Campaign.objects.order_by("pk")
        if campaign:
            missing = sorted(set(campaign) - set(campaigns.filter(pk__in=campaign).values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"--campaign: no campaign {', '.join(map(str, missing))}")
            campaigns = campaigns.filter(pk__in=campaign)
        differing = 0
        for one in campaigns:
            if check:
                found = jobs.check_reports(one, tolerance=tolerance)
                differing += bool(found)
                verdict = f"{len(found)} difference(s)" if found else "equal to a recompute from scratch"
                self.stdout.write(f"campaign {one.pk} ({one.kind}, {one.name}): {verdict}")
                for line in found[:50]:
                    self.stdout.write(f"  {line}")
            else:
                written = jobs.recompute_reports(one.pk, everything=full)
                self.stdout.write(f"campaign {one.pk} ({one.kind}, {one.name}): {written} topic report(s) written")
        if differing:
            raise CommandError(f"{differing} campaign(s) differ from a recompute from scratch")
