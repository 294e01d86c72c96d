"""The organiser's topic table (the Assignments page): reads.

:func:`topic_table`: every topic of the campaign with its assessors, the state
of each one's judgment and its disagreement (as the last rebuild stored it
beside the topic's partial), filtered, sorted and paginated; the adjudication
queue (dashboard/queue.py) lists the same topics. What the page changes is
``annotate.services.assignments``'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery

from annotate import judges
from annotate.models import Assignment, Campaign, Flag, Judgment, Membership, Topic
from concord.digits import decimal_number, whole_number
from concord.errors import InvalidInput
from scoring import progress
from scoring.models import TopicPartial

#: Topics per page of the list.
PAGE_SIZE = 50


#: A (topic, assessor) pair without any judgment.
NO_JUDGMENT = "new"


#: The states the list filters by: no judgment, then every judgment status.
STATES = (NO_JUDGMENT, *Judgment.Status.values)


#: Sort keys (a leading ``-`` reverses): the campaign's order, the topic id, counting judgments.
SORTS = {
    "position": ("position", "id"),
    "id": ("external_id",),
    "submissions": ("submissions", "position", "id"),
    "disagreement": ("disagreement", "position", "id"),
}


#: The largest disagreement a kind defines (1 - mean tau reaches 2).
MAX_DISAGREEMENT = 2.0


@dataclass(frozen=True)
class Filters:
    """The list's filters, checked: ``q`` searches ids and titles."""

    q: str = ""
    state: str = ""
    assessor: str = ""
    sort: str = "position"
    page: int = 1
    #: only topics whose stored disagreement is at least this (None: any topic)
    disagreement: float | None = None
    #: only topics with an open flag (an assessor's comment not yet resolved)
    flagged: bool = False

    def query(self, **changes: Any) -> dict[str, str]:
        """The filters as query-string parameters (those set), with ``changes``."""
        values = {
            "q": self.q,
            "state": self.state,
            "assessor": self.assessor,
            "disagreement": "" if self.disagreement is None else f"{self.disagreement:g}",
            "flagged": "1" if self.flagged else "",
            "sort": self.sort,
            "page": self.page,
        }
        values.update(changes)
        defaults = {"sort": "position", "page": 1}
        return {k: str(v) for k, v in values.items() if v not in ("", None) and defaults.get(k) != v}


def read_filters(data: Any, campaign: Campaign) -> Filters:
    """Filters from a query string; a value that is not one of the allowed is InvalidInput naming it."""
    q = (data.get("q") or "").strip()
    if len(q) > 200:
        raise InvalidInput("q", "at most 200 characters")
    state = (data.get("state") or "").strip()
    if state and state not in STATES:
        raise InvalidInput("state", f"expected one of {', '.join(STATES)}")
    assessor = (data.get("assessor") or "").strip()
    if assessor and not Membership.objects.filter(campaign=campaign, user__username=assessor).exists():
        raise InvalidInput("assessor", f"{assessor!r} is not a member of this campaign")
    sort = (data.get("sort") or "position").strip()
    if sort.removeprefix("-") not in SORTS:
        raise InvalidInput("sort", f"expected one of {', '.join(SORTS)} (a leading - reverses)")
    raw = (data.get("disagreement") or "").strip()
    disagreement = None
    if raw:
        disagreement = decimal_number(raw)
        if disagreement is None or not 0.0 <= disagreement <= MAX_DISAGREEMENT:
            raise InvalidInput("disagreement", f"expected a number from 0 to {MAX_DISAGREEMENT:g} (digits 0-9)")
    raw_page = (data.get("page") or "1").strip()
    page = whole_number(raw_page)
    if page is None or page < 1:
        raise InvalidInput("page", "expected a page number, 1 or more")
    flagged = (data.get("flagged") or "").strip()
    if flagged not in ("", "1"):
        raise InvalidInput("flagged", "expected 1 (only topics with an open flag) or nothing")
    return Filters(
        q=q, state=state, assessor=assessor, sort=sort, page=page, disagreement=disagreement, flagged=flagged == "1"
    )


@dataclass(frozen=True)
class TopicRow:
    topic: Topic
    submissions: int
    #: (assessor, state) for every assessor assigned the topic or with a judgment of it, by name.
    people: list[tuple[str, str]]
    #: how much its assessors disagree (the kind's measure; None: fewer than two judgments)
    disagreement: float | None = None

    @property
    def movable(self) -> list[str]:
        """Assessors the topic can be taken from: assigned, without a judgment."""
        return [name for name, state in self.people if state == NO_JUDGMENT]


@dataclass(frozen=True)
class TopicTable:
    rows: list[TopicRow]
    count: int
    page: int
    pages: int
    filters: Filters


