"""The adjudication queue and page (docs/pages.md, "Adjudication"): reads.

:func:`read_filters` and :func:`disputed` (the queue: topics with two or more
counting judgments, most disputed first, on the topic table's selectors,
dashboard/topics.py), :func:`page` (one topic's judgments side by side through
the kind's ``KindSpec.adjudication``, its current gold and the next topic).
What the page saves is ``annotate.services.curations.accept``'s. Generic: the kind is
reached through its spec only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Q

from annotate.judges import counts_model_judges
from annotate.models import Campaign, Curation, Judgment, Membership, Run, Topic
from annotate.services.curations import GOLD, submitted
from concord.digits import whole_number
from concord.errors import InvalidInput
from dashboard import topics
from kinds.base import SHOW_REFERENCE
from kinds.registry import get_kind

#: The queue's states: no gold yet, or a gold saved by someone.
STATES = ("open", "adjudicated")


#: The open-flags filter: topics with an open flag, or without one.
FLAGGED = ("yes", "no")


@dataclass(frozen=True)
class Filters:
    """The queue's filters, checked. ``assessor`` and ``other``: topics both judged
    (``other`` needs ``assessor``; ``assessor`` alone: topics that one judged)."""

    assessor: str = ""
    other: str = ""
    flagged: str = ""
    state: str = ""
    page: int = 1

    def query(self, **changes: Any) -> dict[str, str]:
        values = {
            "assessor": self.assessor,
            "other": self.other,
            "flagged": self.flagged,
            "state": self.state,
            "page": self.page,
        }
        values.update(changes)
        return {k: str(v) for k, v in values.items() if v not in ("", None) and not (k == "page" and v == 1)}


def judges(campaign: Campaign) -> list[str]:
    """Everyone with a counting judgment in the campaign, by name (the assessor filters' choices)."""
    return list(
        Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING)
        .values_list("assessor__username", flat=True)
        .distinct()
        .order_by("assessor__username")
    )


def read_filters(data: Any, campaign: Campaign) -> Filters:
    """Filters from a query string; a value not allowed is InvalidInput naming its field."""
    names = {}
    for key in ("assessor", "other"):
        name = (data.get(key) or "").strip()
        if name and not Membership.objects.filter(campaign=campaign, user__username=name).exists():
            raise InvalidInput(key, f"{name!r} is not a member of this campaign")
        names[key] = name
    if names["other"] and not names["assessor"]:
        raise InvalidInput("assessor", "choose the first assessor of the pair too")
    if names["other"] and names["other"] == names["assessor"]:
        raise InvalidInput("other", "choose two different assessors")
    flagged = (data.get("flagged") or "").strip()
    if flagged not in ("", *FLAGGED):
        raise InvalidInput("flagged", f"expected {' or '.join(FLAGGED)} (topics with or without an open flag)")
    state = (data.get("state") or "").strip()
    if state not in ("", *STATES):
        raise InvalidInput("state", f"expected {' or '.join(STATES)}")
    page = whole_number((data.get("page") or "1").strip())
    if page is None or page < 1:
        raise InvalidInput("page", "expected a page number, 1 or more")
    return Filters(assessor=names["assessor"], other=names["other"], flagged=flagged, state=state, page=page)


@dataclass(frozen=True)
class Gold:
    """A topic's current gold: its ``consensus`` curation."""

    version: int
    by: str
    at: datetime
    #: Saves kept (every version of the curation).
    revisions: int
    data: Any


@dataclass(frozen=True)
class QueueRow:
    topic: Topic
    submissions: int
    disagreement: float | None
    open_flags: int
    gold: Gold | None
    #: why the topic is disputed, in a few words (KindSpec ``Reports.disagreement``'s reason)
    reason: str = ""


@dataclass(frozen=True)
class Queue:
    rows: list[QueueRow]
    count: int
    page: int
    pages: int
    filters: Filters


def _disputed_topics(campaign: Campaign):
    """Topics with two or more counting judgments, most disputed first (None last), then in the campaign's order."""
    return (
        topics.scored_topics(campaign)
        .filter(submissions__gte=2)
        .annotate(adjudicated=Exists(Curation.objects.filter(topic=OuterRef("pk"), name=GOLD)))
        .order_by(F("disagreement").desc(nulls_last=True), "position", "id")
    )


def _golds(topic_ids: list[int]) -> dict[int, Gold]:
    found = (
        Curation.objects.filter(topic_id__in=topic_ids, name=GOLD)
        .select_related("updated_by")
        .annotate(saves=Count("revisions"))
    )
    return {
        c.topic_id: Gold(c.version, c.updated_by.username if c.updated_by else "", c.updated_at, c.saves, c.data)
        for c in found
    }


