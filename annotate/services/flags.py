"""Skips and flags: an assessor skips a topic (and takes it back) or flags it, or one of
its items, for the organisers; an organiser answers a flag.

Every text is bounded, flags per assessor are capped (open per topic, new per
hour: ``CONCORD_FLAGS_OPEN_PER_TOPIC``, ``CONCORD_FLAGS_PER_HOUR``), and a skip
moves the campaign's progress (annotate.changes). The inbox the organiser reads
is annotate.flags'.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotate import adaptive, changes
from annotate.flags import flaggable_items
from annotate.models import Assignment, Flag, Membership, Topic
from annotate.services.judgments import NotAssigned
from concord.errors import InvalidInput, LimitReached
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


@transaction.atomic
def skip_topic(*, topic: Topic, assessor: AbstractBaseUser, reason: Any = "") -> Assignment:
    """Skip one of the assessor's topics; skipping it again replaces the reason."""
    reason = _text(reason, "reason", required=False)
    assignment = _assignment(topic, assessor, lock=True)
    assignment.skipped_at = assignment.skipped_at or timezone.now()
    assignment.skip_reason = reason
    assignment.save(update_fields=["skipped_at", "skip_reason"])
    changes.progress_changed(topic.campaign_id, topic)
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
        changes.progress_changed(topic.campaign_id, topic)
    return assignment


@transaction.atomic
def create_flag(*, topic: Topic, author: AbstractBaseUser, comment: Any, item: Any = "") -> Flag:
    """Flag ``topic`` (``item`` blank) or one of its items for the organisers."""
    comment = _text(comment, "comment", required=True)
    if item is None:
        item = ""
    if not isinstance(item, str):
        raise InvalidInput("item", "expected an item id (a string), or nothing for the whole topic")
    assignment = _assignment(topic, author)
    _within_limits(topic, author)
    if item:
        items = flaggable_items(topic, assignment)
        if not items:
            label = get_kind(topic.campaign.kind).data.label
            raise InvalidInput("item", f"{label} topics have no items to flag one by one: flag the whole topic")
        if item not in {id_ for id_, _ in items}:
            raise InvalidInput("item", f"no item {item[:200]!r} in your part of this topic")
    return Flag.objects.create(topic=topic, author=author, item=item, comment=comment)


#: The window of CONCORD_FLAGS_PER_HOUR.
HOUR = timedelta(hours=1)


def _within_limits(topic: Topic, author: AbstractBaseUser) -> None:
    """Refuse a flag beyond the open flags per topic or the flags per hour (LimitReached).
    The author's membership row is locked first, so two flags at once are counted one after the other."""
    Membership.objects.select_for_update().filter(campaign_id=topic.campaign_id, user=author).first()
    most_open = settings.CONCORD_FLAGS_OPEN_PER_TOPIC
    open_here = Flag.objects.filter(topic=topic, author=author, resolved_at__isnull=True).count()
    if open_here >= most_open:
        raise LimitReached(
            "topic",
            f"you have {open_here} open flags on this topic, the most at once ({most_open}): add to one when the "
            "organisers have answered it",
        )
    per_hour = settings.CONCORD_FLAGS_PER_HOUR
    now = timezone.now()
    recent = list(
        Flag.objects.filter(author=author, topic__campaign_id=topic.campaign_id, created_at__gt=now - HOUR)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:per_hour]
    )
    if len(recent) >= per_hour:
        wait = max(1, math.ceil((recent[-1] + HOUR - now).total_seconds()))
        raise LimitReached(
            "comment",
            f"you flagged {per_hour} times in this campaign within an hour, the most allowed: try again in "
            f"{wait} seconds",
            retry_after=wait,
        )


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
