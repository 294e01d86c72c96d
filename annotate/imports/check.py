"""Check: everything an import would write, checked and prepared as rows, reading only.

Topics (:func:`check_topics`), runs (:func:`check_runs`), judgments
(:func:`check_judgments`), a crowd table's labels (:func:`check_crowd_labels`,
its workers: :func:`clean_workers`) and a whole crowd file
(:func:`check_crowd_file`) or judgment file (:func:`check_judgment_file`):
each returns its checked parts and counts, and writes nothing, so the import
wizard's preview is made of what these return and annotate.imports.write
writes exactly that. Bad input is ``InvalidInput`` naming the field and, for a
file, the line.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils import timezone

from annotate import controls
from annotate.imports import problems as refused
from annotate.imports import rows
from annotate.imports.problems import Problems
from annotate.imports.read import CrowdLabel, JudgmentFile
from annotate.models import (
    Assignment,
    Campaign,
    Judgment,
    Membership,
    Run,
    Topic,
)
from annotate.services.members import require_username, shown_name
from concord.errors import InvalidInput
from kinds.base import id_key, require_id, require_list, require_object, require_text
from kinds.registry import get_kind

User = get_user_model()


def clean_topics(campaign: Campaign, topics: Any) -> list[dict[str, Any]]:
    """Validate a list of topics for ``campaign``; nothing is written."""
    kind = get_kind(campaign.kind).data
    require_list(topics, "topics", min_length=1)
    # Topic ids compare by their NFC form (kinds.base.id_key).
    taken = {id_key(external_id): external_id for external_id in campaign.topics.values_list("external_id", flat=True)}
    cleaned = []
    for index, topic in enumerate(topics):
        path = f"topics[{index}]"
        require_object(
            topic,
            path,
            allowed={"external_id", "title", "data", "controls", "attention_checks"},
            required={"external_id", "data"},
        )
        external_id = require_id(topic["external_id"], f"{path}.external_id")
        other = taken.get(id_key(external_id))
        if other is not None:
            same = "" if other == external_id else f" (as {other!r}: the same after Unicode normalisation, NFC)"
            raise InvalidInput(f"{path}.external_id", f"a topic {external_id!r} already exists in this campaign{same}")
        taken[id_key(external_id)] = external_id
        title = require_text(topic.get("title", ""), f"{path}.title", allow_empty=True, max_length=500)
        data = kind.clean_topic_data(topic["data"], field=f"{path}.data")
        # Known answers (annotate/controls.py): stored as Control rows, never in the topic's data.
        known = controls.clean_topic_controls(
            kind, data, campaign.params, topic.get("controls"), topic.get("attention_checks"), field=path
        )
        cleaned.append({"external_id": external_id, "title": title or external_id, "data": data, "controls": known})
    return cleaned


CHANGED_MEANWHILE = "changed while the file was being checked (another import?); nothing imported: send it again"


@dataclass(frozen=True)
class CheckedTopics:
    """Topics checked for a campaign, ready to write: ``(external_id, title, data)``
    with ``data`` as the database takes it, and the cleaned data by id (to check
    runs and judgments of the same import against)."""

    campaign: Campaign
    rows: list[tuple[str, str, Any]]
    data: dict[str, Any]
    #: The known answers of the topics that have some (external id -> ``(item, answer,
    #: attention)``, annotate/controls.py), written as Control rows with them.
    controls: dict[str, list[tuple[str, Any, bool]]] = field(default_factory=dict)

    @property
    def control_count(self) -> int:
        return sum(len(found) for found in self.controls.values())


def check_topics(campaign: Campaign, topics: Any) -> CheckedTopics:
    """:func:`clean_topics` and the rows to write; nothing is written."""
    cleaned = clean_topics(campaign, topics)
    table = topic_table(campaign)
    return CheckedTopics(
        campaign,
        [(t["external_id"], t["title"], table.prepare("data", t["data"])) for t in cleaned],
        {t["external_id"]: t["data"] for t in cleaned},
        {t["external_id"]: t["controls"] for t in cleaned if t["controls"]},
    )


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
    table = run_table(campaign)
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
                    where, f"worker {shown_name(name)} differs only in case from an existing account; rename it"
                )
            new.append(name)
            continue
        membership = memberships.get(user.pk)
        if membership is not None and membership.imported and not user.has_usable_password():
            existing[name] = user  # created by an earlier import of this campaign
        elif not map_members:
            raise InvalidInput(
                where,
                f"worker {shown_name(name)} is an existing account; pass map_members=true (--map-members) "
                "to attribute these judgments to members of this campaign",
            )
        elif membership is None or membership.role != Membership.Role.ASSESSOR:
            raise InvalidInput(
                where,
                f"worker {shown_name(name)} is an existing account that is not an assessor of this campaign; "
                "only assessors of this campaign can be mapped",
            )
        else:
            existing[name] = user
    return WorkerAccounts(new=new, existing=existing)


@dataclass(frozen=True)
class Existing:
    """A judgment the campaign already has of a (topic, assessor) a file's row judges too: the
    row is not written as a new judgment. ``kept`` says why it may not be replaced ("": it may);
    ``payload`` is the file's (cleaned), kept only when it is to replace the judgment."""

    topic: str
    worker: str
    judgment: int
    version: int
    status: str
    kept: str = ""
    payload: Any = None


