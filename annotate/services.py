"""Writes: campaigns, members, topics, assignment, judgments, runs.

Every function validates everything first and writes inside one transaction,
so bad input changes nothing and no judgment is lost or silently overwritten.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from annotate import accounts, adaptive, changes, imports, rows
from annotate.labels import CrowdLabel
from annotate.models import (
    Assignment,
    Campaign,
    Curation,
    CurationRevision,
    Judgment,
    JudgmentRevision,
    Membership,
    Run,
    Topic,
)
from concord.errors import InvalidInput
from kinds.base import id_key, require_id, require_list, require_object, require_text
from kinds.registry import get_kind

User = get_user_model()


class Conflict(Exception):
    """The judgment changed since the client read it."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"the judgment is at version {current_version}; reload it and apply your change again")
        self.current_version = current_version


class NotAssigned(Exception):
    """The user is not assigned to the topic."""


# -- campaigns and members --------------------------------------------------


@transaction.atomic
def create_campaign(
    *,
    creator: AbstractBaseUser,
    kind: str,
    name: str,
    guidelines: str = "",
    overlap: int = 2,
    params: dict[str, Any] | None = None,
) -> Campaign:
    get_kind(kind)
    require_text(name, "name", max_length=200)
    require_text(guidelines, "guidelines", allow_empty=True)
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= 100:
        raise InvalidInput("overlap", "expected a whole number of assessors per topic, from 1 to 100")
    params = clean_campaign_params(kind, params)
    campaign = Campaign.objects.create(
        kind=kind, name=name, guidelines=guidelines, overlap=overlap, params=params, created_by=creator
    )
    if not creator.is_staff:
        Membership.objects.create(campaign=campaign, user=creator, role=Membership.Role.ORGANISER)
    return campaign


def clean_campaign_params(
    kind: str, params: Any, *, current: dict[str, Any] | None = None, internal: bool = False
) -> dict[str, Any]:
    """A campaign's params checked against its kind's ``params_schema``, with
    defaults filled: every creation or change of params passes here before
    anything is stored. ``current``: the stored params being replaced (what
    Concord set itself, such as factoids' ``phase``, stays); ``internal``:
    Concord itself writes (restoring a backup, starting Phase 2)."""
    cleaned = get_kind(kind).params.clean(params, "params", current=current, internal=internal)
    adaptive.check_params(cleaned)
    return cleaned


@transaction.atomic
def add_member(*, campaign: Campaign, username: str, role: str) -> Membership:
    """Add (or change the role of) a member; new assessors get topics at once.

    A valid username that is nobody's becomes a new account without a usable
    password (``Membership.created_account``): the organisers may make it a
    set-password link (annotate.accounts). So does one that is an unclaimed
    invitation of other campaigns: the organiser is told what a new name
    tells, and the first link used withdraws the other invitations
    (annotate.members.claim_account). Any other account is added as it is;
    the organiser learns only that it exists (annotate.accounts: what an
    organiser may learn). A name no account could have is refused, and so
    is one differing only in case from an existing account (as imports refuse
    it). The name is read as login reads it (stripped, NFKC), so ``ｃａｒｏｌ``
    is ``carol``.

    A campaign keeps at least one organiser: the last one cannot be made
    anything else (by themselves or anyone).
    """
    if role not in Membership.Role.values:
        raise InvalidInput("role", f"expected one of {', '.join(Membership.Role.values)}")
    if not isinstance(username, str):
        raise InvalidInput("username", "expected a user name (a string)")
    username = require_username(User.normalize_username(username.strip()), "username", what="user")
    user = User.objects.select_for_update().filter(username=username).first()
    # An invitation: a new account, or one still unclaimed (annotate.accounts: nobody's yet).
    invited = user is None or accounts.unclaimed(user)
    if user is None:
        require_unlike_existing(username, "username")
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    organisers = Membership.objects.select_for_update().filter(campaign=campaign, role=Membership.Role.ORGANISER)
    if role != Membership.Role.ORGANISER and list(organisers.values_list("user_id", flat=True)) == [user.pk]:
        raise InvalidInput("role", f"{username!r} is the campaign's last organiser: make someone else organiser first")
    membership, _ = Membership.objects.update_or_create(
        campaign=campaign,
        user=user,
        defaults={"role": role},
        create_defaults={"role": role, "created_account": invited},
    )
    if role == Membership.Role.ASSESSOR:
        assign_topics(campaign)
    changes.progress_changed(campaign.pk)
    return membership


def assign_topics(campaign: Campaign) -> int:
    """Bring every topic up to ``campaign.overlap`` assessors (:func:`_assignment_rows`);
    how many assignments were made."""
    table, new = _assignment_rows(campaign)
    return table.insert(new)


