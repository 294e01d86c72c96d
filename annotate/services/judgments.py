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
An assessor paused in the campaign (annotate/quality.py) changes nothing: every action
raises ``Paused`` (a save after its version check, so a retry of the submission that paused them is
still a replay). A submission of a control topic applies the campaign's quality rules
(``quality.apply_rules``) in its own transaction.

Every function validates everything first and writes inside one transaction, so bad
input changes nothing and no judgment is lost or silently overwritten.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotate import changes, quality
from annotate.models import (
    Assignment,
    Control,
    Judgment,
    JudgmentRevision,
    Membership,
    Topic,
)
from annotate.quality import Paused
from concord import rawrows
from concord.errors import InvalidInput
from kinds.base import ASSESSOR_SEED, assessor_seed, require_text
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
    topic: Topic,
    payload: Any,
    status: Any,
    version: Any,
    scope: list[str] | None = None,
    assessor: AbstractBaseUser | None = None,
) -> dict[str, Any]:
    """A PUT's payload, checked as a draft or, for ``submitted``, as complete; ``scope``: the
    assignment's items, ``assessor``: whose own save it is (the kind gets their seed: kinds.base.assessor_seed)."""
    allowed = (_S.DRAFT, _S.SUBMITTED)
    if status not in allowed:
        raise InvalidInput(
            "status",
            f"expected one of {', '.join(allowed)} (reopen and withdraw a judgment through their own actions)",
        )
    _require_version(version)
    kind = get_kind(topic.campaign.kind).data
    params = topic.campaign.params if scope is None else {**topic.campaign.params, "scope": scope}
    if assessor is not None:
        params = {**params, ASSESSOR_SEED: assessor_seed(assessor.pk, topic.external_id)}
    return kind.clean_judgment(payload, topic.data, complete=status == _S.SUBMITTED, params=params)


def _locked_judgment(topic: Topic, assessor: AbstractBaseUser) -> Judgment | None:
    """The assessor's judgment of ``topic``, locked (None: never saved); :class:`Paused` when
    they are paused in the campaign."""
    row = _one(_sql(connection.vendor)["judgment"], _judgment_params(topic, assessor))
    if row is None:
        return None
    if row[-2] is not None:
        raise Paused(row[-2])
    return _judgment_of(row, topic, assessor)


def _judgment_params(topic: Topic, assessor: AbstractBaseUser) -> list[Any]:
    """The parameters of the ``judgment`` and ``assignment`` statements: the paused subquery's
    campaign and user, the control subquery's topic, then the row's topic and assessor."""
    return [topic.campaign_id, assessor.pk, topic.pk, topic.pk, assessor.pk]


@dataclass(frozen=True)
class _Found:
    """What the save path reads before it writes (one query when the judgment exists)."""

    judgment: Judgment | None
    assigned: bool
    items: Any
    #: Why the assessor is paused in the campaign (None: not paused).
    paused: str | None
    #: Whether the topic is a control topic (annotate.models.Control).
    control: bool


def _judgment_of(row: Any, topic: Topic, assessor: AbstractBaseUser) -> Judgment:
    judgment = rawrows.instance(Judgment, row[: len(Judgment._meta.concrete_fields)], connection)
    judgment.topic, judgment.assessor = topic, assessor  # known: no query to read them again
    return judgment


def _judgment_and_assignment(topic: Topic, assessor: AbstractBaseUser) -> _Found:
    """The assessor's judgment of ``topic``, locked (None: never saved), whether they are
    assigned the topic, the assignment's items, whether they are paused and whether the topic
    is a control: one query when the judgment exists (the assignment read by its unique
    (topic, assessor), the membership by its unique (campaign, user) and the topic's controls
    by their topic, inside it), two when it does not."""
    sql = _sql(connection.vendor)
    params = _judgment_params(topic, assessor)
    row = _one(sql["judgment"], params)
    if row is not None:
        assigned, items, paused, control = row[-4:]
        judgment = _judgment_of(row, topic, assessor)
    else:
        found = _one(sql["assignment"], params)
        judgment, assigned = None, found is not None
        items, paused, control = found if found is not None else (None, None, False)
    if not assigned:
        return _Found(judgment, False, None, None, False)
    items = None if items is None else rawrows.convert(Assignment, "items", items, connection)
    return _Found(judgment, True, items, paused, bool(control))