def scored_topics(campaign: Campaign):
    """The campaign's topics, each with ``submissions`` (its counting judgments: the people's,
    paused assessors and model judges left out unless the campaign counts them, annotate/judges.py),
    ``disagreement`` (as its last rebuild stored it; None: fewer than two judgments) and
    ``disagreement_reason`` (its reason in a few words; None before its first rebuild). The
    assignments page and the adjudication queue (dashboard/queue.py) both list these."""
    stored = TopicPartial.objects.filter(topic=OuterRef("pk"))
    counting = Q(judgments__status__in=Judgment.COUNTING)
    counting &= ~Q(judgments__assessor_id__in=judges.left_out(campaign))
    return campaign.topics.annotate(
        submissions=Count("judgments", filter=counting, distinct=True),
        disagreement=Subquery(stored.values("disagreement")[:1]),
        disagreement_reason=Subquery(stored.values("disagreement_reason")[:1]),
    )


def open_flags() -> Exists:
    """A topic has an open flag (an assessor's comment not yet resolved): a filter on topics."""
    return Exists(Flag.objects.filter(topic=OuterRef("pk"), resolved_at__isnull=True))


def page_of(items, number: int, size: int = PAGE_SIZE):
    """``(page's items, count, pages)``; a page past the last is InvalidInput naming ``page``."""
    paginator = Paginator(items, size)
    if number > max(paginator.num_pages, 1):
        raise InvalidInput("page", f"there {'is' if paginator.num_pages == 1 else 'are'} {paginator.num_pages} page(s)")
    return (list(paginator.page(number)) if paginator.count else []), paginator.count, max(paginator.num_pages, 1)


def topic_table(campaign: Campaign, filters: Filters) -> TopicTable:
    """One page of the campaign's topics matching ``filters``: a topic matches a
    state when one of its assessors (``filters.assessor`` if set) is in it
    (``new``: assigned, without a judgment)."""
    topics = scored_topics(campaign)
    if filters.disagreement is not None:
        topics = topics.filter(disagreement__gte=filters.disagreement)
    if filters.flagged:
        topics = topics.filter(open_flags())
    if filters.q:
        topics = topics.filter(Q(external_id__icontains=filters.q) | Q(title__icontains=filters.q))
    who = {"assessor__username": filters.assessor} if filters.assessor else {}
    if filters.assessor:
        assigned = Assignment.objects.filter(topic=OuterRef("pk"), **who)
        judged = Judgment.objects.filter(topic=OuterRef("pk"), **who)
        topics = topics.filter(Exists(assigned) | Exists(judged))
    if filters.state == NO_JUDGMENT:
        unjudged = Assignment.objects.filter(topic=OuterRef("pk"), **who).exclude(
            Exists(Judgment.objects.filter(topic=OuterRef("topic_id"), assessor=OuterRef("assessor_id")))
        )
        topics = topics.filter(Exists(unjudged))
    elif filters.state:
        topics = topics.filter(Exists(Judgment.objects.filter(topic=OuterRef("pk"), status=filters.state, **who)))
    sort = filters.sort
    order = SORTS[sort.removeprefix("-")]
    # The chosen key reversed with a leading "-"; ties always in the campaign's order.
    # Topics with no disagreement yet (fewer than two judgments) come last either way.
    key = F(order[0]).desc(nulls_last=True) if sort.startswith("-") else F(order[0]).asc(nulls_last=True)
    topics = topics.order_by(key, *order[1:], "position", "id")
    # Only the columns the list shows: never a topic's data (decoding it is most of a big page's cost).
    topics = topics.only("id", "campaign_id", "external_id", "title", "position")
    page, count, pages = page_of(topics, filters.page)
    ids = [t.pk for t in page]
    states = {
        (topic_id, name): status
        for topic_id, name, status in Judgment.objects.filter(topic_id__in=ids).values_list(
            "topic_id", "assessor__username", "status"
        )
    }
    people: dict[int, dict[str, str]] = {t: {} for t in ids}
    for topic_id, name in Assignment.objects.filter(topic_id__in=ids).values_list("topic_id", "assessor__username"):
        people[topic_id][name] = states.get((topic_id, name), NO_JUDGMENT)
    for (topic_id, name), status in states.items():
        people[topic_id].setdefault(name, status)
    rows = [TopicRow(t, t.submissions, sorted(people[t.pk].items()), t.disagreement) for t in page]
    return TopicTable(rows, count, filters.page, pages, filters)


@dataclass(frozen=True)
class StateCount:
    state: str
    count: int


def state_counts(campaign: Campaign, totals: dict[str, int] | None = None) -> list[StateCount]:
    """How many (topic, assessor) pairs are in each state (``new``: assigned, no judgment), in
    :data:`STATES` order, states with none left out: the organiser page's summary. ``totals``:
    what ``scoring.progress.state_totals`` gave (a big campaign's stored counts), else counted now
    (two queries whatever the campaign's size)."""
    counts = progress.state_totals(campaign) if totals is None else totals
    return [StateCount(state, counts[state]) for state in STATES if counts.get(state)]


def assessor_names(campaign: Campaign) -> list[str]:
    """Assessors a topic can go to: the campaign's assessors who log in (not imported workers), by name."""
    return list(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.ASSESSOR, imported=False)
        .order_by("user__username")
        .values_list("user__username", flat=True)
    )


def member_names(campaign: Campaign) -> list[str]:
    """Every assessor of the campaign (imported workers too), for the assessor filter."""
    return list(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.ASSESSOR)
        .order_by("user__username")
        .values_list("user__username", flat=True)
    )
