"""A judgment's states and every change to it: save (a draft or a submission), reopen, withdraw.

The one place that says which action may change a judgment from which state.
``new`` is a judgment never saved. "Counts" is what the reports read
(``Judgment.submitted_payload``).

  from                  action            to          what counts afterwards
  --------------------  ----------------  ----------  --------------------------------
  new, draft            save (PUT draft)  draft       nothing
  new, draft            submit            submitted   the submitted payload
  submitted             reopen            reopened    still the submitted payload
  reopened              save (PUT draft)  reopened    still the submitted payload
  reopened              submit            submitted   the newly submitted payload
  submitted, reopened   withdraw(reason)  withdrawn   nothing (the reason is kept)
  withdrawn             save (PUT draft)  draft       nothing

Anything else (e.g. PUT draft on a submitted judgment) is refused with
InvalidInput("status", what to do instead) and writes nothing. Submitting
takes a complete payload; the others take a draft. Every transition bumps
the version (a stale one is a Conflict) and is kept as a JudgmentRevision
(drafts in a row from one client within a minute share one, which the submission
ending them takes over, and a judgment begins at most 3 draft revisions a minute:
save_judgment).
Reports are marked stale when what counts changes: on submit and withdraw.

Every function validates everything first and writes inside one transaction, so bad
input changes nothing and no judgment is lost or silently overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from annotate import changes
from annotate.models import (
    Assignment,
    Judgment,
    JudgmentRevision,
    Topic,
)
from concord.errors import InvalidInput
from kinds.base import require_text
from kinds.registry import get_kind


class Conflict(Exception):
    """The judgment changed since the client read it."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"the judgment is at version {current_version}; reload it and apply your change again")
        self.current_version = current_version


class NotAssigned(Exception):
    """The user is not assigned to the topic."""


@dataclass(frozen=True)
class SaveResult:
    judgment: Judgment
    #: True when the request repeated the last save (a client retry): nothing new was written.
    replayed: bool = False


NEW = "new"


_S = Judgment.Status


SAVE, SUBMIT, REOPEN, WITHDRAW = "save", "submit", "reopen", "withdraw"

TRANSITIONS: dict[tuple[str, str], str] = {
    (NEW, SAVE): _S.DRAFT,
    (_S.DRAFT, SAVE): _S.DRAFT,
    (NEW, SUBMIT): _S.SUBMITTED,
    (_S.DRAFT, SUBMIT): _S.SUBMITTED,
    (_S.SUBMITTED, REOPEN): _S.REOPENED,
    (_S.REOPENED, SAVE): _S.REOPENED,
    (_S.REOPENED, SUBMIT): _S.SUBMITTED,
    (_S.SUBMITTED, WITHDRAW): _S.WITHDRAWN,
    (_S.REOPENED, WITHDRAW): _S.WITHDRAWN,
    (_S.WITHDRAWN, SAVE): _S.DRAFT,
}


#: The largest withdrawal reason kept.
REASON_MAX_LENGTH = 2000


#: What a refused transition tells the client to do instead.
_REFUSALS: dict[tuple[str, str], str] = {
    (_S.SUBMITTED, SAVE): "this judgment is submitted and counts in the reports: reopen it first to edit it",
    (_S.SUBMITTED, SUBMIT): "this judgment is already submitted: reopen it first to change it",
    (_S.WITHDRAWN, SUBMIT): "this judgment is withdrawn: save it as a draft first, then submit it",
    (_S.REOPENED, REOPEN): "this judgment is already reopened: save your draft or submit it",
}


def transition(current: str, action: str) -> str:
    """The status ``action`` leads to from ``current`` (``"new"``: never saved),
    or InvalidInput("status", ...) saying what to do instead."""
    target = TRANSITIONS.get((current, action))
    if target is not None:
        return target
    message = _REFUSALS.get((current, action))
    if message is None:
        if action == REOPEN:
            message = f"only a submitted judgment can be reopened; this one is {current}"
        elif action == WITHDRAW:
            message = (
                f"only a submitted or reopened judgment can be withdrawn; this one is {current} and does not count"
            )
        else:
            message = f"cannot {action} a {current} judgment"
    raise InvalidInput("status", message)


def _require_version(version: Any) -> int:
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidInput("version", "expected the version you read: a whole number, 0 for a new judgment")
    return version