def _assignment_rows(campaign: Campaign) -> tuple[rows.Table, list[tuple]]:
    """The assignments that bring every topic up to ``campaign.overlap`` assessors, as
    rows of the table returned (an import inserts them a batch per transaction).

    Least-loaded first (fewest assignments in this campaign, then the oldest
    account), never the same assessor twice on a topic. With campaign
    ``params["design"] == "one-per-item"`` (the cheap design of Arehart et
    al., section 3.2.1) each item goes to one assessor drawn at random
    instead; with ``"adaptive"`` nothing is assigned up front (work is handed
    out by :func:`annotate.adaptive.next_work` when an assessor asks for it).
    Imported crowd workers never log in, so they get no new topics.
    """
    table = rows.table(Assignment, ("topic_id", "assessor_id"))
    if adaptive.is_adaptive(campaign):
        return table, []
    assessors = list(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.ASSESSOR, imported=False)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )
    if not assessors:
        return table, []
    if campaign.params.get("design") == "one-per-item":
        return _one_per_item(campaign, assessors)
    existing: dict[int, set[int]] = defaultdict(set)
    load: Counter[int] = Counter({a: 0 for a in assessors})
    for topic_id, assessor_id in Assignment.objects.filter(topic__campaign=campaign).values_list(
        "topic_id", "assessor_id"
    ):
        existing[topic_id].add(assessor_id)
        load[assessor_id] += 1
    new: list[tuple] = []
    for topic_id in campaign.topics.order_by("position", "id").values_list("id", flat=True):
        have = existing[topic_id]
        wanted = campaign.overlap - len(have)
        if wanted <= 0:
            continue
        free = sorted((a for a in assessors if a not in have), key=lambda a: (load[a], a))
        for assessor_id in free[:wanted]:
            new.append((topic_id, assessor_id))
            load[assessor_id] += 1
    return table, new


def _one_per_item(campaign: Campaign, assessors: list[int]) -> tuple[rows.Table, list[tuple]]:
    """Each item of each topic to one assessor drawn at random (seeded by the
    campaign and topic, so it is reproducible); topics already assigned stay."""
    kind = get_kind(campaign.kind).data
    table = rows.table(Assignment, ("topic_id", "assessor_id", "items"))
    assigned = set(Assignment.objects.filter(topic__campaign=campaign).values_list("topic_id", flat=True))
    new = []
    for topic in campaign.topics.exclude(pk__in=assigned).order_by("position", "id"):
        rng = random.Random(f"{campaign.pk}:{topic.external_id}")
        items: dict[int, list[str]] = {}
        for item in kind.items(topic.data):
            items.setdefault(rng.choice(assessors), []).append(item)
        new.extend((topic.pk, a, table.prepare("items", chosen)) for a, chosen in sorted(items.items()))
    return table, new


# -- topics and runs -----------------------------------------------------------


def clean_topics(campaign: Campaign, topics: Any) -> list[dict[str, Any]]:
    """Validate a list of topics for ``campaign``; nothing is written."""
    kind = get_kind(campaign.kind).data
    require_list(topics, "topics", min_length=1)
    # Topic ids compare by their NFC form (kinds.base.id_key).
    taken = {id_key(external_id): external_id for external_id in campaign.topics.values_list("external_id", flat=True)}
    cleaned = []
    for index, topic in enumerate(topics):
        path = f"topics[{index}]"
        require_object(topic, path, allowed={"external_id", "title", "data"}, required={"external_id", "data"})
        external_id = require_id(topic["external_id"], f"{path}.external_id")
        other = taken.get(id_key(external_id))
        if other is not None:
            same = "" if other == external_id else f" (as {other!r}: the same after Unicode normalisation, NFC)"
            raise InvalidInput(f"{path}.external_id", f"a topic {external_id!r} already exists in this campaign{same}")
        taken[id_key(external_id)] = external_id
        title = require_text(topic.get("title", ""), f"{path}.title", allow_empty=True, max_length=500)
        data = kind.clean_topic_data(topic["data"], field=f"{path}.data")
        cleaned.append({"external_id": external_id, "title": title or external_id, "data": data})
    return cleaned


# Imports check and prepare everything first, reading only, and then write the
# prepared rows (annotate/rows.py) through annotate/imports.py: a small import in
# one short transaction, a large one a few thousand rows per transaction behind
# a fence that keeps its campaign out of sight until the last one. Composite
# imports (topics with runs, a crowd file's topics, judgments and gold run)
# check each part, then write them all as one import (:func:`write_checked`),
# so nothing is half-imported or half-visible. What may change between the
# check and the write (a topic id or run name, a worker's account, a judgment
# taken meanwhile) is checked again there or refused by a unique constraint,
# and nothing is imported.

CHANGED_MEANWHILE = "changed while the file was being checked (another import?); nothing imported: send it again"


@dataclass(frozen=True)
class CheckedTopics:
    """Topics checked for a campaign, ready to write: ``(external_id, title, data)``
    with ``data`` as the database takes it, and the cleaned data by id (to check
    runs and judgments of the same import against)."""

    campaign: Campaign
    rows: list[tuple[str, str, Any]]
    data: dict[str, Any]