@dataclass(frozen=True)
class CheckedJudgments:
    """Submitted judgments checked for a campaign, ready to write: the accounts to
    write under and ``(topic external id, worker, payload)`` rows, the payload as
    the database takes it."""

    campaign: Campaign
    accounts: WorkerAccounts
    rows: list[tuple[str, str, Any]]
    #: Per row, the items of the topic the worker judged when not all of them (their
    #: assignment's ``items``: a rating table's empty cells), else None; None: every row all.
    scopes: list[list[str] | None] | None = None
    #: The file's judgments the campaign already has (not in ``rows``); those with a payload
    #: replace the campaign's (``replacing``), the others are left as they are.
    existing: list[Existing] = field(default_factory=list)

    @property
    def replacing(self) -> list[Existing]:
        return [e for e in self.existing if e.payload is not None]


#: (topic, assessor) pairs looked up per query of :func:`existing_judgments`: each is a term of
#: the query's OR (SQLite parses a chain of them as a tree as deep as the chain: at most 1,000).
EXISTING_PER_QUERY = 250


@dataclass(frozen=True)
class Found:
    """An existing judgment as :func:`existing_judgments` reads it, with its assignment."""

    judgment: int
    version: int
    status: str
    assigned: bool
    items: list[str] | None


def existing_judgments(
    campaign: Campaign, accounts: WorkerAccounts, pairs: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], Found]:
    """The judgments ``campaign`` already has of the (topic external id, worker) ``pairs`` an
    import would write, by pair. Only existing accounts can have one (an earlier import's
    workers, mapped members); they are read ``EXISTING_PER_QUERY`` pairs a query, each pair an
    exact (topic, assessor) lookup by the unique index, with its assignment in the same query,
    after one query for the campaign's topic ids: never a query per row. The SQL is written
    here: the ORM took 0.1 ms a pair to build such a query (5 s of a preview of 50,000)."""
    users = {name: user.pk for name, user in accounts.existing.items()}
    wanted = [(topic, worker) for topic, worker in pairs if worker in users]
    if not wanted:
        return {}
    topic_ids = dict(campaign.topics.values_list("external_id", "pk"))
    keys = {(topic_ids[t], users[w]): (t, w) for t, w in wanted if t in topic_ids}
    quote = connection.ops.quote_name
    judgment, assignment = quote(Judgment._meta.db_table), quote(Assignment._meta.db_table)
    items = Assignment._meta.get_field("items")
    found: dict[tuple[str, str], Found] = {}
    pending = sorted(keys)
    with connection.cursor() as cursor:
        for first in range(0, len(pending), EXISTING_PER_QUERY):
            chunk = pending[first : first + EXISTING_PER_QUERY]
            cursor.execute(
                "SELECT j.topic_id, j.assessor_id, j.id, j.version, j.status, a.id, a.items "
                f"FROM {judgment} j LEFT JOIN {assignment} a "
                "ON a.topic_id = j.topic_id AND a.assessor_id = j.assessor_id "
                f"WHERE {' OR '.join(['(j.topic_id = %s AND j.assessor_id = %s)'] * len(chunk))}",
                [value for pair in chunk for value in pair],
            )
            for topic, assessor, pk, version, status, assigned, scope in cursor.fetchall():
                scope = items.from_db_value(scope, None, connection) if scope is not None else None
                found[keys[(topic, assessor)]] = Found(pk, version, status, assigned is not None, scope)
    return found


