"""The organiser's dashboard (README, Pages; docs/help/dashboard.md): reads only.

:func:`campaign_summary` is what the campaign page opens on: progress, the
kind's headline figure with its interval, and what needs the organiser now
(open flags, topics waiting for adjudication, running and failed jobs).
:func:`attention` gives the home page the same counts for many campaigns at
once. Both cost a fixed number of queries whatever the number of topics,
assessors or campaigns: every count is one grouped query, and a big
campaign's progress counts (assigned, judged, drafts, to adjudicate) are read
as its last rebuild stored them (scoring.progress).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Exists, OuterRef

from annotate.models import Campaign, Flag, Membership, Topic
from kinds.registry import get_kind
from kinds.spec import Headline
from scoring import progress
from scoring.models import Job

#: A job in these states is still to finish (its Cancel button shows).
RUNNING = (Job.Status.QUEUED, Job.Status.RUNNING)


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
    """Campaign id -> its :class:`Attention`, in a fixed number of queries for any number of
    campaigns: a big campaign's assignment counts as its last rebuild stored them
    (scoring.progress), the rest counted now."""
    ids = list(campaign_ids)
    return _attention(progress.campaign_counts(ids)) if ids else {}


def _attention(assignments: dict[int, progress.AssignmentCounts]) -> dict[int, Attention]:
    """The campaigns' assignment counts with what else needs their organisers (counted now)."""
    ids = list(assignments)
    counts: dict[int, dict[str, int]] = {pk: dataclasses.asdict(found) for pk, found in assignments.items()}
    grouped = (
        ("open_flags", Flag.objects.filter(topic__campaign_id__in=ids, resolved_at__isnull=True), "topic__campaign_id"),
        ("running_jobs", Job.objects.filter(campaign_id__in=ids, status__in=RUNNING), "campaign_id"),
        ("failed_jobs", _failed_latest(ids), "campaign_id"),
    )
    for name, rows, key in grouped:
        for campaign_id, n in rows.order_by().values(key).annotate(n=Count("pk")).values_list(key, "n"):
            counts[campaign_id][name] = n
    return {pk: Attention(**values) for pk, values in counts.items()}


def _failed_latest(ids: list[int]):
    """Failed jobs that are the latest of their analysis in their campaign."""
    later = Job.objects.filter(
        campaign_id=OuterRef("campaign_id"), analysis=OuterRef("analysis"), pk__gt=OuterRef("pk")
    )
    return Job.objects.filter(campaign_id__in=ids, status=Job.Status.FAILED).exclude(Exists(later))


def campaign_summary(campaign: Campaign, latest: Any, counted: progress.CampaignProgress) -> CampaignSummary:
    """The summary of one campaign; ``latest``: its stored report's headline, time and
    judgments seen (``scoring.live.campaign_headline``, read by the caller under the page's
    ETag) or None; ``counted``: its progress (``scoring.progress.campaign_progress``)."""
    return CampaignSummary(
        attention=_attention({campaign.pk: counted.counts})[campaign.pk],
        topics=Topic.objects.filter(campaign=campaign).count(),
        report_at=latest.computed_at if latest is not None else None,
        judgments_seen=latest.judgments_seen if latest is not None else 0,
        headline=latest.data if latest is not None else None,
        has_headline=get_kind(campaign.kind).reports.headline is not None,
    )


@dataclass(frozen=True)
class Raters:
    """How many judge each topic: ``overlap`` is what the campaign hands out to its own
    assessors; an imported crowd file brings its own raters, often more (10 workers per
    item), so ``least`` / ``most`` are the assessors observed per topic (assigned or
    having judged), counted when the campaign has imported workers (else None)."""

    overlap: int
    least: int | None = None
    most: int | None = None

    @property
    def imported(self) -> bool:
        return self.least is not None

    @property
    def text(self) -> str:
        """``2 assessors per topic``; imported: ``10 assessors per topic (imported)``."""
        if not self.imported:
            return f"{self.overlap} assessor{'s' if self.overlap != 1 else ''} per topic"
        shown = f"{self.least}" if self.least == self.most else f"{self.least}–{self.most}"
        return f"{shown} assessor{'s' if self.most != 1 else ''} per topic (imported)"

    @property
    def top_up_text(self) -> str:
        """The top-up button's words: what pressing it does on this campaign."""
        wanted = f"{self.overlap} assessor{'s' if self.overlap != 1 else ''}"
        if self.imported:
            return f"Give topics with fewer than {wanted} more of your assessors"
        return f"Top up to {wanted} per topic"


def raters(campaign: Campaign) -> Raters:
    """:class:`Raters` of ``campaign`` (when it has imported workers, counted as its
    progress is: scoring.progress.campaign_raters)."""
    if not Membership.objects.filter(campaign=campaign, imported=True).exists():
        return Raters(campaign.overlap)
    found = progress.campaign_raters(campaign)
    return Raters(campaign.overlap, found.least, found.most)