def check_topics(campaign: Campaign, topics: Any) -> CheckedTopics:
    """:func:`clean_topics` and the rows to write; nothing is written."""
    cleaned = clean_topics(campaign, topics)
    table = _topic_table(campaign)
    return CheckedTopics(
        campaign,
        [(t["external_id"], t["title"], table.prepare("data", t["data"])) for t in cleaned],
        {t["external_id"]: t["data"] for t in cleaned},
    )


def _topic_table(campaign: Campaign) -> rows.Table:
    return rows.table(Topic, ("external_id", "title", "data", "position"), campaign_id=campaign.pk)


def _topic_steps(checked: CheckedTopics, out: dict) -> Iterator[None]:
    """Insert checked topics after the campaign's others (``out["positions"]``) and
    assign them, a batch per step."""
    campaign = checked.campaign
    existing = campaign.topics.values_list("external_id", flat=True)
    if {id_key(e) for e in existing} & {id_key(e) for e, _, _ in checked.rows}:
        raise InvalidInput("topics", f"the campaign's topics {CHANGED_MEANWHILE}")
    start = campaign.topics.count()
    out["positions"] = range(start, start + len(checked.rows))
    table = _topic_table(campaign)
    for first in range(0, len(checked.rows), imports.BATCH):
        chunk = checked.rows[first : first + imports.BATCH]
        table.insert((e, title, data, start + first + i) for i, (e, title, data) in enumerate(chunk))
        yield
    table, assignments = _assignment_rows(campaign)
    for first in range(0, len(assignments), imports.BATCH):
        table.insert(assignments[first : first + imports.BATCH])
        yield


def import_topics(*, campaign: Campaign, topics: Any) -> list[Topic]:
    """Add topics (all or nothing) and assign them."""
    return write_checked(check_topics(campaign, topics)).topics


@dataclass(frozen=True)
class CheckedRuns:
    """Runs checked for a campaign, ready to write: ``(name, data)``, ``data`` as the database takes it."""

    campaign: Campaign
    rows: list[tuple[str, Any]]


def check_runs(campaign: Campaign, runs: Any, *, topics: CheckedTopics | None = None) -> CheckedRuns:
    """Validate ``[{"name": str, "data": {...}}]`` against the campaign's topics
    and those of the same import (``topics``); nothing is written."""
    require_list(runs, "runs", min_length=1)
    kind = get_kind(campaign.kind).data
    known = {**dict(campaign.topics.values_list("external_id", "data")), **(topics.data if topics else {})}
    taken = set(campaign.runs.values_list("name", flat=True))
    table = _run_table(campaign)
    checked = []
    for index, run in enumerate(runs):
        path = f"runs[{index}]"
        require_object(run, path, allowed={"name", "data"}, required={"name", "data"})
        name = require_id(run["name"], f"{path}.name")
        if name in taken:
            raise InvalidInput(f"{path}.name", f"a run {name!r} already exists in this campaign")
        taken.add(name)
        checked.append((name, table.prepare("data", kind.clean_run_data(run["data"], known, field=f"{path}.data"))))
    return CheckedRuns(campaign, checked)


def _run_table(campaign: Campaign) -> rows.Table:
    return rows.table(Run, ("name", "data"), campaign_id=campaign.pk)


def _run_steps(checked: CheckedRuns) -> Iterator[None]:
    """Insert checked runs (a name taken meanwhile refuses them all), a few per step."""
    table = _run_table(checked.campaign)
    for first in range(0, len(checked.rows), _RUNS_PER_STEP):
        table.insert(checked.rows[first : first + _RUNS_PER_STEP])
        yield


#: Runs per transaction of a large import (a run's data may hold a whole TREC run).
_RUNS_PER_STEP = 10


def import_runs(*, campaign: Campaign, runs: Any) -> list[Run]:
    """Add runs: ``[{"name": str, "data": {...}}]`` (all or nothing)."""
    return write_checked(runs=check_runs(campaign, runs)).runs


@dataclass(frozen=True)
class Imported:
    """What :func:`write_checked` wrote (read back once committed)."""

    topics: list[Topic]
    runs: list[Run]
    summary: ImportSummary | None