#: Why an existing judgment is not replaced, by its status.
IN_PROGRESS = {
    Judgment.Status.DRAFT: "a draft its assessor is writing: replacing it would take their work in progress",
    Judgment.Status.REOPENED: "reopened by its assessor, who is changing it: replacing it would take their work",
    Judgment.Status.WITHDRAWN: "withdrawn by its assessor: replacing it would make it count again",
}


def clash(
    problems: Problems | None,
    found: Found,
    topic: str,
    worker: str,
    scope: list[str] | None,
    payload: Any,
) -> Existing:
    """A row of the file meeting a judgment the campaign has: refused (``problems`` None: the
    import is all or nothing), else gathered with whether the file's may replace it (a submitted
    judgment, assigned the same items: through annotate.services.judgments, a new version)."""
    if problems is None:
        raise InvalidInput("file", f"{worker!r} already has a judgment of topic {topic!r}; nothing imported")
    kept = IN_PROGRESS.get(found.status, "")
    if not kept and not found.assigned:
        kept = "its assessor is no longer assigned the topic"
    elif not kept and found.items != scope:
        kept = "its assessor was assigned other items of the topic than those the file rates"
    problems.add(
        refused.EXISTING,
        f"{worker}'s judgment of topic {topic}",
        f"{found.status}, version {found.version}" + (f"; only skipped: {kept}" if kept else ""),
    )
    keep = problems.replace and not kept
    return Existing(topic, worker, found.judgment, found.version, found.status, kept, payload if keep else None)


def _topic_data(campaign: Campaign, topics: CheckedTopics | None) -> dict[str, Any]:
    """Topic data by external id: the campaign's, and those of the same import."""
    return {**dict(campaign.topics.values_list("external_id", "data")), **(topics.data if topics else {})}


def check_crowd_labels(
    *,
    campaign: Campaign,
    labels: Sequence[CrowdLabel],
    map_members: bool = False,
    topics: CheckedTopics | None = None,
    problems: Problems | None = None,
) -> CheckedJudgments:
    """Check judgments given as (worker, item, label) rows; nothing is written.

    Workers become imported assessors of the campaign (accounts without a
    usable password that cannot log in; see :func:`clean_workers` for the
    names allowed), each (worker, topic) becomes one submitted judgment with
    an assignment; the kind turns ``{candidate: label}`` into its payload and
    validates it as a complete submission. With ``problems``, a row of an
    unknown topic, a label given twice, a judgment the kind refuses and one
    the campaign already has are gathered there and left out.
    """
    if not labels and not problems:
        raise InvalidInput("file", "no rows: nothing to import")
    known = _topic_data(campaign, topics)
    grouped: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    lines: dict[tuple[str, str], int] = {}
    workers: Workers = {}
    for row in labels:
        if row.topic not in known:
            refused.refuse(problems, refused.TOPIC, f"line {row.line}: topic", f"unknown topic {row.topic!r}")
            continue
        answers = grouped[(row.worker, row.topic)]
        if row.candidate in answers:
            refused.refuse(
                problems, refused.DUPLICATE, f"line {row.line}", f"{row.worker!r} labelled {row.candidate!r} twice"
            )
            continue
        answers[row.candidate] = row.label
        lines[(row.worker, row.topic)] = lines.get((row.worker, row.topic), 0) + 1
        workers.setdefault(row.worker, f"line {row.line}")
    accounts = clean_workers(campaign, workers, map_members=map_members)
    found = existing_judgments(campaign, accounts, ((topic, worker) for worker, topic in grouped))
    kind = get_kind(campaign.kind).data
    prepare = judgment_table().prepare
    checked, existing = [], []
    for (worker, topic_id), answers in grouped.items():
        try:
            payload = kind.payload_from_labels(answers)
            payload = kind.clean_judgment(payload, known[topic_id], complete=True, params=campaign.params)
        except InvalidInput as error:
            refused.refuse(
                problems,
                refused.JUDGMENT,
                f"worker {worker!r}, topic {topic_id!r}: {error.field}",
                error.message,
                rows=lines[(worker, topic_id)],
            )
            continue
        there = found.get((topic_id, worker))
        if there is not None:
            existing.append(clash(problems, there, topic_id, worker, None, payload))
            continue
        checked.append((topic_id, worker, prepare("payload", payload)))
    return CheckedJudgments(campaign, used_accounts(accounts, checked, existing), checked, existing=existing)


