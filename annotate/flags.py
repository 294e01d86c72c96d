"""Skipping topics and flags for the organisers: the writes, and the reads
of the organiser's inbox.

- An assessor **skips** one of their topics (optional reason): it leaves
  their "next topic" order (``selectors.CampaignQueue.next_topic``); its
  judgment, if any, is untouched and a submitted one still counts. They
  unskip it from the campaign page. Organisers see how many topics each
  assessor skipped (progress) and why (the inbox).
- An assessor **flags** a topic, or one item of it (an id of the kind's
  ``Kind.items()``, within their part of the topic), with a comment.
  Organisers resolve a flag with an optional answer, which the assessor
  sees on the topic's judging page.

Every function checks everything before it writes, like annotate.services.

Flags are shared with the organisers, so one assessor cannot flood them: at
most ``CONCORD_FLAGS_OPEN_PER_TOPIC`` open flags per assessor and topic and
``CONCORD_FLAGS_PER_HOUR`` new ones per assessor and campaign in any hour
(``LimitReached``: 429, with Retry-After for the hourly limit), and every
list of flags is read a page at a time (:func:`page_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.paginator import Paginator
from django.db.models import QuerySet

from annotate.models import Assignment, Campaign, Flag, Topic
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import get_kind

# -- skipping ----------------------------------------------------------------------


# -- flags -------------------------------------------------------------------------


def flaggable_items(topic: Topic, assignment: Assignment | None) -> list[tuple[str, str]]:
    """What an assessor may flag one by one, as (id, text): the kind's
    ``Kind.flag_targets`` of their assessor view (their part of the topic,
    nothing hidden); none for kinds that show nothing by id (flag the whole
    topic instead)."""
    kind = get_kind(topic.campaign.kind).data
    part = assignment.items if assignment is not None else None
    return kind.flag_targets(kind.assessor_view(topic.data, part))


# -- reads -------------------------------------------------------------------------


def campaign_flags(campaign: Campaign, *, state: str = "") -> QuerySet[Flag]:
    """Every flag of the campaign, newest first; ``state``: open, resolved or blank (all)."""
    if state not in ("", "open", "resolved"):
        raise InvalidInput("state", "expected open or resolved (or nothing: all)")
    flags = Flag.objects.filter(topic__campaign=campaign).select_related("topic", "author", "resolved_by")
    if state:
        flags = flags.filter(resolved_at__isnull=state == "open")
    return flags


def topic_flags(topic: Topic, user: AbstractBaseUser, role: str) -> QuerySet[Flag]:
    """The flags of a topic the user may read, newest first: assessors their own, organisers all."""
    flags = topic.flags.select_related("topic", "author", "resolved_by")
    return flags.filter(author=user) if role == "assessor" else flags


#: Flags (or skipped topics) per page: the organiser's inbox and the API.
PAGE_SIZE = 50
#: An assessor's own flags the judging page shows (the newest; the API pages through all).
SHOWN_ON_TOPIC = 20


@dataclass(frozen=True)
class Page:
    """One page of a list: its ``items``, its ``number`` (from 1) of ``pages``, and the list's ``count``."""

    items: Sequence[Any]
    number: int
    pages: int
    count: int

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None


def page_number(text: Any, field: str = "page") -> int:
    """A page number from a query string (ASCII digits, from 1); absent: 1."""
    if text is None or text == "":
        return 1
    number = whole_number(text)
    if number is None or number < 1:
        raise InvalidInput(field, "expected a page number: 1, 2, ...")
    return number


def page_of(items: QuerySet | Sequence[Any], number: int, field: str = "page", size: int = PAGE_SIZE) -> Page:
    """Page ``number`` of ``items``; past the last page is InvalidInput naming ``field``."""
    paginator = Paginator(items, size)
    pages = max(paginator.num_pages, 1)
    if number > pages:
        raise InvalidInput(field, f"there {'is' if pages == 1 else 'are'} {pages} page{'s' if pages != 1 else ''}")
    return Page(list(paginator.page(number)) if paginator.count else [], number, pages, paginator.count)


def flag_for(campaign: Campaign, flag_id: int) -> Flag:
    from django.http import Http404

    flag = Flag.objects.filter(pk=flag_id, topic__campaign=campaign).select_related("topic").first()
    if flag is None:
        raise Http404(f'No flag {flag_id} in the campaign "{campaign.name}".')
    return flag


@dataclass(frozen=True)
class SkippedTopic:
    topic: Topic
    assessor: str
    reason: str
    skipped_at: Any


def skipped_topics(campaign: Campaign, number: int = 1, field: str = "page") -> Page:
    """A page of skipped topics with who skipped them and why, newest first."""
    rows = (
        Assignment.objects.filter(topic__campaign=campaign, skipped_at__isnull=False)
        .select_related("topic", "assessor")
        .order_by("-skipped_at", "id")
    )
    page = page_of(rows, number, field)
    skipped = [SkippedTopic(a.topic, a.assessor.get_username(), a.skip_reason, a.skipped_at) for a in page.items]
    return Page(skipped, page.number, page.pages, page.count)


@dataclass(frozen=True)
class Inbox:
    """One page of each of the organiser's lists; the query parameters that turn them."""

    open: Page
    resolved: Page
    skipped: Page


#: The query parameters of the inbox's pages (the organiser's campaign page).
INBOX_PAGES = ("open_page", "resolved_page", "skipped_page")


def inbox(campaign: Campaign, query: Mapping[str, Any] | None = None) -> Inbox:
    """One page of open flags, resolved flags and skipped topics; ``query`` holds
    their page numbers (:data:`INBOX_PAGES`, default 1 each)."""
    query = query or {}
    numbers = {name: page_number(query.get(name), name) for name in INBOX_PAGES}
    return Inbox(
        open=page_of(campaign_flags(campaign, state="open"), numbers["open_page"], "open_page"),
        resolved=page_of(campaign_flags(campaign, state="resolved"), numbers["resolved_page"], "resolved_page"),
        skipped=skipped_topics(campaign, numbers["skipped_page"], "skipped_page"),
    )


def skipped_by(campaign: Campaign) -> Mapping[str, int]:
    """Assessor username -> how many of their topics they skipped."""
    from django.db.models import Count

    return dict(
        Assignment.objects.filter(topic__campaign=campaign, skipped_at__isnull=False)
        .values("assessor__username")
        .annotate(n=Count("id"))
        .values_list("assessor__username", "n")
    )