def write_checked(
    topics: CheckedTopics | None = None,
    *,
    runs: CheckedRuns | None = None,
    judgments: CheckedJudgments | None = None,
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """Write the checked parts of one import as one (annotate/imports.py: topics
    first, since the runs and judgments may be of them), mark the campaign's
    reports stale, and read back what was created."""
    campaign = next(part.campaign for part in (topics, runs, judgments) if part is not None)
    plan = imports.Plan(
        rows=sum(len(part.rows) for part in (topics, runs, judgments) if part is not None),
        accounts=[user.pk for user in judgments.accounts.existing.values()] if judgments else [],
        new_accounts=list(judgments.accounts.new) if judgments else [],
        runs=[name for name, _ in runs.rows] if runs else [],
    )
    out: dict[str, Any] = {"positions": range(0), "summary": None}
    try:
        imports.write(campaign, _import_steps(campaign, topics, runs, judgments, progress, out), plan)
    except IntegrityError:
        # A unique constraint: a topic id, run name, account or judgment taken meanwhile.
        raise InvalidInput("file", f"the campaign {CHANGED_MEANWHILE}") from None
    positions = out["positions"]
    created = campaign.topics.filter(position__gte=positions.start, position__lt=positions.stop) if positions else []
    wanted = {external_id for external_id, _, _ in topics.rows} if topics else set()
    return Imported(
        [t for t in created if t.external_id in wanted],
        list(campaign.runs.filter(name__in=plan.runs)) if plan.runs else [],
        out["summary"],
    )


def _import_steps(campaign, topics, runs, judgments, progress, out: dict) -> Iterator[None]:
    if topics:
        yield from _topic_steps(topics, out)
    if runs:
        yield from _run_steps(runs)
    if judgments:
        yield from _judgment_steps(judgments, progress, out)
    if runs or judgments:
        # With the last rows (and, for a large import, the fence's fall).
        changes.campaign_changed(campaign)


# -- judgments -----------------------------------------------------------------


@dataclass(frozen=True)
class SaveResult:
    judgment: Judgment
    #: True when the request repeated the last save (a client retry): nothing new was written.
    replayed: bool = False


# -- judgment states ---------------------------------------------------------------
#
# The one place that says which action may change a judgment from which state.
# ``new`` is a judgment never saved. "Counts" is what the reports read
# (``Judgment.submitted_payload``).
#
#   from                  action            to          what counts afterwards
#   --------------------  ----------------  ----------  --------------------------------
#   new, draft            save (PUT draft)  draft       nothing
#   new, draft            submit            submitted   the submitted payload
#   submitted             reopen            reopened    still the submitted payload
#   reopened              save (PUT draft)  reopened    still the submitted payload
#   reopened              submit            submitted   the newly submitted payload
#   submitted, reopened   withdraw(reason)  withdrawn   nothing (the reason is kept)
#   withdrawn             save (PUT draft)  draft       nothing
#
# Anything else (e.g. PUT draft on a submitted judgment) is refused with
# InvalidInput("status", what to do instead) and writes nothing. Submitting
# takes a complete payload; the others take a draft. Every transition bumps
# the version (a stale one is a Conflict) and is kept as a JudgmentRevision
# (drafts in a row from one client within a minute share one, which the submission
# ending them takes over, and a judgment begins at most 3 draft revisions a minute:
# save_judgment).
# Reports are marked stale when what counts changes: on submit and withdraw.

SAVE, SUBMIT, REOPEN, WITHDRAW = "save", "submit", "reopen", "withdraw"
NEW = "new"
_S = Judgment.Status

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

#: What a refused transition tells the client to do instead.
_REFUSALS: dict[tuple[str, str], str] = {
    (_S.SUBMITTED, SAVE): "this judgment is submitted and counts in the reports: reopen it first to edit it",
    (_S.SUBMITTED, SUBMIT): "this judgment is already submitted: reopen it first to change it",
    (_S.WITHDRAWN, SUBMIT): "this judgment is withdrawn: save it as a draft first, then submit it",
    (_S.REOPENED, REOPEN): "this judgment is already reopened: save your draft or submit it",
}

#: The largest withdrawal reason kept.
REASON_MAX_LENGTH = 2000


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
    judgment: Judgment, *, status: str, author: AbstractBaseUser, source: str, reason: str = "", client: str = ""
) -> None:
    """Save ``judgment`` one version up in ``status``, its revision, and mark
    the topic stale when what counts changed. ``client``: a draft save's or a
    submission's origin (:func:`save_judgment`), whose revision may replace the
    draft revision before it."""
    topic = judgment.topic
    counted = (judgment.submitted_version, judgment.status in Judgment.COUNTING)
    previous = judgment.status
    judgment.status = status
    judgment.version += 1
    if status == _S.SUBMITTED:
        judgment.submitted_payload = judgment.payload
        judgment.submitted_version = judgment.version
        judgment.submitted_at = timezone.now()
    elif status not in Judgment.COUNTING:
        judgment.submitted_payload = judgment.submitted_version = judgment.submitted_at = None
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
    if client and judgment.version > 1 and _replace_draft(judgment, previous=previous, author=author, client=client):
        if changed:  # a submission took the draft revision's place: its id marks the topic
            replaced = JudgmentRevision.objects.filter(judgment=judgment, version=judgment.version)
            changes.topic_changed(topic, replaced.values_list("pk", flat=True).get())
        return
    revision = JudgmentRevision.objects.create(
        judgment=judgment,
        version=judgment.version,
        author=author,
        payload=judgment.payload,
        status=status,
        source=source,
        reason=reason,
        # A submitted revision is never replaced: no origin to match.
        client="" if status == _S.SUBMITTED else client,
    )
    if changed:
        changes.topic_changed(topic, revision.pk)


