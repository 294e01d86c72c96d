"""Write: what the checks prepared, written as one import.

:func:`write_checked` writes checked topics, runs and judgments together through
annotate.imports.fence (one short transaction if small, else batches behind
the campaign's fence); ``import_topics``, ``import_runs``, ``import_judgments``,
``import_crowd_labels``, ``import_crowd_file`` and ``import_judgment_file`` are
check then write. What may change between the check and the write (a topic id,
a run name, a worker's account, a judgment) is checked again or refused by a unique
constraint, and then nothing is written. A judgment the campaign has that the
import replaces (``CheckedJudgments.replacing``, the wizard's "replace") becomes
a new submitted version through annotate.services.judgments, so its history keeps
every earlier one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection
from django.db.models import Max

from annotate import changes, controls
from annotate.imports import fence, rows
from annotate.imports.check import (
    CHANGED_MEANWHILE,
    CheckedJudgments,
    CheckedRuns,
    CheckedTopics,
    ImportSummary,
    ParamsChange,
    check_crowd_file,
    check_crowd_labels,
    check_judgment_file,
    check_judgments,
    check_runs,
    check_topics,
    judgment_table,
    run_table,
    topic_table,
)
from annotate.imports.read import CrowdLabel, read_judgment_file
from annotate.models import (
    Assignment,
    Campaign,
    Judgment,
    JudgmentRevision,
    Membership,
    Run,
    Topic,
)
from annotate.services.assignments import _assignment_rows
from annotate.services.judgments import Conflict, NotAssigned, reopen_judgment, save_judgment
from concord.errors import InvalidInput
from kinds.base import id_key

User = get_user_model()


def _topic_steps(checked: CheckedTopics, out: dict) -> Iterator[None]:
    """Insert checked topics after the campaign's others (``out["positions"]``) and
    assign them, a batch per step."""
    campaign = checked.campaign
    existing = campaign.topics.values_list("external_id", flat=True)
    if {id_key(e) for e in existing} & {id_key(e) for e, _, _ in checked.rows}:
        raise InvalidInput("topics", f"the campaign's topics {CHANGED_MEANWHILE}")
    start = campaign.topics.count()
    out["positions"] = range(start, start + len(checked.rows))
    table = topic_table(campaign)
    for first in range(0, len(checked.rows), fence.BATCH):
        chunk = checked.rows[first : first + fence.BATCH]
        table.insert((e, title, data, start + first + i) for i, (e, title, data) in enumerate(chunk))
        yield
    # Before the assignments: control topics are not assigned by the overlap (annotate/controls.py).
    known = list(checked.controls.items())
    for first in range(0, len(known), _CONTROL_TOPICS_PER_STEP):
        chunk = dict(known[first : first + _CONTROL_TOPICS_PER_STEP])
        ids = dict(campaign.topics.filter(external_id__in=list(chunk)).values_list("external_id", "id"))
        controls.insert(ids, chunk)
        yield
    table, assignments = _assignment_rows(campaign)
    for first in range(0, len(assignments), fence.BATCH):
        table.insert(assignments[first : first + fence.BATCH])
        yield


#: Control topics whose known answers one step writes (their ids read in one query: SQLite's bound
#: on a statement's parameters aside).
_CONTROL_TOPICS_PER_STEP = 500


def import_topics(*, campaign: Campaign, topics: Any) -> list[Topic]:
    """Add topics (all or nothing) and assign them."""
    return write_checked(check_topics(campaign, topics)).topics


def _run_steps(checked: CheckedRuns) -> Iterator[None]:
    """Insert checked runs (a name taken meanwhile refuses them all), a few per step."""
    table = run_table(checked.campaign)
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
    #: Judgments the campaign had that the import replaced (``CheckedJudgments.replacing``).
    replaced: int = 0


def write_checked(
    topics: CheckedTopics | None = None,
    *,
    runs: CheckedRuns | None = None,
    judgments: CheckedJudgments | None = None,
    progress: Callable[[int], None] | None = None,
    params: ParamsChange | None = None,
    model_judges: Sequence[str] = (),
) -> Imported:
    """Write the checked parts of one import as one (annotate/imports/fence.py: topics
    first, since the runs and judgments may be of them; ``params``, the campaign's new
    params, and ``model_judges``, raters of ``judgments`` to mark model judges, in the last
    transaction), mark the campaign's reports stale, and read back what was created."""
    campaign = next(part.campaign for part in (topics, runs, judgments) if part is not None)
    plan = fence.Plan(
        rows=sum(len(part.rows) for part in (topics, runs, judgments) if part is not None),
        accounts=[user.pk for user in judgments.accounts.existing.values()] if judgments else [],
        new_accounts=list(judgments.accounts.new) if judgments else [],
        runs=[name for name, _ in runs.rows] if runs else [],
    )
    out: dict[str, Any] = {"positions": range(0), "summary": None, "replaced": 0}
    steps = _import_steps(campaign, topics, runs, judgments, progress, out, params, model_judges)
    try:
        fence.write(campaign, steps, plan)
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
        out["replaced"],
    )


