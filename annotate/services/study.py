"""Study links (annotate/study.py): an organiser makes, replaces or withdraws one; a worker's
visit finds their account or makes it, with its share of the work.

Everything is checked before anything is written, under the campaign's allocation lock
(``annotate.adaptive.lock``: the campaign's row), so two workers arriving at once are counted
one after the other against the rate limit and ``study.max_workers``, and never both take the
last slot of a topic. A refusal (:class:`Refused`, or InvalidInput naming the parameter)
writes nothing.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q
from django.db.models.functions import Lower
from django.utils import timezone

from annotate import adaptive, changes, study
from annotate.models import Assignment, Campaign, ImportFence, Membership, StudyLink, StudyWorker
from annotate.services.campaigns import clean_campaign_params
from concord.busy import Busy
from concord.errors import InvalidInput
from kinds.base import STUDY
from kinds.registry import get_kind

User = get_user_model()

#: The window of CONCORD_STUDY_ACCOUNTS_PER_MINUTE.
MINUTE = timedelta(minutes=1)


class Refused(Exception):
    """A visit the link does not let in: ``status`` (403 full or removed, 404 unknown, 410
    withdrawn, 429 too many new accounts at once), a sentence for the worker, ``retry_after``
    seconds where waiting helps. Nothing was written."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@transaction.atomic
def make_link(
    *, campaign: Campaign, organiser: AbstractBaseUser, platform: Any, completion_code: Any, study_params: Any = None
) -> StudyLink:
    """A new study link for ``campaign``, replacing (withdrawing) its open one, with the
    ``study`` param (``study_params``; None: unchanged) checked as every params change is."""
    platform = study.clean_platform(platform)
    code = study.clean_code(completion_code)
    adaptive.lock(campaign)
    if study_params is not None:
        params = clean_campaign_params(campaign.kind, {**campaign.params, STUDY: study_params}, current=campaign.params)
        Campaign.objects.filter(pk=campaign.pk).update(params=params)
        campaign.params = params
    StudyLink.objects.filter(campaign=campaign, withdrawn_at__isnull=True).update(withdrawn_at=timezone.now())
    return StudyLink.objects.create(
        campaign=campaign, token=study.new_token(), platform=platform, completion_code=code, created_by=organiser
    )


@transaction.atomic
def withdraw_link(*, campaign: Campaign) -> StudyLink:
    """Withdraw the campaign's open link: it is refused from now on; its workers keep their work."""
    adaptive.lock(campaign)
    link = study.open_link(campaign)
    if link is None:
        raise InvalidInput("action", "this campaign has no open study link to withdraw")
    link.withdrawn_at = timezone.now()
    link.save(update_fields=["withdrawn_at"])
    return link


def link_for(token: str) -> StudyLink:
    """The open link of ``token``; Refused 404 (no such link) or 410 (withdrawn)."""
    if not study.token_shape(token):
        raise Refused(404, "There is no such study link: check that it was copied whole.")
    link = StudyLink.objects.filter(token=token).select_related("campaign").first()
    if link is None:
        raise Refused(404, "There is no such study link: check that it was copied whole.")
    if link.withdrawn_at is not None:
        raise Refused(410, "This study link was withdrawn by the study's organisers: it lets nobody in any more.")
    return link


@transaction.atomic
def arrive(link: StudyLink, arrival: study.Arrival) -> tuple[AbstractBaseUser, bool]:
    """The account of the worker ``arrival`` names in the link's campaign, and whether this
    visit made it. A known worker's visit is recorded (last visit, the platform's latest ids);
    a new one gets an account (active, no usable password: it signs in only through the
    link), a membership as assessor, their share of the work (:func:`_share`) and their study
    row. Refused (nothing written): the link withdrawn meanwhile (410), the worker removed
    from the campaign or their account disabled (403), more than ``CONCORD_STUDY_ACCOUNTS_PER_MINUTE`` new accounts of
    this link in the last minute (429), ``study.max_workers`` reached or no topic left that
    needs a worker (403)."""
    campaign = link.campaign
    if ImportFence.objects.filter(campaign=campaign).exists():
        # An import being written: undoing it deletes rows made after it began (annotate/imports/fence.py).
        raise Busy(f"Files are being imported into {campaign.name}; try again in a minute.")
    adaptive.lock(campaign)
    if StudyLink.objects.filter(pk=link.pk, withdrawn_at__isnull=True).first() is None:
        raise Refused(410, "This study link was withdrawn by the study's organisers: it lets nobody in any more.")
    now = timezone.now()
    worker = (
        StudyWorker.objects.select_for_update()
        .filter(campaign=campaign, platform=arrival.platform, worker_id=arrival.worker_id)
        .select_related("user")
        .first()
    )
    if worker is not None:
        if not study.is_member(campaign, worker.user):
            raise Refused(403, "You are no longer a member of this study: its organisers removed you.")
        if not worker.user.is_active:  # an admin disabled it: a session of it would not last one request
            raise Refused(403, "Your account for this study was disabled by its administrators.")
        _record(worker, arrival, now)
        worker.save()
        return worker.user, False
    _within_limits(campaign, link, now)
    topics = [] if adaptive.allocates(campaign) else _share(campaign)
    if not adaptive.allocates(campaign) and not topics:
        raise Refused(403, "This study has no more work for new participants: every topic has its judges.")
    user = User(username=_free_name(study.username_for(campaign, arrival.platform, arrival.worker_id)))
    user.set_unusable_password()
    user.save()
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.ASSESSOR)
    Assignment.objects.bulk_create(
        Assignment(topic_id=topic_id, assessor=user, items=items) for topic_id, items in topics
    )
    worker = StudyWorker(campaign=campaign, user=user, link=link, platform=arrival.platform, first_visit=now)
    _record(worker, arrival, now)
    worker.save()
    if topics:
        changes.progress_changed(campaign.pk)
    return user, True