#: Draft revisions a judgment begins at most in any ``CONCORD_DRAFT_REVISION_SECONDS``,
#: whatever page or token its drafts come from: beyond them a draft replaces the latest.
DRAFT_REVISIONS_PER_WINDOW = 3


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
    changes = {"version": judgment.version, "payload": judgment.payload, "saves": F("saves") + 1, "updated_at": now}
    if judgment.status == _S.SUBMITTED:
        changes |= {"status": _S.SUBMITTED, "client": "", "created_at": now}
    latest = JudgmentRevision.objects.filter(
        judgment=judgment, version=judgment.version - 1, status=previous, author=author, created_at__gt=since
    )
    if latest.filter(client=client).update(**changes) == 1:
        return True
    if judgment.status == _S.SUBMITTED:
        return False  # a submission from elsewhere keeps the draft before it
    recent = JudgmentRevision.objects.filter(judgment=judgment).order_by("-version")
    begun = [
        c for c, when in recent.values_list("client", "created_at")[:DRAFT_REVISIONS_PER_WINDOW] if c and when > since
    ]
    if len(begun) < DRAFT_REVISIONS_PER_WINDOW:
        return False
    return latest.exclude(client="").update(**changes, client=client) == 1


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
    judgment.payload = cleaned
    judgment.active_ms += active_ms
    _write(judgment, status=target, author=assessor, source=source, client=client)
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


@dataclass(frozen=True)
class ImportSummary:
    assessors_created: int
    judgments: int
    topics: int


#: How an import refers to a worker: the line or field where the name first appears.
Workers = dict[str, str]


@dataclass(frozen=True)
class WorkerAccounts:
    """The accounts an import writes under: names to create as imported
    workers, and existing accounts it may write under (by name)."""

    new: list[str]
    existing: dict[str, AbstractBaseUser]


def _shown(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:40] + "...")


def require_unlike_existing(name: str, where: str) -> None:
    """Refuse a new account's name that differs only in case from an existing
    account's (``Bob`` beside ``bob``), as imports do (:func:`clean_workers`)."""
    from django.db.models.functions import Lower

    if User.objects.annotate(folded=Lower(User.USERNAME_FIELD)).filter(folded=name.lower()).exists():
        raise InvalidInput(
            where, f"user {_shown(name)} differs only in case from an existing account; choose another name"
        )


def require_username(name: Any, where: str, *, what: str = "account") -> str:
    """A name an account may have: Django's UnicodeUsernameValidator (letters,
    digits and @ . + - _), the username's length limit, and Unicode NFKC form
    (Django stores usernames normalised). ``where`` is the field an error names."""
    from django.contrib.auth.validators import UnicodeUsernameValidator
    from django.core.exceptions import ValidationError

    if not isinstance(name, str):
        raise InvalidInput(where, f"expected a {what} name (a string)")
    longest = User._meta.get_field(User.USERNAME_FIELD).max_length
    if not name or len(name) > longest:
        raise InvalidInput(where, f"{what} {_shown(name)}: a {what} name is 1 to {longest} characters")
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError:
        raise InvalidInput(
            where, f"{what} {_shown(name)}: a {what} name has only letters, digits and @ . + - _"
        ) from None
    if User.normalize_username(name) != name:
        raise InvalidInput(
            where, f"{what} {_shown(name)} is not in Unicode normal form (NFKC: {User.normalize_username(name)!r})"
        )
    return name


def clean_workers(campaign: Campaign, workers: Workers, *, map_members: bool = False) -> WorkerAccounts:
    """Check the worker names an import would write judgments under; nothing is written.

    Names are validated as usernames are (Django's UnicodeUsernameValidator,
    the username's length limit, and already in Unicode NFKC form, as Django
    stores usernames). A name that is an existing account is refused unless
    it is an imported worker of this campaign (an earlier import of it created
    the account, which cannot log in) or ``map_members`` is set and the account
    is an assessor of this campaign. A name differing only in case from an
    existing account is refused. ``workers`` maps each name to where it first
    appears ("line 3", "judgments[1].assessor"), which the error names.
    """
    from django.db.models.functions import Lower

    for name, where in workers.items():
        require_username(name, where, what="worker")
    folded = {name.lower() for name in workers}
    accounts = list(User.objects.annotate(folded=Lower(User.USERNAME_FIELD)).filter(folded__in=folded))
    exact = {user.get_username(): user for user in accounts}
    similar = {user.get_username().lower() for user in accounts}
    memberships = {
        m.user_id: m for m in Membership.objects.filter(campaign=campaign, user__in=[u.pk for u in exact.values()])
    }
    new, existing = [], {}
    for name, where in workers.items():
        user = exact.get(name)
        if user is None:
            if name.lower() in similar:
                raise InvalidInput(
                    where, f"worker {_shown(name)} differs only in case from an existing account; rename it"
                )
            new.append(name)
            continue
        membership = memberships.get(user.pk)
        if membership is not None and membership.imported and not user.has_usable_password():
            existing[name] = user  # created by an earlier import of this campaign
        elif not map_members:
            raise InvalidInput(
                where,
                f"worker {_shown(name)} is an existing account; pass map_members=true (--map-members) "
                "to attribute these judgments to members of this campaign",
            )
        elif membership is None or membership.role != Membership.Role.ASSESSOR:
            raise InvalidInput(
                where,
                f"worker {_shown(name)} is an existing account that is not an assessor of this campaign; "
                "only assessors of this campaign can be mapped",
            )
        else:
            existing[name] = user
    return WorkerAccounts(new=new, existing=existing)