def disputed(campaign: Campaign, filters: Filters) -> Queue:
    """One page of the queue: topics two or more assessors judged, most disputed first."""
    listed = _disputed_topics(campaign)
    for name in (filters.assessor, filters.other):
        if name:
            listed = listed.filter(
                Exists(
                    Judgment.objects.filter(topic=OuterRef("pk"), assessor__username=name, status__in=Judgment.COUNTING)
                )
            )
    if filters.flagged:
        listed = listed.filter(topics.open_flags() if filters.flagged == "yes" else ~topics.open_flags())
    if filters.state:
        listed = listed.filter(adjudicated=filters.state == "adjudicated")
    listed = listed.annotate(open_flag_count=Count("flags", filter=Q(flags__resolved_at__isnull=True), distinct=True))
    found, count, pages = topics.page_of(listed, filters.page)
    golds = _golds([t.pk for t in found])
    rows = [
        QueueRow(t, t.submissions, t.disagreement, t.open_flag_count, golds.get(t.pk), t.disagreement_reason or "")
        for t in found
    ]
    return Queue(rows, count, filters.page, pages, filters)


def next_topic(campaign: Campaign, after: Topic | None = None) -> Topic | None:
    """The most disputed topic without a gold yet (other than ``after``)."""
    waiting = _disputed_topics(campaign).filter(adjudicated=False)
    if after is not None:
        waiting = waiting.exclude(pk=after.pk)
    return waiting.first()


@dataclass(frozen=True)
class Page:
    """What the adjudication page of a topic shows."""

    topic: Topic
    #: What the assessors saw of the topic (the kind's assessor view).
    view: Any
    #: (assessor, submitted payload), by name.
    judgments: list[tuple[str, dict[str, Any]]]
    #: The kind's ``adjudication.compare`` of them (None: the kind has no adjudication part).
    comparison: Any
    #: What "Accept the consensus" saves (None: the kind has no automatic consensus).
    consensus: dict[str, Any] | None
    gold: Gold | None
    next_topic: Topic | None
    #: The reference labellings of the topic, where the campaign's ``show_reference`` allows them.
    references: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: The model judges' judgments of the topic (annotate/judges.py) as ("model judge: <name>", payload).
    model_judges: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def version(self) -> int:
        """The gold's version the page read (0: none yet): sent back with every action."""
        return self.gold.version if self.gold else 0

    @property
    def assessors(self) -> list[str]:
        return [name for name, _ in self.judgments]

    @property
    def beside(self) -> list[tuple[str, dict[str, Any]]]:
        """(label, payload) shown per item beside the judgments and counted in nothing:
        the gold ("gold v3"), the references, then the model judges that the campaign does
        not count with the people."""
        gold = [(f"gold v{self.gold.version}", self.gold.data)] if self.gold else []
        return gold + self.references + self.model_judges


def references(campaign: Campaign, topic: Topic) -> list[tuple[str, dict[str, Any]]]:
    """The campaign's reference labellings of ``topic`` as (label, payload), if its
    organiser lets adjudicators see them (``show_reference``; off by default, since
    adjudication is often meant to be blind to them): "reference", or
    "reference: <run>" when there are several."""
    if campaign.params.get(SHOW_REFERENCE) is not True:
        return []
    kind = get_kind(campaign.kind).data
    # Only the runs marked reference are read, never the systems' (possibly long) results.
    runs = Run.objects.filter(campaign=campaign, data__reference=True).order_by("name")
    found = [(run.name, kind.reference_payload(run.data, topic.external_id)) for run in runs]
    found = [(name, payload) for name, payload in found if payload is not None]
    return [("reference" if len(found) == 1 else f"reference: {name}", payload) for name, payload in found]


def model_judged(topic: Topic) -> list[tuple[str, dict[str, Any]]]:
    """The model judges' submitted judgments of ``topic`` as (label, payload), to show beside the
    people's and count in nothing (annotate/judges.py)."""
    return [(f"model judge: {name}", payload) for name, payload in submitted(topic, model_judges=True)]


def page(campaign: Campaign, topic: Topic) -> Page:
    spec = get_kind(campaign.kind)
    view = spec.data.assessor_view(topic.data)
    judged = submitted(topic)
    shown = Page(
        topic=topic,
        view=view,
        judgments=judged,
        comparison=None,
        consensus=None,
        gold=_golds([topic.pk]).get(topic.pk),
        next_topic=next_topic(campaign, after=topic),
        references=references(campaign, topic),
        model_judges=[] if counts_model_judges(campaign) else model_judged(topic),
    )
    adjudication = spec.adjudication
    if adjudication is None or not judged:
        return shown
    consensus = adjudication.consensus(view, [p for _, p in judged]) if adjudication.consensus else None
    return replace(shown, comparison=adjudication.compare(view, judged, shown.beside), consensus=consensus)
