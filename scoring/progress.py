"""A campaign's progress counts, which the worker keeps beside its reports.

Per assessor: topics assigned, drafts, submitted, skipped, active time; for
the campaign: assessor-topic pairs assigned, judged and with a draft, and the
topics waiting for adjudication. Counting them is a handful of grouped queries
over every assignment and judgment of the campaign: about 0.5 s at 10,000
crowd items (100,000 judgments) on SQLite, ten times that at 100,000. The
organiser's summary, its Progress section and the home page show them on
every view and every poll, so a big campaign reads them instead: every rebuild
of the campaign's reports (scoring.jobs) stores them as a report named
:data:`NAME`, in the transaction that stores the campaign report and with its
time, kept as running sums that each rebuild updates by the topics that changed
(scoring/progress_sums.py: equal to :func:`count` exactly, at the cost of what
changed). :func:`campaign_progress` counts live while a campaign has fewer than
``CONCORD_LIVE_PROGRESS_LIMIT`` assignments (exact at every instant, and
cheap), and reads the stored counts above it: as fresh as the report. What
changes them without changing what counts marks its topic, or asks for a full
count (scoring.services.progress_changed, draft_changed): a skip, an assignment
or a member asks for a rebuild too, so they follow within one; a draft, a
reopening or active time follow at the next.

Reads only annotate's models: the dashboard's pages import this module, and
scoring/progress_sums.py counts by its rules (and checks itself against :func:`count`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, FilteredRelation, IntegerField, OuterRef, Q, Subquery

from annotate import judges
from annotate.models import Assignment, Campaign, Curation, Judgment, Membership, Topic
from concord import typed
from kinds.base import MODEL_JUDGES_COUNT
from scoring.models import Report

#: The stored counts' report name (one per campaign, topic None).
NAME = "progress"

#: The adjudication's gold lives in this curation (annotate.services.curations.GOLD; not
#: imported: annotate imports this module).
GOLD = "consensus"


@dataclass(frozen=True)
class AssessorProgress:
    username: str
    assigned: int
    #: Judgments that do not count: drafts and withdrawn ones.
    drafts: int
    #: Judgments that count: submitted or reopened.
    submitted: int
    #: Of ``submitted``, reopened ones (a draft on top of the submitted version).
    reopened: int = 0
    #: Of ``drafts``, withdrawn ones.
    withdrawn: int = 0
    #: Topics the assessor skipped (annotate.flags).
    skipped: int = 0
    #: Active time (Judgment.active_ms) per submitted topic: the total and the median, in ms.
    active_total_ms: int = 0
    active_median_ms: int | None = None

    @property
    def percent(self) -> int:
        return round(100 * self.submitted / self.assigned) if self.assigned else 0


@dataclass(frozen=True)
class AssignmentCounts:
    """``assigned``: assessor-topic pairs; ``judged``: of those, with a counting
    (submitted or reopened) judgment; ``drafts``: with a draft (or withdrawn)
    judgment only; ``to_adjudicate``: topics with two or more counting judgments
    and no gold yet (the adjudication queue's "open" state)."""

    assigned: int = 0
    judged: int = 0
    drafts: int = 0
    to_adjudicate: int = 0


@dataclass(frozen=True)
class TopicRaters:
    """The fewest and the most assessors assigned to one topic of the campaign
    (``least`` 0 while a topic has none): what an imported crowd's header says
    ("9–10 assessors per topic")."""

    least: int = 0
    most: int = 0


@dataclass(frozen=True)
class CampaignProgress:
    """Everything this module counts for one campaign, as stored and as counted live."""

    counts: AssignmentCounts
    #: Judgments per status, and assignments with none (``"new"``): :func:`state_totals`.
    states: dict[str, int]
    assessors: list[AssessorProgress] = field(default_factory=list)
    #: None for a campaign without imported workers (its header says its overlap), when
    #: counted live for the pages (they ask :func:`campaign_raters`), and in counts stored
    #: by an older version.
    raters: TopicRaters | None = None


def count(campaign: Campaign, *, states: bool = True, raters: bool | None = None) -> CampaignProgress:
    """Count the campaign's progress now (``states``, ``raters``: False leaves
    :func:`state_totals`, :func:`topic_raters` out; ``raters`` None counts them
    for a campaign with imported workers, the only one whose header shows them)."""
    if raters is None:
        raters = Membership.objects.filter(campaign=campaign, imported=True).exists()
    counts = assignment_counts([campaign.pk])[campaign.pk]
    return CampaignProgress(
        counts,
        state_totals(campaign, counts) if states else {},
        assessor_progress(campaign),
        topic_raters(campaign) if raters else None,
    )


def count_if_big(campaign: Campaign) -> CampaignProgress | None:
    """The campaign's progress if it has at least ``CONCORD_LIVE_PROGRESS_LIMIT`` assignments;
    None for a smaller one (counted live): what a split build stores while its chunks run
    (scoring.jobs.store_progress; a rebuild stores scoring/progress_sums.py's)."""
    big = Assignment.objects.filter(topic__campaign=campaign).count() >= settings.CONCORD_LIVE_PROGRESS_LIMIT
    return count(campaign) if big else None


def campaign_progress(campaign: Campaign, *, states: bool = False) -> CampaignProgress:
    """The campaign's progress: counted now below ``CONCORD_LIVE_PROGRESS_LIMIT``
    assignments (with the :func:`state_totals` only if ``states``), else as its
    last rebuild stored it (with them)."""
    stored = stored_progress([campaign.pk]).get(campaign.pk)
    # the header counts its raters per topic itself (campaign_raters): only an imported crowd's
    return stored if stored is not None and _big(stored) else count(campaign, states=states, raters=False)


def campaign_raters(campaign: Campaign) -> TopicRaters:
    """:func:`topic_raters` of the campaign: counted now below ``CONCORD_LIVE_PROGRESS_LIMIT``
    assignments, else as its last rebuild stored them (one grouped count over every
    assignment: 0.09 s at 100,000 assignments on PostgreSQL, most of the organiser's page)."""
    stored = stored_progress([campaign.pk]).get(campaign.pk)
    if stored is not None and _big(stored) and stored.raters is not None:
        return stored.raters
    return topic_raters(campaign)


def topic_raters(campaign: Campaign) -> TopicRaters:
    """Count the fewest and the most assessors assigned to one of the campaign's topics now
    (model judges left out unless the campaign counts them: annotate/judges.py)."""
    seen = list(
        Assignment.objects.filter(topic__campaign=campaign)
        .exclude(assessor_id__in=judges.left_out(campaign))
        .values("topic_id")
        .order_by()
        .annotate(n=Count("assessor_id", distinct=True))
        .values_list("n", flat=True)
    )
    topics = Topic.objects.filter(campaign=campaign).count()
    return TopicRaters(0 if len(seen) < topics else min(seen, default=0), max(seen, default=0))


def campaign_counts(campaign_ids: Iterable[int]) -> dict[int, AssignmentCounts]:
    """Campaign id -> its :class:`AssignmentCounts` (the home page's, for many
    campaigns): stored ones for big campaigns, the others counted in one go."""
    ids = list(campaign_ids)
    stored = {pk: found.counts for pk, found in stored_progress(ids).items() if _big(found)}
    return {**assignment_counts([pk for pk in ids if pk not in stored]), **stored}


def _big(found: CampaignProgress) -> bool:
    return found.counts.assigned >= settings.CONCORD_LIVE_PROGRESS_LIMIT


def stored_progress(campaign_ids: Iterable[int]) -> dict[int, CampaignProgress]:
    """Campaign id -> the progress its last rebuild stored (campaigns with none are left out)."""
    rows = Report.objects.filter(campaign_id__in=list(campaign_ids), name=NAME).values_list("campaign_id", "data")
    found = {}
    for pk, data in rows:
        try:
            found[pk] = typed.load(CampaignProgress, data)
        except typed.Outdated:
            pass  # stored by an older version: counted live until the next rebuild stores them anew
    return found


def store(campaign: Campaign, progress: CampaignProgress | None, now) -> None:
    """Store ``progress`` as the campaign's (inside the rebuild's transaction); None:
    delete what is stored (a campaign that is small now is counted live)."""
    if progress is None:
        Report.objects.filter(campaign=campaign, name=NAME).delete()
        return
    Report.objects.put(
        campaign, NAME, data=typed.dump(progress), computed_at=now, judgments_seen=progress.counts.judged
    )


def is_stored(campaign_id: int) -> bool:
    """Whether the campaign's pages read stored counts (it had ``CONCORD_LIVE_PROGRESS_LIMIT``
    assignments or more at its last rebuild): a change to its assignments, skips or
    assessors that marks no topic stale must then ask for a rebuild
    (scoring.services.progress_changed)."""
    return Report.objects.filter(campaign_id=campaign_id, name=NAME).exists()


def assessor_progress(campaign: Campaign) -> list[AssessorProgress]:
    """Per assessor of the campaign: assigned, draft and submitted topics
    (a reopened judgment counts as submitted, a withdrawn one as a draft).

    Three grouped scans (the assignments, the judgments, the counting judgments'
    active times), grouped by assessor id and named after (at 100,000 crowd
    items, five scans grouped by a joined username took 2 s on PostgreSQL)."""
    assignments = {
        r["assessor_id"]: (r["assigned"], r["skipped"])
        for r in Assignment.objects.filter(topic__campaign=campaign)
        .order_by()
        .values("assessor_id")
        .annotate(assigned=Count("id"), skipped=Count("id", filter=Q(skipped_at__isnull=False)))
    }
    counts = {
        r["assessor_id"]: (r["drafts"], r["submitted"], r["reopened"], r["withdrawn"])
        for r in Judgment.objects.filter(topic__campaign=campaign)
        .order_by()
        .values("assessor_id")
        .annotate(
            drafts=Count("id", filter=Q(status__in=[Judgment.Status.DRAFT, Judgment.Status.WITHDRAWN])),
            submitted=Count("id", filter=Q(status__in=Judgment.COUNTING)),
            reopened=Count("id", filter=Q(status=Judgment.Status.REOPENED)),
            withdrawn=Count("id", filter=Q(status=Judgment.Status.WITHDRAWN)),
        )
    }
    assessors = set(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.ASSESSOR).values_list("user_id", flat=True)
    )
    ids = assessors | set(assignments)
    names = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username")) if ids else {}
    # Active time per submitted topic (a counting judgment: submitted or reopened), as how many
    # judgments took each time: a crowd's 100,000 imported judgments are a few hundred rows.
    times: dict[int, list[tuple[int, int]]] = {}
    for user_id, active, n in (
        Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING)
        .values("assessor_id", "active_ms")
        .annotate(n=Count("id"))
        .order_by("assessor_id", "active_ms")
        .values_list("assessor_id", "active_ms", "n")
    ):
        times.setdefault(user_id, []).append((active, n))
    return [
        AssessorProgress(
            names[user_id],
            assignments.get(user_id, (0, 0))[0],
            *counts.get(user_id, (0, 0, 0, 0)),
            skipped=assignments.get(user_id, (0, 0))[1],
            active_total_ms=sum(active * n for active, n in times.get(user_id, [])),
            active_median_ms=round(median_of_counts(times[user_id])) if times.get(user_id) else None,
        )
        for user_id in sorted(ids, key=names.__getitem__)
    ]