def _import_steps(campaign, topics, runs, judgments, progress, out: dict, params=None, judges=()) -> Iterator[None]:
    if topics:
        yield from _topic_steps(topics, out)
    if runs:
        yield from _run_steps(runs)
    if judgments:
        yield from _judgment_steps(judgments, progress, out)
    if judgments and judgments.replacing:
        # In the last transaction: a replaced judgment is an update, which undoing a failed
        # import (fence.undo, deleting what it added) could not take back.
        out["replaced"] = _replace_judgments(campaign, judgments)
    if params is not None:
        # In the last transaction: the judgments and their scale appear together.
        _change_params(campaign, params, judgments)
    if judges:
        # In the last transaction too, once every rater's membership exists: the judgments
        # appear already classed as the model's.
        _mark_model_judges(campaign, judges)
    if runs or judgments or params is not None:
        # With the last rows (and, for a large import, the fence's fall).
        changes.campaign_changed(campaign)
    elif topics:
        # New topics and their assignments: no report moves, the progress counts do.
        changes.progress_changed(campaign.pk)


#: Judgments one import replaces at most: each is a few queries through the judgment services,
#: in the import's last transaction (which holds the database's write lock).
REPLACE_MOST = 200


def _replace_judgments(campaign: Campaign, checked: CheckedJudgments) -> int:
    """Each judgment of ``checked.replacing`` reopened and submitted again with the file's
    payload (annotate.services.judgments: two revisions, by its assessor, ``source``
    ``import``; the one it replaces stays in its history), if it is still at the version the
    check read; else InvalidInput and the import is undone. How many."""
    replacing = checked.replacing
    if len(replacing) > REPLACE_MOST:
        raise InvalidInput("resolve", f"more than {REPLACE_MOST:,} judgments to replace: nothing imported")
    topics = {t.external_id: t for t in campaign.topics.filter(external_id__in={e.topic for e in replacing})}
    for topic in topics.values():
        topic.campaign = campaign  # known: no query per judgment to read it again
    users = checked.accounts.existing
    for existing in replacing:
        topic, assessor = topics.get(existing.topic), users[existing.worker]
        try:
            if topic is None:
                raise NotAssigned()
            reopened = reopen_judgment(topic=topic, assessor=assessor, version=existing.version, source="import")
            save_judgment(
                topic=topic,
                assessor=assessor,
                payload=existing.payload,
                status=Judgment.Status.SUBMITTED,
                version=reopened.judgment.version,
                source="import",
            )
        except (Conflict, NotAssigned):
            raise InvalidInput(
                "file", f"{existing.worker!r}'s judgment of topic {existing.topic!r} {CHANGED_MEANWHILE}"
            ) from None
    return len(replacing)


