"""Study links for crowdsourcing platforms: what a platform sends, checked, and the reads of
the pages (docs/pages.md, "Study links"; docs/security.md, "Study links").

A study link is ``/study/<token>/``, posted on the platform. The platform appends its own
parameters to it, as each documents them:

- Prolific, "I'll use URL parameters": ``PROLIFIC_PID`` (the participant's id, 24 hexadecimal
  characters), ``STUDY_ID`` and ``SESSION_ID`` (Prolific researcher help, "Recording Prolific
  IDs", https://researcher-help.prolific.com/en/article/f0a9b6; the API's study object,
  ``external_study_url`` with the placeholders ``{{%PROLIFIC_PID%}}``, ``{{%STUDY_ID%}}``,
  ``{{%SESSION_ID%}}``, https://docs.prolific.com/api-reference/studies/the-study-object).
  A participant who is done goes to the completion URL,
  ``https://app.prolific.com/submissions/complete?cc=<code>``, or types the code into Prolific
  ("Recording participants as complete on Prolific",
  https://researcher-help.prolific.co/hc/en-gb/articles/360009223173).
- Amazon Mechanical Turk, an ExternalQuestion HIT: MTurk shows the URL in a frame and appends
  ``assignmentId``, ``hitId``, ``turkSubmitTo`` and ``workerId`` ("How Mechanical Turk tasks are
  rendered", https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-rendered.html;
  "ExternalQuestion", https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMturkAPI/ApiReference_ExternalQuestionArticle.html).
  While the worker only previews the HIT, ``assignmentId`` is ``ASSIGNMENT_ID_NOT_AVAILABLE`` and
  there is no ``workerId``: the page shows what the task is and nothing to do. The finished
  assignment is a form that POSTs ``assignmentId`` (and at least one answer) to
  ``<turkSubmitTo>/mturk/externalSubmit``; ``turkSubmitTo`` is https://www.mturk.com or, in
  the sandbox, https://workersandbox.mturk.com.

Nothing in the URL but the token is trusted: the token names the campaign; the worker id only
names the worker's account within it, checked for its platform's form (a Prolific id is 24
hexadecimal characters; an MTurk worker id is capital letters and digits, at most 64); the
other ids are only stored, checked for their characters and length; a ``turkSubmitTo`` other
than MTurk's two hosts is refused, since the completion form posts there.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.db.models import Count, Q, Sum

from annotate import adaptive
from annotate.models import Assignment, Campaign, Judgment, Membership, StudyLink, StudyWorker
from concord.errors import InvalidInput
from kinds.base import STUDY

#: The study param's values when a campaign leaves them out (kinds.base.study_param).
DEFAULTS: dict[str, int] = {"topics_per_worker": 10, "max_workers": 100}

PROLIFIC, MTURK = StudyLink.Platform.PROLIFIC, StudyLink.Platform.MTURK
#: What MTurk sends as ``assignmentId`` while the worker only previews the HIT.
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
#: The only places an MTurk completion form may post to (``turkSubmitTo``): live and sandbox.
MTURK_HOSTS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete"

_PROLIFIC_ID = re.compile(r"[0-9a-fA-F]{24}")
_MTURK_WORKER = re.compile(r"[A-Z0-9]{1,64}")
#: Every other id a platform sends: stored only, so only its characters and length are checked.
_OTHER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MTURK_ID = re.compile(r"[A-Za-z0-9_-]{1,255}")
#: A token as :func:`new_token` makes them (43 characters), with room; anything else is refused unread.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
#: A completion code as an organiser types it: Prolific's are letters and digits.
_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_token() -> str:
    """An unguessable token: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def token_shape(token: str) -> bool:
    """Whether ``token`` could be one :func:`new_token` made (checked before any lookup)."""
    return bool(_TOKEN.fullmatch(token))


def clean_platform(value: Any) -> str:
    if value not in StudyLink.Platform.values:
        raise InvalidInput("platform", f"expected one of {', '.join(StudyLink.Platform.values)}")
    return value


def clean_code(value: Any) -> str:
    """A completion code: 1 to 64 letters, digits, ``-`` or ``_`` (Prolific's are 8 letters and digits)."""
    if not isinstance(value, str) or not _CODE.fullmatch(value.strip()):
        raise InvalidInput("completion_code", "expected 1 to 64 letters, digits, - or _ (the platform's code)")
    return value.strip()