def used_accounts(accounts: WorkerAccounts, checked: list, existing: list[Existing]) -> WorkerAccounts:
    """The accounts of the judgments an import writes or replaces: a worker whose every row was
    left out gets no account."""
    used = {worker for _, worker, _ in checked} | {e.worker for e in existing if e.payload is not None}
    if len(used) == len(accounts.new) + len(accounts.existing):
        return accounts
    return WorkerAccounts(
        new=[name for name in accounts.new if name in used],
        existing={name: user for name, user in accounts.existing.items() if name in used},
    )


def check_judgments(
    *,
    campaign: Campaign,
    entries: Any,
    map_members: bool = False,
    topics: CheckedTopics | None = None,
    problems: Problems | None = None,
    sources: Sequence[str] = (),
) -> CheckedJudgments:
    """Check submitted judgments ``[{"assessor", "topic", "payload"}]`` of any kind
    (of the campaign's topics and those of the same import); nothing is written. With
    ``problems``, an entry of an unknown topic, a second one of an assessor and topic, one
    whose payload the kind refuses and one the campaign already has are gathered there
    (named where ``sources`` says the entry is) and left out."""
    require_list(entries, "judgments", min_length=1)
    known = _topic_data(campaign, topics)
    kind = get_kind(campaign.kind).data
    prepare = judgment_table().prepare
    seen: set[tuple[str, str]] = set()
    kept: list[tuple[int, str, str]] = []
    workers: Workers = {}
    for index, entry in enumerate(entries):
        path = f"judgments[{index}]"
        require_object(entry, path, allowed={"assessor", "topic", "payload"}, required={"assessor", "topic", "payload"})
        assessor = require_id(entry["assessor"], f"{path}.assessor")
        topic = require_id(entry["topic"], f"{path}.topic")
        if topic not in known:
            refused.refuse(problems, refused.TOPIC, _source(sources, index, "topic"), f"unknown topic {topic!r}")
            continue
        if (assessor, topic) in seen:
            refused.refuse(
                problems,
                refused.DUPLICATE,
                _source(sources, index),
                f"a second judgment by {assessor!r} of topic {topic!r}",
            )
            continue
        seen.add((assessor, topic))
        workers.setdefault(assessor, f"{path}.assessor")
        kept.append((index, topic, assessor))
    accounts = clean_workers(campaign, workers, map_members=map_members)
    found = existing_judgments(campaign, accounts, ((topic, assessor) for _, topic, assessor in kept))
    checked, existing = [], []
    for index, topic, assessor in kept:
        try:
            payload = kind.clean_judgment(
                entries[index]["payload"], known[topic], complete=True, params=campaign.params
            )
        except InvalidInput as error:
            refused.refuse(problems, refused.JUDGMENT, _source(sources, index, error.field), error.message)
            continue
        there = found.get((topic, assessor))
        if there is not None:
            existing.append(clash(problems, there, topic, assessor, None, payload))
            continue
        checked.append((topic, assessor, prepare("payload", payload)))
    return CheckedJudgments(campaign, used_accounts(accounts, checked, existing), checked, existing=existing)