@dataclass(frozen=True)
class CheckedJudgments:
    """Submitted judgments checked for a campaign, ready to write: the accounts to
    write under and ``(topic external id, worker, payload)`` rows, the payload as
    the database takes it."""

    campaign: Campaign
    accounts: WorkerAccounts
    rows: list[tuple[str, str, Any]]


def _topic_data(campaign: Campaign, topics: CheckedTopics | None) -> dict[str, Any]:
    """Topic data by external id: the campaign's, and those of the same import."""
    return {**dict(campaign.topics.values_list("external_id", "data")), **(topics.data if topics else {})}


def check_crowd_labels(
    *,
    campaign: Campaign,
    labels: Sequence[CrowdLabel],
    map_members: bool = False,
    topics: CheckedTopics | None = None,
) -> CheckedJudgments:
    """Check judgments given as (worker, item, label) rows; nothing is written.

    Workers become imported assessors of the campaign (accounts without a
    usable password that cannot log in; see :func:`clean_workers` for the
    names allowed), each (worker, topic) becomes one submitted judgment with
    an assignment; the kind turns ``{candidate: label}`` into its payload and
    validates it as a complete submission.
    """
    if not labels:
        raise InvalidInput("file", "no rows: nothing to import")
    known = _topic_data(campaign, topics)
    grouped: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    workers: Workers = {}
    for row in labels:
        if row.topic not in known:
            raise InvalidInput(f"line {row.line}: topic", f"unknown topic {row.topic!r}")
        if row.candidate in grouped[(row.worker, row.topic)]:
            raise InvalidInput(f"line {row.line}", f"{row.worker!r} labelled {row.candidate!r} twice")
        grouped[(row.worker, row.topic)][row.candidate] = row.label
        workers.setdefault(row.worker, f"line {row.line}")
    accounts = clean_workers(campaign, workers, map_members=map_members)
    kind = get_kind(campaign.kind).data
    prepare = _judgment_table().prepare
    checked = []
    for (worker, topic_id), answers in grouped.items():
        try:
            payload = kind.payload_from_labels(answers)
            payload = kind.clean_judgment(payload, known[topic_id], complete=True, params=campaign.params)
        except InvalidInput as error:
            raise InvalidInput(f"worker {worker!r}, topic {topic_id!r}: {error.field}", error.message) from None
        checked.append((topic_id, worker, prepare("payload", payload)))
    return CheckedJudgments(campaign, accounts, checked)


def import_crowd_labels(
    *,
    campaign: Campaign,
    labels: Sequence[CrowdLabel],
    progress: Callable[[int], None] | None = None,
    map_members: bool = False,
) -> ImportSummary:
    """Import existing judgments from (worker, item, label) rows, all or nothing
    (:func:`check_crowd_labels`)."""
    checked = check_crowd_labels(campaign=campaign, labels=labels, map_members=map_members)
    return write_checked(judgments=checked, progress=progress).summary


def check_judgments(
    *,
    campaign: Campaign,
    entries: Any,
    map_members: bool = False,
    topics: CheckedTopics | None = None,
) -> CheckedJudgments:
    """Check submitted judgments ``[{"assessor", "topic", "payload"}]`` of any kind
    (of the campaign's topics and those of the same import); nothing is written."""
    require_list(entries, "judgments", min_length=1)
    known = _topic_data(campaign, topics)
    kind = get_kind(campaign.kind).data
    prepare = _judgment_table().prepare
    seen: set[tuple[str, str]] = set()
    checked = []
    workers: Workers = {}
    for index, entry in enumerate(entries):
        path = f"judgments[{index}]"
        require_object(entry, path, allowed={"assessor", "topic", "payload"}, required={"assessor", "topic", "payload"})
        assessor = require_id(entry["assessor"], f"{path}.assessor")
        topic = require_id(entry["topic"], f"{path}.topic")
        if topic not in known:
            raise InvalidInput(f"{path}.topic", f"unknown topic {topic!r}")
        if (assessor, topic) in seen:
            raise InvalidInput(path, f"a second judgment by {assessor!r} of topic {topic!r}")
        seen.add((assessor, topic))
        workers.setdefault(assessor, f"{path}.assessor")
        try:
            payload = kind.clean_judgment(entry["payload"], known[topic], complete=True, params=campaign.params)
        except InvalidInput as error:
            raise InvalidInput(f"{path}.{error.field}", error.message) from None
        checked.append((topic, assessor, prepare("payload", payload)))
    accounts = clean_workers(campaign, workers, map_members=map_members)
    return CheckedJudgments(campaign, accounts, checked)