@dataclass(frozen=True)
class Arrival:
    """What the platform sent with a visit, checked. ``preview``: MTurk's preview (no worker yet)."""

    platform: str
    worker_id: str = ""
    study_id: str = ""
    session_id: str = ""
    assignment_id: str = ""
    hit_id: str = ""
    submit_to: str = ""
    preview: bool = False


def _one(query: Mapping[str, Any], name: str) -> str | None:
    """One query parameter: absent -> None; given twice -> refused (which one would count?)."""
    values = query.getlist(name) if hasattr(query, "getlist") else ([query[name]] if name in query else [])
    if not values:
        return None
    if len(values) > 1:
        raise InvalidInput(name, "given more than once")
    return values[0]


def _checked(query: Mapping[str, Any], name: str, pattern: re.Pattern, what: str, *, required: bool) -> str:
    value = _one(query, name)
    if value is None or value == "":
        if required:
            raise InvalidInput(name, f"missing: the platform sends {what} with the link")
        return ""
    if not pattern.fullmatch(value):
        raise InvalidInput(name, f"not {what}")
    return value


def arrival(platform: str, query: Mapping[str, Any]) -> Arrival:
    """The platform's parameters of a visit (``request.GET``), checked; InvalidInput names the parameter."""
    if platform == PROLIFIC:
        worker = _checked(query, "PROLIFIC_PID", _PROLIFIC_ID, "a Prolific id (24 characters 0-9, a-f)", required=True)
        return Arrival(
            platform,
            # Prolific's ids are written in lower case: one worker is one id however it is written.
            worker_id=worker.lower(),
            study_id=_checked(
                query, "STUDY_ID", _OTHER_ID, "an id (letters, digits, - or _; 64 at most)", required=False
            ),
            session_id=_checked(
                query, "SESSION_ID", _OTHER_ID, "an id (letters, digits, - or _; 64 at most)", required=False
            ),
        )
    assignment = _one(query, "assignmentId")
    if assignment == MTURK_PREVIEW:
        return Arrival(platform, preview=True)
    assignment = _checked(query, "assignmentId", _MTURK_ID, "an MTurk assignment id", required=True)
    worker = _checked(query, "workerId", _MTURK_WORKER, "an MTurk worker id (A-Z, 0-9; 64 at most)", required=True)
    hit = _checked(query, "hitId", _MTURK_ID, "an MTurk HIT id", required=True)
    submit_to = _one(query, "turkSubmitTo")
    if submit_to is None or submit_to == "":
        raise InvalidInput("turkSubmitTo", "missing: MTurk sends where the assignment is submitted")
    host = submit_to[:-1] if submit_to.endswith("/") else submit_to
    if host not in MTURK_HOSTS:
        raise InvalidInput("turkSubmitTo", f"expected {' or '.join(MTURK_HOSTS)}")
    return Arrival(platform, worker_id=worker, assignment_id=assignment, hit_id=hit, submit_to=host)


def username_for(campaign: Campaign, platform: str, worker_id: str) -> str:
    """The account name a worker gets: platform, campaign, id (``prolific-7-5f3c...``); letters,
    digits and ``-`` only, so it is a name an account may have (a backup restores it)."""
    return f"{platform}-{campaign.pk}-{worker_id}"


def settings_of(campaign: Campaign) -> dict[str, int]:
    """The campaign's ``study`` param with the defaults filled in."""
    given = campaign.params.get(STUDY) or {}
    return {name: given.get(name, default) for name, default in DEFAULTS.items()}


def check_params(kind: str, params: Mapping[str, Any], field: str = "params") -> None:
    """``study.topics_per_worker`` goes with work assigned up front only: where "Next topic"
    allocates (the adaptive design, a kind's own draw) a worker's work is allocated on request,
    so a value there would be ignored; refused, as the adaptive design's params are elsewhere."""
    study = params.get(STUDY) or {}
    if study.get("topics_per_worker", DEFAULTS["topics_per_worker"]) == DEFAULTS["topics_per_worker"]:
        return  # the default is let through (and ignored), as a form sends every control it shows
    probe = Campaign(kind=kind, params=dict(params))
    if adaptive.allocates(probe):
        raise InvalidInput(
            f"{field}.{STUDY}.topics_per_worker",
            "not with work handed out on request (adaptive, active): 'Next topic' allocates each worker's work",
        )