def clean_judgment_request(
    topic: Topic, payload: Any, status: Any, version: Any, scope: list[str] | None = None
) -> dict[str, Any]:
    """A PUT's payload, checked as a draft or, for ``submitted``, as complete."""
    allowed = (_S.DRAFT, _S.SUBMITTED)
    if status not in allowed:
        raise InvalidInput(
            "status",
            f"expected one of {', '.join(allowed)} (reopen and withdraw a judgment through their own actions)",
        )
    _require_version(version)
    kind = get_kind(topic.campaign.kind).data
    params = topic.campaign.params if scope is None else {**topic.campaign.params, "scope": scope}
    return kind.clean_judgment(payload, topic.data, complete=status == _S.SUBMITTED, params=params)


def _locked_judgment(topic: Topic, assessor: AbstractBaseUser) -> Judgment | None:
    found = list(Judgment.objects.select_for_update().filter(topic_id=topic.pk, assessor_id=assessor.pk)[:1])
    if not found:
        return None
    judgment = found[0]
    judgment.topic, judgment.assessor = topic, assessor  # known: no query to read them again
    return judgment


def _assignment_items(topic: Topic, assessor: AbstractBaseUser) -> tuple[bool, list[str] | None]:
    """(whether ``assessor`` is assigned to ``topic``, the assignment's items)."""
    found = list(
        Assignment.objects.filter(topic_id=topic.pk, assessor_id=assessor.pk).order_by().values_list("items")[:1]
    )
    return (True, found[0][0]) if found else (False, None)


def _write(
    judgment: Judgment,
    *,
    status: str,
    author: AbstractBaseUser,
    source: str,
    payload: Any = None,
    reason: str = "",
    client: str = "",
    active_ms: int = 0,
) -> None:
    """Save ``judgment`` one version up in ``status`` (with ``payload``, where given), its
    revision, and mark the topic stale when what counts changed (else, when its status or the
    active time of a counting judgment moved, its progress counts: annotate.changes.draft_changed;
    ``active_ms``: what the save added, already in ``judgment.active_ms``). ``client``: a draft save's
    or a submission's origin (:func:`save_judgment`), whose revision may replace the draft
    revision before it. The newest revision holds no payload of its own (the judgment's is
    it: ``JudgmentRevision.kept_payload``); the one before it gets its copy when a new
    revision is made, not when a save replaces it."""
    before = judgment.payload
    if payload is not None:
        judgment.payload = payload
    topic = judgment.topic
    counted = (judgment.submitted_version, judgment.status in Judgment.COUNTING)
    previous = judgment.status
    created = judgment.pk is None
    judgment.status = status
    judgment.version += 1
    if status == _S.SUBMITTED:
        judgment.held_payload = None  # its payload is the one that counts (Judgment.submitted_payload)
        judgment.submitted_version = judgment.version
        judgment.submitted_at = timezone.now()
    elif status == _S.REOPENED and previous == _S.SUBMITTED:
        judgment.held_payload = judgment.payload  # kept while drafts change the payload on top
    elif status not in Judgment.COUNTING:
        judgment.held_payload = judgment.submitted_version = judgment.submitted_at = None
    if judgment.pk is not None:
        judgment.save()  # an update: (topic, assessor) is unchanged, so no clash to catch
    else:
        try:
            with transaction.atomic():
                judgment.save()
        except IntegrityError:
            # Another request created it between our read and our insert.
            raise Conflict(Judgment.objects.get(topic=topic, assessor=judgment.assessor).version) from None
    changed = counted != (judgment.submitted_version, judgment.status in Judgment.COUNTING)
    if not changed and (created or previous != status or (active_ms and status in Judgment.COUNTING)):
        changes.draft_changed(topic)
    if client and judgment.version > 1 and _replace_draft(judgment, previous=previous, author=author, client=client):
        if changed:  # a submission took the draft revision's place: its id marks the topic
            replaced = JudgmentRevision.objects.filter(judgment=judgment, version=judgment.version)
            changes.topic_changed(topic, replaced.values_list("pk", flat=True).get())
        return
    if judgment.version > 1:
        older = JudgmentRevision.objects.filter(judgment=judgment, version=judgment.version - 1)
        older.filter(kept_payload__isnull=True).update(kept_payload=before)
    revision = JudgmentRevision.objects.create(
        judgment=judgment,
        version=judgment.version,
        author=author,
        kept_payload=None,
        status=status,
        source=source,
        reason=reason,
        # A submitted revision is never replaced: no origin to match.
        client="" if status == _S.SUBMITTED else client,
    )
    if changed:
        changes.topic_changed(topic, revision.pk)