def _source(sources: Sequence[str], index: int, rest: str = "") -> str:
    """Where the judgment ``index`` is: ``judgments[3].topic``, or in the imported file
    (``sources[3]``: ``alice's annotations: topic``)."""
    if index < len(sources):
        return f"{sources[index]}{': ' + rest if rest else ''}"
    return f"judgments[{index}]{'.' + rest if rest else ''}"


@dataclass(frozen=True)
class CheckedImport:
    """The checked parts of one import, ready for :func:`write_checked` (or to preview)."""

    topics: CheckedTopics | None
    runs: CheckedRuns | None
    judgments: CheckedJudgments | None
    #: The campaign's params before and after (a rating table's scale), checked; None: unchanged.
    params: ParamsChange | None = None


@dataclass(frozen=True)
class ParamsChange:
    """An import's change of its campaign's params (a rating table's scale): written in
    the import's last transaction if the params are still ``before`` and the campaign has
    no judgments but the import's (those checked under ``before`` would not fit ``after``)."""

    before: dict[str, Any]
    after: dict[str, Any]


def check_crowd_file(
    *,
    campaign: Campaign,
    topics: list[dict[str, Any]],
    labels: Sequence[CrowdLabel],
    reference: dict[str, dict[str, Any]],
    judgments: Sequence[dict[str, Any]] = (),
    sources: Sequence[str] = (),
    map_members: bool = False,
    problems: Problems | None = None,
) -> CheckedImport:
    """What :func:`import_crowd_file` writes, checked; nothing is written. The
    workers are checked (:func:`clean_workers`) before anything else; ``problems``
    gathers the rows refused (:func:`check_crowd_labels`, :func:`check_judgments`)."""
    if not labels and not judgments and not problems:
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
                campaign=campaign,
                entries=list(judgments),
                map_members=map_members,
                topics=checked_topics,
                problems=problems,
                sources=sources,
            )
        except InvalidInput as error:
            raise _located_in(error, sources) from None
    else:
        checked = check_crowd_labels(
            campaign=campaign, labels=labels, map_members=map_members, topics=checked_topics, problems=problems
        )
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


def topic_table(campaign: Campaign) -> rows.Table:
    return rows.table(Topic, ("external_id", "title", "data", "position"), campaign_id=campaign.pk)


def run_table(campaign: Campaign) -> rows.Table:
    return rows.table(Run, ("name", "data"), campaign_id=campaign.pk)


def judgment_table() -> rows.Table:
    """Imported judgments: submitted at version 1, the payload counting as submitted."""
    now = timezone.now()
    return rows.table(
        Judgment,
        ("topic_id", "assessor_id", "payload"),
        status=Judgment.Status.SUBMITTED,
        version=1,
        submitted_version=1,
        submitted_at=now,
    )


def check_judgment_file(
    campaign: Campaign, parsed: JudgmentFile, *, map_members: bool = False, problems: Problems | None = None
) -> CheckedImport:
    """Everything :func:`import_judgment_file` would write, checked; nothing is written
    (``problems``: the rows refused, gathered and left out)."""
    if parsed.entries is not None:
        return CheckedImport(
            None,
            None,
            check_judgments(campaign=campaign, entries=parsed.entries, map_members=map_members, problems=problems),
        )
    crowd = parsed.crowd
    assert crowd is not None
    return check_crowd_file(
        campaign=campaign,
        topics=crowd.topics,
        labels=crowd.labels,
        reference=crowd.reference,
        judgments=crowd.judgments,
        sources=crowd.sources,
        map_members=map_members,
        problems=problems,
    )