def _record(worker: StudyWorker, arrival: study.Arrival, now) -> None:
    worker.worker_id = arrival.worker_id
    worker.last_visit = now
    for field in ("study_id", "session_id", "assignment_id", "hit_id", "submit_to"):
        value = getattr(arrival, field)
        if value:
            setattr(worker, field, value)


def _within_limits(campaign: Campaign, link: StudyLink, now) -> None:
    per_minute = settings.CONCORD_STUDY_ACCOUNTS_PER_MINUTE
    recent = list(
        StudyWorker.objects.filter(link=link, first_visit__gt=now - MINUTE)
        .order_by("-first_visit")
        .values_list("first_visit", flat=True)[:per_minute]
    )
    if len(recent) >= per_minute:
        wait = max(1, math.ceil((recent[-1] + MINUTE - now).total_seconds()))
        raise Refused(
            429,
            f"{per_minute} participants started through this link within a minute, the most it takes: "
            f"try again in {wait} seconds.",
            retry_after=wait,
        )
    if study.members_left(campaign) <= 0:
        raise Refused(403, "This study is full: it has taken all the participants it needs.")


def _share(campaign: Campaign) -> list[tuple[int, list[str] | None]]:
    """A newcomer's topics: up to ``study.topics_per_worker`` of those that most need judges,
    fewest assessors first (not counting skips), then in the campaign's order, each below
    ``overlap`` assessors; under ``design=one-per-item``, topics nobody holds yet (whole, so
    each item still goes to one assessor). A kind that shares a topic's items out
    (``Kind.shares_topics``) gives the assignment its items for its slot, as
    annotate.services.assignments does. One query over the campaign's topics and assignments."""
    kind = get_kind(campaign.kind).data
    wanted = study.settings_of(campaign)["topics_per_worker"]
    topics = campaign.topics.annotate(
        holders=Count("assignments", filter=Q(assignments__skipped_at__isnull=True)), slots=Count("assignments")
    )
    if campaign.params.get("design") == "one-per-item":
        topics = topics.filter(slots=0)
    else:
        topics = topics.filter(holders__lt=campaign.overlap)
    shares = kind.shares_topics(campaign.params)
    chosen = topics.order_by("holders", "position", "id").values_list("id", "slots", *(("data",) if shares else ()))
    picked: list[tuple[int, list[str] | None]] = []
    for row in chosen[:wanted]:
        topic_id, slot = row[0], row[1]
        items = (
            kind.assignment_items(row[2], campaign.params, slot=slot, seed=f"{campaign.pk}:{topic_id}")
            if shares
            else None
        )
        picked.append((topic_id, items))
    return picked


def _free_name(name: str) -> str:
    """``name``, or ``name`` with a random suffix if an account has it (in any case): a worker's
    account is never someone else's."""
    candidate = name
    for _ in range(8):
        if not User.objects.annotate(folded=Lower(User.USERNAME_FIELD)).filter(folded=candidate.lower()).exists():
            return candidate
        candidate = f"{name}-{secrets.token_hex(4)}"
    raise Refused(503, "Could not name a new account; try again.")


@transaction.atomic
def complete(worker: StudyWorker) -> StudyWorker:
    """Mark the worker done (the first time their next-topic page had no topic for them)."""
    if worker.completed_at is None:
        worker.completed_at = timezone.now()
        worker.save(update_fields=["completed_at"])
    return worker


def query_of(arrival: study.Arrival) -> Mapping[str, str]:
    """The platform's parameters of ``arrival`` as they came (to send a worker back to the link)."""
    if arrival.platform == study.PROLIFIC:
        names = {"PROLIFIC_PID": "worker_id", "STUDY_ID": "study_id", "SESSION_ID": "session_id"}
    else:
        names = {
            "workerId": "worker_id",
            "assignmentId": "assignment_id",
            "hitId": "hit_id",
            "turkSubmitTo": "submit_to",
        }
    return {name: getattr(arrival, field) for name, field in names.items() if getattr(arrival, field)}
