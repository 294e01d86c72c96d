"""The organiser's dashboard (README, Pages; docs/help/dashboard.md): reads only.

:func:`campaign_summary` is what the campaign page opens on: progress, the
kind's headline figure with its interval, and what needs the organiser now
(open flags, topics waiting for adjudication, running and failed jobs).
:func:`attention` gives the home page the same counts for many campaigns at
once. Both cost a fixed number of queries whatever the number of topics,
assessors or campaigns: every count is one grouped query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery

from annotate.models import Assignment, Campaign, Curation, Flag, Judgment, Topic
from kinds.registry import get_kind
from kinds.spec import Headline
from scoring.models import Job

#: The adjudication's gold lives in this curation (annotate.adjudication.GOLD; not imported:
#: annotate.adjudication imports the assignments page's selectors, which this module does not need).
GOLD = "consensus"

#: A job in these states is still to finish (its Cancel button shows).
RUNNING = (Job.Status.QUEUED, Job.Status.RUNNING)

#: The campaign page's sections (``?section=``), in the tab bar's order, with their names.
SECTIONS: dict[str, str] = {
    "summary": "Summary",
    "report": "Report",
    "progress": "Progress",
    "flags": "Flags",
    "analyses": "Analyses",
}


@dataclass(frozen=True)
class Attention:
    """One campaign's progress and what needs its organiser.

    ``assigned``: assessor-topic pairs; ``judged``: of those, with a counting
    (submitted or reopened) judgment; ``drafts``: with a draft (or withdrawn)
    judgment only. ``to_adjudicate``: topics with two or more counting judgments
    and no gold yet (the adjudication queue's "open" state). ``failed_jobs``: the
    analyses whose latest job failed (running one again clears it)."""

    assigned: int = 0
    judged: int = 0
    drafts: int = 0
    open_flags: int = 0
    to_adjudicate: int = 0
    running_jobs: int = 0
    failed_jobs: int = 0

    @property
    def open(self) -> int:
        """Assessor-topic pairs without a counting judgment."""
        return max(self.assigned - self.judged, 0)

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.assigned) if self.assigned else 0

    @property
    def needs_you(self) -> int:
        return self.open_flags + self.to_adjudicate + self.failed_jobs


@dataclass(frozen=True)
class CampaignSummary:
    """What the campaign page's summary shows. ``headline`` None: no report yet, or the
    kind has no single campaign-wide figure (``has_headline`` says which)."""

    attention: Attention
    topics: int
    report_at: datetime | None
    judgments_seen: int
    headline: Headline | None
    has_headline: bool


def attention(campaign_ids: Iterable[int]) -> dict[int, Attention]:
    """Campaign id -> its :class:`Attention`, in six queries for any number of campaigns."""
    ids = list(campaign_ids)
    if not ids:
        return {}
    counts: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    for row in _assignment_counts(ids):
        counts[row["topic__campaign_id"]].update(assigned=row["assigned"], judged=row["judged"], drafts=row["drafts"])
    grouped = (
        ("open_flags", Flag.objects.filter(topic__campaign_id__in=ids, resolved_at__isnull=True), "topic__campaign_id"),
        ("to_adjudicate", _waiting_for_gold(ids), "campaign_id"),
        ("running_jobs", Job.objects.filter(campaign_id__in=ids, status__in=RUNNING), "campaign_id"),
        ("failed_jobs", _failed_latest(ids), "campaign_id"),
    )
    for name, rows, key in grouped:
        for campaign_id, n in rows.order_by().values(key).annotate(n=Count("pk")).values_list(key, "n"):
            counts[campaign_id][name] = n
    return {pk: Attention(**values) for pk, values in counts.items()}


def _assignment_counts(ids: list[int]):
    # One look-up of the assignment's judgment (one per topic and assessor) for both counts.
    status = Judgment.objects.filter(topic_id=OuterRef("topic_id"), assessor_id=OuterRef("assessor_id")).values(
        "status"
    )[:1]
    return (
        Assignment.objects.filter(topic__campaign_id__in=ids)
        .annotate(judgment_status=Subquery(status))
        .values("topic__campaign_id")
        .annotate(
            assigned=Count("pk"),
            judged=Count("pk", filter=Q(judgment_status__in=Judgment.COUNTING)),
            drafts=Count("pk", filter=Q(judgment_status__in=(Judgment.Status.DRAFT, Judgment.Status.WITHDRAWN))),
        )
        .order_by()
    )


def _waiting_for_gold(ids: list[int]):
    """Topics with two or more counting judgments and no gold."""
    submissions = (
        Judgment.objects.filter(topic_id=OuterRef("pk"), status__in=Judgment.COUNTING)
        .order_by()
        .values("topic_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    gold = Curation.objects.filter(topic_id=OuterRef("pk"), name=GOLD)
    return (
        Topic.objects.filter(campaign_id__in=ids)
        .annotate(submissions=Subquery(submissions, output_field=IntegerField()))
        .filter(submissions__gte=2)
        .exclude(Exists(gold))
    )


def _failed_latest(ids: list[int]):
    """Failed jobs that are the latest of their analysis in their campaign."""
    later = Job.objects.filter(
        campaign_id=OuterRef("campaign_id"), analysis=OuterRef("analysis"), pk__gt=OuterRef("pk")
    )
    return Job.objects.filter(campaign_id__in=ids, status=Job.Status.FAILED).exclude(Exists(later))


def campaign_summary(campaign: Campaign, report: Any) -> CampaignSummary:
    """The summary of one campaign; ``report``: its stored campaign report
    (``scoring.live.campaign_report``, read by the caller under the page's ETag) or None."""
    headline_of = get_kind(campaign.kind).reports.headline
    headline = headline_of(report.data) if report is not None and headline_of is not None else None
    return CampaignSummary(
        attention=attention([campaign.pk])[campaign.pk],
        topics=Topic.objects.filter(campaign=campaign).count(),
        report_at=report.computed_at if report is not None else None,
        judgments_seen=report.judgments_seen if report is not None else 0,
        headline=headline,
        has_headline=headline_of is not None,
    )