def import_judgments(
    *,
    campaign: Campaign,
    entries: Any,
    progress: Callable[[int], None] | None = None,
    map_members: bool = False,
) -> ImportSummary:
    """Import submitted judgments ``[{"assessor", "topic", "payload"}]`` of any kind, all or
    nothing; assessors as in :func:`check_crowd_labels`."""
    checked = check_judgments(campaign=campaign, entries=entries, map_members=map_members)
    return write_checked(judgments=checked, progress=progress).summary


def _judgment_table() -> rows.Table:
    """Imported judgments: submitted at version 1, the payload counting as submitted."""
    now = timezone.now()
    return rows.table(
        Judgment,
        ("topic_id", "assessor_id", "payload", "submitted_payload"),
        status=Judgment.Status.SUBMITTED,
        version=1,
        submitted_version=1,
        submitted_at=now,
    )


def _judgment_steps(checked: CheckedJudgments, progress: Callable[[int], None] | None, out: dict) -> Iterator[None]:
    """The workers' accounts and memberships, an assignment and a judgment
    (version 1, submitted) for each row, and each judgment's revision, a batch per step."""
    campaign, accounts = checked.campaign, checked.accounts
    existing = {u.pk: name for name, u in accounts.existing.items()}
    topic_ids = dict(campaign.topics.values_list("external_id", "pk"))
    mine = {(topic_ids[t], w) for t, w, _ in checked.rows}
    clash = next(
        (
            (existing[a], t)
            for t, a in Judgment.objects.filter(topic__campaign=campaign, assessor__in=existing).values_list(
                "topic_id", "assessor_id"
            )
            if (t, existing[a]) in mine
        ),
        None,
    )
    if clash:
        topic = next(e for e, pk in topic_ids.items() if pk == clash[1])
        raise InvalidInput("file", f"{clash[0]!r} already has a judgment of topic {topic!r}; nothing imported")
    for first in range(0, len(accounts.new), imports.BATCH):
        created = [User(username=w, is_active=False) for w in accounts.new[first : first + imports.BATCH]]
        for user in created:
            user.set_unusable_password()
        User.objects.bulk_create(created)  # a name taken meanwhile: IntegrityError, nothing imported
        yield
    users = {name: u.pk for name, u in accounts.existing.items()}
    for first in range(0, len(accounts.new), imports.BATCH):
        names = accounts.new[first : first + imports.BATCH]
        users.update(User.objects.filter(username__in=names).values_list("username", "pk"))
        Membership.objects.bulk_create(
            Membership(campaign=campaign, user_id=users[w], role=Membership.Role.ASSESSOR, imported=True) for w in names
        )
        yield
    assigned = set(
        Assignment.objects.filter(topic__campaign=campaign, assessor__in=existing).values_list(
            "topic_id", "assessor_id"
        )
    )
    wanted = [(topic_ids[t], users[w]) for t, w, _ in checked.rows]
    missing = [pair for pair in wanted if pair not in assigned]
    assignment = rows.table(Assignment, ("topic_id", "assessor_id"))
    for first in range(0, len(missing), imports.BATCH):
        assignment.insert(missing[first : first + imports.BATCH])
        yield
    table = _judgment_table()
    for first in range(0, len(wanted), imports.BATCH):
        newest = Judgment.objects.aggregate(m=Max("pk"))["m"] or 0
        chunk = zip(wanted[first : first + imports.BATCH], checked.rows[first : first + imports.BATCH])
        table.insert(
            ((topic, assessor, payload, payload) for (topic, assessor), (_, _, payload) in chunk), done=progress
        )
        _revisions_of_new_judgments(campaign, after=newest)
        yield
    out["summary"] = ImportSummary(
        assessors_created=len(accounts.new), judgments=len(checked.rows), topics=len({t for t, _, _ in checked.rows})
    )


def _revisions_of_new_judgments(campaign: Campaign, *, after: int) -> None:
    """Each judgment of the campaign numbered above ``after`` without a revision
    (every other write adds one in the transaction of its judgment: these are
    the import's) gets its first, copied from it in the database."""
    revision = rows.table(
        JudgmentRevision,
        ("judgment_id", "author_id", "payload"),
        version=1,
        status=Judgment.Status.SUBMITTED,
        source="import",
    )
    quote = connection.ops.quote_name
    judgment, topic, history = (quote(m._meta.db_table) for m in (Judgment, Topic, JudgmentRevision))
    copied = {"judgment_id": "j.id", "author_id": "j.assessor_id", "payload": "j.payload"}
    fields = revision.fields()
    values = [copied.get(f.attname, "%s") for f in fields]
    params = [revision.fixed[f.attname] for f in fields if f.attname not in copied]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {history} ({', '.join(quote(f.column) for f in fields)}) "
            f"SELECT {', '.join(values)} FROM {judgment} j "
            f"WHERE j.id > %s AND j.topic_id IN (SELECT id FROM {topic} WHERE campaign_id = %s) "
            f"AND NOT EXISTS (SELECT 1 FROM {history} r WHERE r.judgment_id = j.id)",
            [*params, after, campaign.pk],
        )