def open_link(campaign: Campaign) -> StudyLink | None:
    return StudyLink.objects.filter(campaign=campaign, withdrawn_at__isnull=True).first()


#: What Prolific's study URL ends with: its placeholders, which it fills in for each participant.
PROLIFIC_PLACEHOLDERS = "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def link_url(link: StudyLink, base: str) -> str:
    """The URL to post on the platform: ``base`` (the site's address of ``/study/<token>/``) with
    the platform's placeholders (Prolific's; MTurk appends its own), left as Prolific writes them."""
    return base + (PROLIFIC_PLACEHOLDERS if link.platform == PROLIFIC else "")


def link_path(link: StudyLink) -> str:
    return f"/study/{link.token}/"


def worker_of(campaign: Campaign, user: Any) -> StudyWorker | None:
    """The user's study row in this campaign (None: they did not come through a study link)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return StudyWorker.objects.filter(campaign=campaign, user=user).select_related("link").first()


def has_pending(campaign: Campaign, user: Any) -> bool:
    """Whether the user holds a topic not skipped whose judgment does not count yet."""
    counted = Judgment.objects.filter(topic__campaign=campaign, assessor=user, status__in=Judgment.COUNTING).values(
        "topic_id"
    )
    return (
        Assignment.objects.filter(topic__campaign=campaign, assessor=user, skipped_at__isnull=True)
        .exclude(topic_id__in=counted)
        .exists()
    )


@dataclass(frozen=True)
class Completion:
    """What the next-topic page shows a worker who is done."""

    platform: str
    code: str
    #: Prolific: the completion URL; MTurk: where the form posts.
    url: str
    assignment_id: str = ""


def completion(worker: StudyWorker) -> Completion:
    code = worker.link.completion_code
    if worker.platform == PROLIFIC:
        return Completion(PROLIFIC, code, f"{PROLIFIC_COMPLETE}?{urlencode({'cc': code})}")
    return Completion(MTURK, code, f"{worker.submit_to}/mturk/externalSubmit", worker.assignment_id)


#: The columns of the time download, in order.
TIME_COLUMNS = (
    "platform",
    "worker_id",
    "topics_submitted",
    "active_ms",
    "active_seconds",
    "first_visit",
    "completed_at",
)


def time_rows(campaign: Campaign) -> list[tuple[str, str, int, int, float, datetime, datetime | None]]:
    """One row per worker who came through a study link (:data:`TIME_COLUMNS`): platform, worker
    id, topics whose judgment counts (submitted or reopened), active time (the sum of their
    judgments' ``active_ms`` in this campaign, every state: time spent on a withdrawn judgment
    was spent too), in milliseconds and in seconds, first visit, completed at.
    Two queries whatever the number of workers (the workers, then their judgments grouped)."""
    workers = list(
        StudyWorker.objects.filter(campaign=campaign)
        .order_by("first_visit", "id")
        .values_list("user_id", "platform", "worker_id", "first_visit", "completed_at")
    )
    sums = {
        row["assessor_id"]: row
        for row in Judgment.objects.filter(topic__campaign=campaign, assessor_id__in=[w[0] for w in workers])
        .values("assessor_id")
        .annotate(
            submitted=Count("id", filter=Q(status__in=Judgment.COUNTING)),
            active=Sum("active_ms"),
        )
    }
    rows = []
    for user_id, platform, worker_id, first_visit, completed_at in workers:
        row = sums.get(user_id, {})
        active = row.get("active") or 0
        rows.append((platform, worker_id, row.get("submitted", 0), active, active / 1000, first_visit, completed_at))
    return rows


def members_left(campaign: Campaign) -> int:
    """How many more accounts the campaign's study links may make (``study.max_workers``)."""
    made = StudyWorker.objects.filter(campaign=campaign).count()
    return max(0, settings_of(campaign)["max_workers"] - made)


def is_member(campaign: Campaign, user: Any) -> bool:
    return Membership.objects.filter(campaign=campaign, user=user, role=Membership.Role.ASSESSOR).exists()