def _replace_draft(judgment: Judgment, *, previous: str, author: AbstractBaseUser, client: str) -> bool:
    """Put this save in the judgment's latest revision, if that is a draft (status
    ``previous``: draft, or reopened with a draft on top) saved from the same ``client``
    by the same assessor, first saved less than ``CONCORD_DRAFT_REVISION_SECONDS`` ago
    (one conditional UPDATE). A draft save keeps the revision a draft; a submission
    makes it the submitted revision, dated now (Phase 1's payloads are read by that
    date) and never replaced again. Whether it did.

    A draft from another client (another tab's ``X-Concord-Page``, another session or
    token) begins a revision of its own, so that the version a 409 merge prompt
    showed stays in the history, but only while the judgment has begun fewer than
    ``DRAFT_REVISIONS_PER_WINDOW`` draft revisions within the window: the client is
    the sender's word, and alternating it must not make every save a revision. Past
    that the draft replaces the latest draft revision, wherever it came from (one
    read of at most that many revisions, by the unique (judgment, version))."""
    window = settings.CONCORD_DRAFT_REVISION_SECONDS
    if window <= 0:
        return False
    now = timezone.now()
    since = now - timedelta(seconds=window)
    update = {"version": judgment.version, "kept_payload": None, "saves": F("saves") + 1, "updated_at": now}
    if judgment.status == _S.SUBMITTED:
        update |= {"status": _S.SUBMITTED, "client": "", "created_at": now}
    latest = JudgmentRevision.objects.filter(
        judgment=judgment, version=judgment.version - 1, status=previous, author=author, created_at__gt=since
    )
    if latest.filter(client=client).update(**update) == 1:
        return True
    if judgment.status == _S.SUBMITTED:
        return False  # a submission from elsewhere keeps the draft before it
    recent = JudgmentRevision.objects.filter(judgment=judgment).order_by("-version")
    begun = [
        c for c, when in recent.values_list("client", "created_at")[:DRAFT_REVISIONS_PER_WINDOW] if c and when > since
    ]
    if len(begun) < DRAFT_REVISIONS_PER_WINDOW:
        return False
    return latest.exclude(client="").update(**update, client=client) == 1


#: The most active time one save may add (10 minutes, in milliseconds): one
#: request cannot add hours; a page sends longer spells over several saves.
ACTIVE_MS_MAX = 10 * 60 * 1000