def _change_params(campaign: Campaign, change: ParamsChange, judgments: CheckedJudgments | None) -> None:
    """The campaign's params become ``change.after``, if they are still ``change.before``
    and the campaign's only judgments are the import's (checked under ``after``)."""
    current = Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("params", flat=True).first()
    if current != change.before:
        raise InvalidInput("scale", f"the campaign's params {CHANGED_MEANWHILE}")
    mine = len(judgments.rows) if judgments else 0
    if Judgment.objects.filter(topic__campaign=campaign).count() != mine:
        raise InvalidInput("scale", f"the campaign's judgments {CHANGED_MEANWHILE}: its scale stays as it is")
    Campaign.objects.filter(pk=campaign.pk).update(params=change.after)
    campaign.params = change.after


#: Names per query marking model judges (SQLite's bound on a statement's parameters aside).
_JUDGES_PER_QUERY = 500


def _mark_model_judges(campaign: Campaign, names: Sequence[str]) -> None:
    """Mark the members ``names`` (distinct: raters of the import) model judges, as
    annotate.services.members.set_model_judge does one member (the reports learn of it with
    the import's judgments). Each must still be a member: else InvalidInput naming
    ``model_judge``, and the import is undone. A failed import leaves no flag: the last
    transaction, which sets them, commits with the import's last rows or not at all."""
    marked = 0
    for first in range(0, len(names), _JUDGES_PER_QUERY):
        chunk = names[first : first + _JUDGES_PER_QUERY]
        marked += Membership.objects.filter(campaign=campaign, user__username__in=chunk).update(model_judge=True)
    if marked != len(names):
        raise InvalidInput("model_judge", f"the campaign's members {CHANGED_MEANWHILE}")


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
    for first in range(0, len(accounts.new), fence.BATCH):
        created = [User(username=w, is_active=False) for w in accounts.new[first : first + fence.BATCH]]
        for user in created:
            user.set_unusable_password()
        User.objects.bulk_create(created)  # a name taken meanwhile: IntegrityError, nothing imported
        yield
    users = {name: u.pk for name, u in accounts.existing.items()}
    for first in range(0, len(accounts.new), fence.BATCH):
        names = accounts.new[first : first + fence.BATCH]
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
    scopes = checked.scopes or [None] * len(wanted)
    assignment = rows.table(Assignment, ("topic_id", "assessor_id", "items"))
    missing = [
        (*pair, assignment.prepare("items", scope))
        for pair, scope in zip(wanted, scopes, strict=True)
        if pair not in assigned
    ]
    for first in range(0, len(missing), fence.BATCH):
        assignment.insert(missing[first : first + fence.BATCH])
        yield
    table = judgment_table()
    for first in range(0, len(wanted), fence.BATCH):
        newest = Judgment.objects.aggregate(m=Max("pk"))["m"] or 0
        chunk = zip(wanted[first : first + fence.BATCH], checked.rows[first : first + fence.BATCH])
        table.insert(((topic, assessor, payload) for (topic, assessor), (_, _, payload) in chunk), done=progress)
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
        ("judgment_id", "author_id"),
        version=1,
        status=Judgment.Status.SUBMITTED,
        source="import",
    )
    quote = connection.ops.quote_name
    judgment, topic, history = (quote(m._meta.db_table) for m in (Judgment, Topic, JudgmentRevision))
    # no payload: the newest revision's is its judgment's (JudgmentRevision.kept_payload)
    copied = {"judgment_id": "j.id", "author_id": "j.assessor_id"}
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


def import_judgment_file(
    campaign: Campaign,
    raw: bytes,
    *,
    filename: str,
    format: str | None = None,
    positive: str | None = None,
    rank: str = "overall",
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    map_members: bool = False,
) -> ImportSummary:
    """Read a judgments file (:func:`read_judgment_file`) and import it, all or nothing.
    ``map_members``: names of this campaign's assessors are theirs
    (annotate.imports.check.clean_workers); otherwise a name that is an account is refused."""
    parsed = read_judgment_file(campaign, raw, filename=filename, format=format, positive=positive, rank=rank)
    if on_total:
        on_total(parsed.count)
    checked = check_judgment_file(campaign, parsed, map_members=map_members)
    return write_checked(checked.topics, runs=checked.runs, judgments=checked.judgments, progress=progress).summary