def _one(sql: str, params: list[Any]) -> Any:
    """The first row a statement that returns rows (a SELECT, or a write's RETURNING) gives."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _run(sql: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@functools.cache
def _sql(vendor: str) -> dict[str, str]:
    """The save path's statements for the database's ``vendor`` (concord/rawrows.py: written once per
    process; the ORM compiled each anew on every save, which cost more CPU than running them)."""
    q = functools.partial(rawrows.quoted, connection=connection)
    c = functools.partial(rawrows.column, connection=connection)
    table = connection.ops.quote_name
    judgments, revisions = table(Judgment._meta.db_table), table(JudgmentRevision._meta.db_table)
    assignments = table(Assignment._meta.db_table)
    memberships, controls = table(Membership._meta.db_table), table(Control._meta.db_table)
    # Why the assessor is paused in the campaign (NULL: not paused), and whether the topic is a
    # control topic: read with the row, so the save path spends no query of its own on them.
    paused = (
        f"(SELECT {q(Membership, 'pause_reason')} FROM {memberships} WHERE {q(Membership, 'campaign')} = %s "
        f"AND {q(Membership, 'user')} = %s AND {q(Membership, 'paused_at')} IS NOT NULL)"
    )
    control = f"EXISTS(SELECT 1 FROM {controls} WHERE {q(Control, 'topic')} = %s)"
    mine = f"{q(Assignment, 'topic')} = %s AND {q(Assignment, 'assessor')} = %s"
    its = (
        f"{q(Assignment, 'topic')} = {q(Judgment, 'topic')} AND {q(Assignment, 'assessor')} = {q(Judgment, 'assessor')}"
    )
    # A row lock where the database has them; SQLite's transaction holds the write lock from its
    # start (transaction_mode IMMEDIATE), so no other write can come between the read and the save.
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    written = ["payload", "status", "version", "held_payload", "submitted_version", "updated_at", "submitted_at"]
    revision = ["version", "kept_payload", "saves", "updated_at"]
    taken = ", ".join(f"{c(JudgmentRevision, f)} = %s" for f in revision if f != "saves")
    saves = c(JudgmentRevision, "saves")
    taken += f", {saves} = {saves} + 1"
    latest = " AND ".join(
        f"{c(JudgmentRevision, f)} = %s" for f in ("judgment", "version", "status", "author", "client")
    )
    inserted = [f.name for f in JudgmentRevision._meta.concrete_fields if f.name != "id"]
    return {
        "judgment": (
            f"SELECT {rawrows.select_list(Judgment, connection)}, "
            f"EXISTS(SELECT 1 FROM {assignments} WHERE {its}), "
            f"(SELECT {q(Assignment, 'items')} FROM {assignments} WHERE {its}), {paused}, {control} "
            f"FROM {judgments} WHERE {q(Judgment, 'topic')} = %s AND {q(Judgment, 'assessor')} = %s{lock}"
        ),
        "assignment": f"SELECT {q(Assignment, 'items')}, {paused}, {control} FROM {assignments} WHERE {mine}",
        "update": (
            f"UPDATE {judgments} SET {', '.join(f'{c(Judgment, f)} = %s' for f in written)}, "
            f"{c(Judgment, 'active_ms')} = %s WHERE {c(Judgment, 'id')} = %s"
        ),
        # A racing first save of the same (topic, assessor) inserted nothing: no row returned.
        "insert": (
            f"INSERT INTO {judgments} ({', '.join(c(Judgment, f) for f in ['topic', 'assessor', *written])}, "
            f"{c(Judgment, 'created_at')}, {c(Judgment, 'active_ms')}) VALUES ({', '.join(['%s'] * 11)}) "
            f"ON CONFLICT ({c(Judgment, 'topic')}, {c(Judgment, 'assessor')}) DO NOTHING "
            f"RETURNING {c(Judgment, 'id')}"
        ),
        "replace_draft": (
            f"UPDATE {revisions} SET {taken} WHERE {latest} AND {c(JudgmentRevision, 'created_at')} > %s "
            f"RETURNING {c(JudgmentRevision, 'id')}"
        ),
        "replace_by_submission": (
            f"UPDATE {revisions} SET {taken}, {c(JudgmentRevision, 'status')} = %s, "
            f"{c(JudgmentRevision, 'client')} = %s, {c(JudgmentRevision, 'created_at')} = %s "
            f"WHERE {latest} AND {c(JudgmentRevision, 'created_at')} > %s RETURNING {c(JudgmentRevision, 'id')}"
        ),
        "keep_payload": (
            f"UPDATE {revisions} SET {c(JudgmentRevision, 'kept_payload')} = %s WHERE "
            f"{c(JudgmentRevision, 'judgment')} = %s AND {c(JudgmentRevision, 'version')} = %s "
            f"AND {c(JudgmentRevision, 'kept_payload')} IS NULL"
        ),
        "revision": (
            f"INSERT INTO {revisions} ({', '.join(c(JudgmentRevision, f) for f in inserted)}) "
            f"VALUES ({', '.join(['%s'] * len(inserted))}) RETURNING {c(JudgmentRevision, 'id')}"
        ),
        "revision_fields": ",".join(inserted),
    }


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
    now = timezone.now()
    judgment.updated_at = now
    sql = _sql(connection.vendor)
    prep = functools.partial(rawrows.prep, Judgment, connection=connection)
    values = [
        prep("payload", judgment.payload),
        judgment.status,
        judgment.version,
        prep("held_payload", judgment.held_payload),
        judgment.submitted_version,
        prep("updated_at", now),
        prep("submitted_at", judgment.submitted_at),
    ]
    if not created:
        # (topic, assessor) and created_at are unchanged: the columns a save can change.
        _run(sql["update"], [*values, judgment.active_ms, judgment.pk])
    else:
        judgment.created_at = now
        inserted = _one(
            sql["insert"], [topic.pk, judgment.assessor.pk, *values, prep("created_at", now), judgment.active_ms]
        )
        if inserted is None:
            # Another request created it between our read and our insert.
            raise Conflict(Judgment.objects.get(topic=topic, assessor=judgment.assessor).version)
        judgment.pk = inserted[0]
        judgment._state.adding = False
    changed = counted != (judgment.submitted_version, judgment.status in Judgment.COUNTING)
    if not changed and (created or previous != status or (active_ms and status in Judgment.COUNTING)):
        changes.draft_changed(topic)
    if client and judgment.version > 1:
        replaced = _replace_draft(judgment, previous=previous, author=author, client=client, now=now)
        if replaced is not None:
            if changed:  # a submission took the draft revision's place: its id marks the topic
                changes.topic_changed(topic, replaced)
            return
    if judgment.version > 1:
        keep = rawrows.prep(JudgmentRevision, "kept_payload", before, connection)
        _run(sql["keep_payload"], [keep, judgment.pk, judgment.version - 1])
    fields = {
        "judgment": judgment.pk,
        "version": judgment.version,
        "author": author.pk,
        "kept_payload": None,
        "status": status,
        "source": source,
        "reason": reason,
        "created_at": rawrows.prep(JudgmentRevision, "created_at", now, connection),
        "updated_at": rawrows.prep(JudgmentRevision, "updated_at", now, connection),
        "saves": 1,
        # A submitted revision is never replaced: no origin to match.
        "client": "" if status == _S.SUBMITTED else client,
    }
    revision = _one(sql["revision"], [fields[name] for name in sql["revision_fields"].split(",")])[0]
    if changed:
        changes.topic_changed(topic, revision)


def _replace_draft(
    judgment: Judgment, *, previous: str, author: AbstractBaseUser, client: str, now: datetime
) -> int | None:
    """Put this save in the judgment's latest revision, if that is a draft (status
    ``previous``: draft, or reopened with a draft on top) saved from the same ``client``
    by the same assessor, first saved less than ``CONCORD_DRAFT_REVISION_SECONDS`` ago
    (one conditional UPDATE, which returns the revision's id). A draft save keeps the
    revision a draft; a submission makes it the submitted revision, dated now (Phase 1's
    payloads are read by that date) and never replaced again. The revision's id, or None
    when it made none.

    A draft from another client (another tab's ``X-Concord-Page``, another session or
    token) begins a revision of its own, so that the version a 409 merge prompt
    showed stays in the history, but only while the judgment has begun fewer than
    ``DRAFT_REVISIONS_PER_WINDOW`` draft revisions within the window: the client is
    the sender's word, and alternating it must not make every save a revision. Past
    that the draft replaces the latest draft revision, wherever it came from (one
    read of at most that many revisions, by the unique (judgment, version))."""
    window = settings.CONCORD_DRAFT_REVISION_SECONDS
    if window <= 0:
        return None
    since = now - timedelta(seconds=window)
    prep = functools.partial(rawrows.prep, JudgmentRevision, connection=connection)
    sql = _sql(connection.vendor)
    taken = [judgment.version, None, prep("updated_at", now)]
    latest = [judgment.pk, judgment.version - 1, previous, author.pk, client, prep("created_at", since)]
    if judgment.status == _S.SUBMITTED:
        row = _one(sql["replace_by_submission"], [*taken, _S.SUBMITTED, "", prep("created_at", now), *latest])
        # A submission from elsewhere keeps the draft before it.
        return None if row is None else row[0]
    row = _one(sql["replace_draft"], [*taken, *latest])
    if row is not None:
        return row[0]
    recent = JudgmentRevision.objects.filter(judgment=judgment).order_by("-version")
    begun = [
        c for c, when in recent.values_list("client", "created_at")[:DRAFT_REVISIONS_PER_WINDOW] if c and when > since
    ]
    if len(begun) < DRAFT_REVISIONS_PER_WINDOW:
        return None
    older = JudgmentRevision.objects.filter(
        judgment=judgment, version=judgment.version - 1, status=previous, author=author, created_at__gt=since
    ).exclude(client="")
    update = {"version": judgment.version, "kept_payload": None, "saves": F("saves") + 1, "updated_at": now}
    if older.update(**update, client=client) != 1:
        return None
    return older.model.objects.filter(judgment=judgment, version=judgment.version).values_list("pk", flat=True).get()


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
    found = _judgment_and_assignment(topic, assessor)
    judgment = found.judgment
    if not found.assigned:
        clean_judgment_request(topic, payload, status, version)
        raise NotAssigned()
    cleaned = clean_judgment_request(topic, payload, status, version, scope=found.items, assessor=assessor)
    current = judgment.version if judgment else 0
    if version != current:
        # A retry of the save that paused the assessor still finds it saved.
        if judgment and version == current - 1 and judgment.payload == cleaned and _repeats(judgment, status):
            return SaveResult(judgment, replayed=True)
        raise Conflict(current)
    if found.paused is not None:
        raise Paused(found.paused)
    target = transition(judgment.status if judgment else NEW, SUBMIT if status == _S.SUBMITTED else SAVE)
    if judgment is None:
        judgment = Judgment(topic=topic, assessor=assessor)
    judgment.active_ms += active_ms
    _write(judgment, payload=cleaned, status=target, author=assessor, source=source, client=client, active_ms=active_ms)
    if target == _S.SUBMITTED and found.control:
        # The quality rules read the assessor's controls only when a control was submitted, in
        # this transaction: a pause and the submission that earned it commit together.
        quality.apply_rules(topic, assessor)
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
