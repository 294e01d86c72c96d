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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotate import adaptive
from annotate.models import Assignment, Campaign, Flag, Topic
from annotate.services import NotAssigned
from concord.errors import InvalidInput
from kinds.base import require_text
from kinds.registry import get_kind

#: The longest skip reason, flag comment or answer kept.
TEXT_MAX_LENGTH = 2000


def _text(value: Any, field: str, *, required: bool) -> str:
    if value is None and not required:
        return ""
    if isinstance(value, str):
        value = value.strip()
    return require_text(value, field, allow_empty=not required, max_length=TEXT_MAX_LENGTH)


def _assignment(topic: Topic, assessor: AbstractBaseUser, *, lock: bool = False) -> Assignment:
    assignments = Assignment.objects.filter(topic=topic, assessor=assessor)
    assignment = (assignments.select_for_update() if lock else assignments).first()
    if assignment is None:
        raise NotAssigned()
    return assignment


# -- skipping ----------------------------------------------------------------------


@transaction.atomic
def skip_topic(*, topic: Topic, assessor: AbstractBaseUser, reason: Any = "") -> Assignment:
    """Skip one of the assessor's topics; skipping it again replaces the reason."""
    reason = _text(reason, "reason", required=False)
    assignment = _assignment(topic, assessor, lock=True)
    assignment.skipped_at = assignment.skipped_at or timezone.now()
    assignment.skip_reason = reason
    assignment.save(update_fields=["skipped_at", "skip_reason"])
    return assignment


@transaction.atomic
def unskip_topic(*, topic: Topic, assessor: AbstractBaseUser) -> Assignment:
    """Put a skipped topic back in the assessor's queue (nothing happens if it is not skipped).

    In an adaptive campaign a skip gave the topic's items back to the budgets:
    taking them again is an allocation, refused over a budget or the open
    topics an assessor may hold (annotate.adaptive.check_unskip)."""
    if adaptive.is_adaptive(topic.campaign):
        adaptive.lock(topic.campaign)
    assignment = _assignment(topic, assessor, lock=True)
    if adaptive.is_adaptive(topic.campaign):
        adaptive.check_unskip(topic.campaign, assignment)
    if assignment.skipped_at is not None or assignment.skip_reason:
        assignment.skipped_at, assignment.skip_reason = None, ""
        assignment.save(update_fields=["skipped_at", "skip_reason"])
    return assignment


# -- flags -------------------------------------------------------------------------


def flaggable_items(topic: Topic, assignment: Assignment | None) -> list[tuple[str, str]]:
    """What an assessor may flag one by one, as (id, text): the kind's
    ``Kind.flag_targets`` of their assessor view (their part of the topic,
    nothing hidden); none for kinds that show nothing by id (flag the whole
    topic instead)."""
    kind = get_kind(topic.campaign.kind).data
    part = assignment.items if assignment is not None else None
    return kind.flag_targets(kind.assessor_view(topic.data, part))


@transaction.atomic
def create_flag(*, topic: Topic, author: AbstractBaseUser, comment: Any, item: Any = "") -> Flag:
    """Flag ``topic`` (``item`` blank) or one of its items for the organisers."""
    comment = _text(comment, "comment", required=True)
    if item is None:
        item = ""
    if not isinstance(item, str):
        raise InvalidInput("item", "expected an item id (a string), or nothing for the whole topic")
    assignment = _assignment(topic, author)
    if item:
        items = flaggable_items(topic, assignment)
        if not items:
            label = get_kind(topic.campaign.kind).data.label
            raise InvalidInput("item", f"{label} topics have no items to flag one by one: flag the whole topic")
        if item not in {id_ for id_, _ in items}:
            raise InvalidInput("item", f"no item {item[:200]!r} in your part of this topic")
    return Flag.objects.create(topic=topic, author=author, item=item, comment=comment)


@transaction.atomic
def resolve_flag(*, flag: Flag, organiser: AbstractBaseUser, answer: Any = "") -> Flag:
    """Resolve an open flag, with an optional answer for its author. Resolving
    it again with the same answer changes nothing (a retry); an already
    resolved flag is otherwise refused."""
    answer = _text(answer, "answer", required=False)
    flag = Flag.objects.select_for_update().get(pk=flag.pk)
    if flag.resolved_at is not None:
        if flag.answer == answer:
            return flag
        raise InvalidInput("flag", "this flag is already resolved")
    flag.resolved_at, flag.resolved_by, flag.answer = timezone.now(), organiser, answer
    flag.save(update_fields=["resolved_at", "resolved_by", "answer"])
    return flag


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
    """The flags of a topic the user may read: assessors their own, organisers all."""
    flags = topic.flags.select_related("topic", "author", "resolved_by")
    return flags.filter(author=user) if role == "assessor" else flags


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


def skipped_topics(campaign: Campaign) -> list[SkippedTopic]:
    """Skipped topics with who skipped them and why, newest first."""
    rows = (
        Assignment.objects.filter(topic__campaign=campaign, skipped_at__isnull=False)
        .select_related("topic", "assessor")
        .order_by("-skipped_at", "id")
    )
    return [SkippedTopic(a.topic, a.assessor.get_username(), a.skip_reason, a.skipped_at) for a in rows]


@dataclass(frozen=True)
class Inbox:
    open: list[Flag]
    resolved: list[Flag]
    skipped: list[SkippedTopic]


def inbox(campaign: Campaign) -> Inbox:
    flags = list(campaign_flags(campaign))
    return Inbox(
        open=[f for f in flags if f.is_open],
        resolved=[f for f in flags if not f.is_open],
        skipped=skipped_topics(campaign),
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