def median_of_counts(counted: list[tuple[int, int]]) -> float:
    """``statistics.median`` of the values ``counted`` holds as (value, how many), values ascending.

    >>> median_of_counts([(10, 2), (40, 1)]), median_of_counts([(10, 2), (40, 2)])
    (10, 25.0)
    """
    size = sum(n for _, n in counted)
    wanted = (size - 1) // 2, size // 2  # the middle one, or the middle two
    found, seen = [], 0
    for value, n in counted:
        while len(found) < 2 and seen <= wanted[len(found)] < seen + n:
            found.append(value)
        seen += n
    low, high = found
    return low if size % 2 else (low + high) / 2


def state_totals(campaign: Campaign, counts: AssignmentCounts | None = None) -> dict[str, int]:
    """How many judgments of the campaign are in each status, and how many
    assignments have no judgment (``"new"``): three queries whatever the size, two
    given the campaign's :class:`AssignmentCounts` (every status is counting or
    a draft's, so those are the assignments neither judged nor drafted). Model judges are
    left out unless the campaign counts them (annotate/judges.py), as in :func:`assignment_counts`."""
    left_out = judges.left_out(campaign)
    totals = dict(
        Judgment.objects.filter(topic__campaign=campaign)
        .exclude(assessor_id__in=left_out)
        .order_by()
        .values("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    if counts is not None:
        totals["new"] = counts.assigned - counts.judged - counts.drafts
        return totals
    totals["new"] = (
        Assignment.objects.filter(topic__campaign=campaign)
        .exclude(assessor_id__in=left_out)
        .exclude(Exists(Judgment.objects.filter(topic=OuterRef("topic_id"), assessor=OuterRef("assessor_id"))))
        .count()
    )
    return totals


def assignment_counts(campaign_ids: Iterable[int]) -> dict[int, AssignmentCounts]:
    """Campaign id -> its :class:`AssignmentCounts`, counted now, in two queries for any number of
    campaigns: the people's assignments and judgments, model judges left out unless the campaign
    counts them (annotate/judges.py)."""
    ids = list(campaign_ids)
    counts: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    if not ids:
        return {}
    # Each assignment joined to its judgment (at most one per topic and assessor) for both
    # counts: a correlated look-up per assignment took 0.86 s at 100,000 of them on
    # PostgreSQL, the join 0.19 s.
    own = FilteredRelation("topic__judgments", condition=Q(topic__judgments__assessor=F("assessor")))
    for row in (
        _people(Assignment.objects.filter(topic__campaign_id__in=ids))
        .annotate(own=own)
        .values("topic__campaign_id")
        .annotate(
            assigned=Count("pk"),
            judged=Count("pk", filter=Q(own__status__in=Judgment.COUNTING)),
            drafts=Count("pk", filter=Q(own__status__in=(Judgment.Status.DRAFT, Judgment.Status.WITHDRAWN))),
        )
        .order_by()
    ):
        counts[row["topic__campaign_id"]].update(assigned=row["assigned"], judged=row["judged"], drafts=row["drafts"])
    waiting = _waiting_for_gold(ids).order_by().values("campaign_id").annotate(n=Count("pk"))
    for campaign_id, n in waiting.values_list("campaign_id", "n"):
        counts[campaign_id]["to_adjudicate"] = n
    return {pk: AssignmentCounts(**values) for pk, values in counts.items()}


def _people(rows):
    """``rows`` (assignments or judgments, of any campaigns) without the model judges' of the
    campaigns that do not count them (annotate/judges.py): one index probe per row, no query."""
    return rows.exclude(
        Exists(
            Membership.objects.filter(
                campaign_id=OuterRef("topic__campaign_id"), user_id=OuterRef("assessor_id"), model_judge=True
            )
            # not (the key is there and true): a campaign without the key leaves its model judges out too
            .exclude(
                **{f"campaign__params__{MODEL_JUDGES_COUNT}": True, "campaign__params__has_key": MODEL_JUDGES_COUNT}
            )
        )
    )


def _waiting_for_gold(ids: list[int]):
    """Topics with two or more of the people's counting judgments and no gold."""
    submissions = (
        _people(Judgment.objects.filter(topic_id=OuterRef("pk"), status__in=Judgment.COUNTING))
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


__all__ = [
    "NAME",
    "AssessorProgress",
    "AssignmentCounts",
    "CampaignProgress",
    "assessor_progress",
    "assignment_counts",
    "campaign_counts",
    "campaign_progress",
    "count",
    "count_if_big",
    "is_stored",
    "median_of_counts",
    "state_totals",
    "store",
    "stored_progress",
]