def clean_active_ms(value: Any) -> int:
    """An ``active_ms`` increment: a whole number of milliseconds, 0 to 10 minutes."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= ACTIVE_MS_MAX:
        raise InvalidInput(
            "active_ms", f"expected the active time since the last save: a whole number of ms, 0 to {ACTIVE_MS_MAX}"
        )
    return value


@transaction.atomic
def save_judgment(
    *,
    topic: Topic,
    assessor: AbstractBaseUser,
    payload: Any,
    status: Any,
    version: Any,
    source: str = "web",
    active_ms: Any = 0,
    client: str = "",
) -> SaveResult:
    """Save (``status="draft"``) or submit (``"submitted"``) the assessor's
    judgment of ``topic`` if ``version`` is still current (the table above).

    On a reopened judgment a draft is saved on top while the submitted
    version keeps counting. Every save is kept as a JudgmentRevision, but
    drafts coalesce: a draft saved from the same ``client`` (a browser
    session or an API token; blank: none) as the draft just before it, by
    the same assessor, replaces that revision while its first save is less
    than ``CONCORD_DRAFT_REVISION_SECONDS`` old (so at most one draft revision
    per client and minute), and so does a submission from that ``client``:
    the run of drafts it ends is kept as the submitted revision. Every
    submitted version, reopening and withdrawal has its own revision, never
    replaced, and a draft saved from elsewhere, such as the version a 409
    merge prompt showed, is not replaced either while the judgment has begun
    fewer than ``DRAFT_REVISIONS_PER_WINDOW`` draft revisions in the window;
    past that a draft replaces the latest, wherever it came from
    (:func:`_replace_draft`: the client is what the request says, and no
    choice of it adds revisions beyond that). A stale version raises
    Conflict, except an exact repeat of the last save by a retrying client,
    which returns the stored judgment with ``replayed=True`` (and adds no
    time). ``active_ms`` (:func:`clean_active_ms`) is added to the
    judgment's active time.
    """
    active_ms = clean_active_ms(active_ms)
    assigned, items = _assignment_items(topic, assessor)
    if not assigned:
        clean_judgment_request(topic, payload, status, version)
        raise NotAssigned()
    cleaned = clean_judgment_request(topic, payload, status, version, scope=items)
    judgment = _locked_judgment(topic, assessor)
    current = judgment.version if judgment else 0
    if version != current:
        if judgment and version == current - 1 and judgment.payload == cleaned and _repeats(judgment, status):
            return SaveResult(judgment, replayed=True)
        raise Conflict(current)
    target = transition(judgment.status if judgment else NEW, SUBMIT if status == _S.SUBMITTED else SAVE)
    if judgment is None:
        judgment = Judgment(topic=topic, assessor=assessor)
    judgment.active_ms += active_ms
    _write(judgment, payload=cleaned, status=target, author=assessor, source=source, client=client, active_ms=active_ms)
    return SaveResult(judgment)


def _repeats(judgment: Judgment, status: str) -> bool:
    """Whether a PUT of ``status`` may have led to the judgment's current status."""
    if status == _S.SUBMITTED:
        return judgment.status == _S.SUBMITTED
    return judgment.status in (_S.DRAFT, _S.REOPENED)


def _assigned(topic: Topic, assessor: AbstractBaseUser) -> None:
    if not Assignment.objects.filter(topic=topic, assessor=assessor).exists():
        raise NotAssigned()


@transaction.atomic
def reopen_judgment(*, topic: Topic, assessor: AbstractBaseUser, version: Any, source: str = "web") -> SaveResult:
    """Reopen a submitted judgment: its payload becomes a draft to edit on top,
    while the submitted version keeps counting until it is submitted again."""
    _require_version(version)
    _assigned(topic, assessor)
    judgment = _locked_judgment(topic, assessor)
    current = judgment.version if judgment else 0
    if version != current:
        if judgment and version == current - 1 and judgment.status == _S.REOPENED:
            previous = judgment.revisions.filter(version=version).values_list("status", flat=True).first()
            if previous == _S.SUBMITTED:  # the reopen itself was the last write
                return SaveResult(judgment, replayed=True)
        raise Conflict(current)
    transition(judgment.status if judgment else NEW, REOPEN)
    _write(judgment, status=_S.REOPENED, author=assessor, source=source)
    return SaveResult(judgment)


def clean_reason(reason: Any) -> str:
    if reason is None:
        return ""
    if isinstance(reason, str):
        reason = reason.strip()
    return require_text(reason, "reason", allow_empty=True, max_length=REASON_MAX_LENGTH)


@transaction.atomic
def withdraw_judgment(
    *, topic: Topic, assessor: AbstractBaseUser, version: Any, reason: Any = "", source: str = "web"
) -> SaveResult:
    """Withdraw a submitted or reopened judgment: it no longer counts in the
    reports. ``reason`` (optional, up to 2000 characters) is kept in the revision."""
    _require_version(version)
    reason = clean_reason(reason)
    _assigned(topic, assessor)
    judgment = _locked_judgment(topic, assessor)
    current = judgment.version if judgment else 0
    if version != current:
        if judgment and version == current - 1 and judgment.status == _S.WITHDRAWN:
            last = judgment.revisions.filter(version=current).values_list("reason", flat=True).first()
            if last == reason:
                return SaveResult(judgment, replayed=True)
        raise Conflict(current)
    transition(judgment.status if judgment else NEW, WITHDRAW)
    _write(judgment, status=_S.WITHDRAWN, author=assessor, source=source, reason=reason)
    return SaveResult(judgment)


#: Draft revisions a judgment begins at most in any ``CONCORD_DRAFT_REVISION_SECONDS``,
#: whatever page or token its drafts come from: beyond them a draft replaces the latest.
DRAFT_REVISIONS_PER_WINDOW = 3