def import_crowd_file(
    *,
    campaign: Campaign,
    topics: list[dict[str, Any]],
    labels: Sequence[CrowdLabel],
    reference: dict[str, dict[str, Any]],
    judgments: Sequence[dict[str, Any]] = (),
    sources: Sequence[str] = (),
    progress: Callable[[int], None] | None = None,
    map_members: bool = False,
) -> ImportSummary:
    """Topics the file introduces, its labels (or whole ``judgments``
    ``{"assessor", "topic", "payload"}``, found at ``sources`` in the file, which
    errors name) and its reference labelling (kept as a run called ``gold``), all
    or nothing (:func:`check_crowd_file`, then written)."""
    checked = check_crowd_file(
        campaign=campaign,
        topics=topics,
        labels=labels,
        reference=reference,
        judgments=judgments,
        sources=sources,
        map_members=map_members,
    )
    return write_checked(checked.topics, runs=checked.runs, judgments=checked.judgments, progress=progress).summary


@dataclass(frozen=True)
class CheckedImport:
    """The checked parts of one import, ready for :func:`write_checked` (or to preview)."""

    topics: CheckedTopics | None
    runs: CheckedRuns | None
    judgments: CheckedJudgments | None


def check_crowd_file(
    *,
    campaign: Campaign,
    topics: list[dict[str, Any]],
    labels: Sequence[CrowdLabel],
    reference: dict[str, dict[str, Any]],
    judgments: Sequence[dict[str, Any]] = (),
    sources: Sequence[str] = (),
    map_members: bool = False,
) -> CheckedImport:
    """What :func:`import_crowd_file` writes, checked; nothing is written. The
    workers are checked (:func:`clean_workers`) before anything else."""
    if not labels and not judgments:
        raise InvalidInput("file", "no rows: nothing to import")
    workers: Workers = {}
    for row in labels:
        workers.setdefault(row.worker, f"line {row.line}")
    for index, entry in enumerate(judgments):
        workers.setdefault(entry["assessor"], sources[index] if index < len(sources) else f"judgments[{index}]")
    clean_workers(campaign, workers, map_members=map_members)
    known = set(campaign.topics.values_list("external_id", flat=True))
    new_topics = [t for t in topics if t.get("external_id") not in known]
    checked_topics = check_topics(campaign, new_topics) if new_topics else None
    if judgments:
        try:
            checked = check_judgments(
                campaign=campaign, entries=list(judgments), map_members=map_members, topics=checked_topics
            )
        except InvalidInput as error:
            raise _located_in(error, sources) from None
    else:
        checked = check_crowd_labels(campaign=campaign, labels=labels, map_members=map_members, topics=checked_topics)
    gold = None
    if reference:
        gold = check_runs(
            campaign, [{"name": "gold", "data": {"reference": True, "labels": reference}}], topics=checked_topics
        )
    return CheckedImport(checked_topics, gold, checked)


def _located_in(error: InvalidInput, sources: Sequence[str]) -> InvalidInput:
    """An error of :func:`import_judgments` (``judgments[3].payload.matches``) named
    where the judgment is in the imported file (``sources[3]``: ``alice's annotations``)."""
    match = re.match(r"judgments\[(\d+)\]\.?(.*)", error.field)
    if match and int(match[1]) < len(sources):
        rest = match[2]
        return InvalidInput(f"{sources[int(match[1])]}{': ' + rest if rest else ''}", error.message)
    return error


# -- curations: an organiser's versioned work on a topic (a consensus; a kind's own) ----------


@transaction.atomic
def save_curation(*, topic: Topic, name: str, data: Any, version: Any, user: AbstractBaseUser) -> Curation:
    """Save an organiser's curation ``name`` of ``topic`` if ``version`` is current:
    ``consensus`` (a judgment of the kind, checked as a draft) for every kind,
    or one of the kind's own (``KindSpec.curations``, e.g. factoid relations)."""
    kind = get_kind(topic.campaign.kind)
    if name == "consensus":
        # The campaign's params, as a judgment is checked (e.g. a relevance campaign's own scale).
        cleaned = kind.data.clean_judgment(data, topic.data, complete=False, params=topic.campaign.params)
    elif name in kind.curations:
        cleaned = kind.curations[name](data, topic)
    else:
        raise InvalidInput("name", f"expected one of: {', '.join(['consensus', *kind.curations])}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidInput("version", "expected the version you read: a whole number, 0 for a new one")
    curation = Curation.objects.select_for_update().filter(topic=topic, name=name).first()
    current = curation.version if curation else 0
    if version != current:
        if curation and version == current - 1 and curation.data == cleaned:
            return curation
        raise Conflict(current)
    curation = curation or Curation(topic=topic, name=name)
    curation.data, curation.version, curation.updated_by = cleaned, current + 1, user
    curation.save()
    revision = CurationRevision.objects.create(curation=curation, version=curation.version, author=user, data=cleaned)
    # A curation is part of its topic's report and partial only (scoring/partials.py).
    changes.topic_changed(topic, revision.pk)
    return curation
