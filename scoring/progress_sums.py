"""A big campaign's progress counts (scoring/progress.py) kept as running sums, so that a
rebuild after a change counts what that change touched, not the whole campaign.

Every count of :class:`scoring.progress.CampaignProgress` but the median active time is a sum
over the campaign's topics. A topic's assignments and judgments add to its assessors' rows
(assigned, skipped, drafts, submitted, reopened, withdrawn, active time: everyone, model judges
too), to the people's assignment counts and judgment states, to the topics waiting for
adjudication (two or more of the people's counting judgments and no ``consensus`` curation),
and one topic to the histogram of how many of the people are assigned to a topic, whose lowest
and highest entries are the campaign's ``TopicRaters``. Each topic's contribution
(:class:`ProgressSums`) is stored (:class:`scoring.models.TopicProgress`) and the campaign's sum
of them beside the stored progress (report :data:`NAME`). A rebuild counts again only the topics
changed since the last one, the stale topics and those marked for their progress alone
(:class:`scoring.models.ProgressMark`: a draft begun, a reopening, active time added to a
counting judgment, a skip, an assignment), with queries filtered by their ids; it subtracts
their stored contributions and adds the new ones.

The median active time per assessor is no sum, but the multiset it is the median of is: each
assessor's times (:class:`Times`: how many of their counting judgments took each time) are
stored (:class:`scoring.models.ActiveTimes`), and a rebuild updates those of the assessors whose
counting judgments changed as it updates the sums, the changed topics' old rows out and new ones
in (:func:`_medians`: one query, over their rows), so the median holds exactly the judgments the
sums hold. Reading an assessor's counting judgments again instead cost 25 ms of a rebuild at
10,000 topics, and on a database of several such campaigns most of its CPU (benchmarks.load).

At 10,000 topics x 10 assessors on SQLite, a rebuild after one resubmission spends about 14 ms
on the progress (a count of the campaign took 330 ms); a
full count takes about 0.9 s.

Counted again in full (every topic, a batch of :data:`BATCH` topics per query, the medians from
the contributions): when nothing is stored, on a full rebuild (``everything``), when a change
asked for it (``ScoringState.progress_recount_at``: a member added or removed, a model judge's
flag, a top-up, an import of topics; :func:`recount_wanted`), when the people's figures leave
out other model judges than when the sums were made, when a topic was added or deleted unseen,
when more than :data:`SHARE` of the topics changed, and after a chunked first build (its chunks
clear the stale marks without counting). A campaign under ``CONCORD_LIVE_PROGRESS_LIMIT``
assignments stores nothing: its pages count now, and it is counted in full once it has that many.

Every figure is an integer counted by the rules scoring.progress counts by, so the stored
progress equals ``progress.count(campaign)`` exactly after every rebuild
(tests/scoring/test_progress_sums.py drives random changes and compares after each rebuild;
``manage.py recompute_reports --full --check`` compares a real database's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import ExpressionWrapper, IntegerField, Q
from django.utils import timezone

from annotate import judges
from annotate.models import Assignment, Campaign, Curation, Judgment, Membership, Topic
from concord import rawrows, typed
from scoring import progress, sums
from scoring.models import ActiveTimes, ProgressMark, Report, ScoringState, StaleTopic, TopicProgress
from scoring.partials import differences

__all__ = ["BATCH", "NAME", "SHARE", "ProgressSums", "Times", "Update", "check", "mark", "recount_wanted", "update"]

#: The stored report row (scoring.models.Report) of the campaign's sums, beside ``progress``.
NAME = "progress_sums"

#: More than this share of the campaign's topics changed: counted again in full (cheaper then).
SHARE = 0.5

#: Topics per query of a full count (bounds its memory and each query's parameters).
BATCH = 500

#: An assessor's row in :class:`ProgressSums`, place by place.
ASSESSOR_ROW = ("assigned", "skipped", "drafts", "submitted", "reopened", "withdrawn", "active_ms")
_ASSIGNED, _SKIPPED, _DRAFTS, _SUBMITTED, _REOPENED, _WITHDRAWN, _ACTIVE = range(len(ASSESSOR_ROW))

_S = Judgment.Status
#: The statuses as the rows give them (plain strings: a full count compares 100,000 of them).
_COUNTING = frozenset(str(status) for status in Judgment.COUNTING)
#: What the progress counts as a draft: a draft, or a withdrawn judgment.
_DRAFTED = frozenset((str(_S.DRAFT), str(_S.WITHDRAWN)))
_REOPENED_STATUS, _WITHDRAWN_STATUS = str(_S.REOPENED), str(_S.WITHDRAWN)


@dataclass(frozen=True)
class ProgressSums:
    """One topic's contribution to its campaign's progress counts, or the campaign's sum of them
    (scoring.sums.add: integers, lists added place by place, dicts key by key)."""

    topics: int = 0
    #: The people's assignments (model judges left out unless the campaign counts them), of
    #: those the judged (a counting judgment) and the drafted (a draft or withdrawn one only),
    #: and the topics waiting for adjudication: progress.AssignmentCounts.
    assigned: int = 0
    judged: int = 0
    drafts: int = 0
    to_adjudicate: int = 0
    #: The people's judgments per status: status -> [how many].
    states: dict[str, list[int]] = field(default_factory=dict)
    #: Topics per number of the people assigned: [topics with none, with one, ...].
    raters: list[int] = field(default_factory=list)
    #: Every assessor's row (:data:`ASSESSOR_ROW`), by user id: active_ms is that of the counting judgments.
    assessors: dict[str, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Times:
    """One assessor's active times as the sums hold them (:class:`scoring.models.ActiveTimes`):
    each time (ms, ascending) and how many of their counting judgments took it."""

    values: list[int] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)

    def median(self) -> int:
        """The median, rounded as the progress shows it (scoring.progress.median_of_counts)."""
        return round(progress.median_of_counts(list(zip(self.values, self.counts))))


@dataclass(frozen=True)
class _State:
    """What is stored of a campaign's sums (report :data:`NAME`)."""

    sums: ProgressSums
    #: The median active time (ms) of each assessor with counting judgments, by user id: those
    #: whose :class:`Times` are stored (an assessor without counting judgments has none).
    medians: dict[str, int]
    #: The user ids the people's counts left out (annotate.judges.left_out) when the sums were made.
    left_out: list[int]
    #: Every assessor with a median has their times stored (always True; required, so that sums
    #: stored before the times were kept are counted again in full once).
    times_kept: bool


# -- marks: what annotate's changes leave for the next rebuild (scoring.services) ----------


def mark(topic: Topic) -> None:
    """Mark ``topic``'s progress counts for the next rebuild (inside the transaction that changed
    them): one upsert, whatever the campaign's size (the rebuild that first stores a campaign's
    counts may be reading while the change commits; it leaves the mark for the next)."""
    rawrows.upsert(
        ProgressMark,
        {"campaign": topic.campaign_id, "topic": topic.pk, "marked_at": timezone.now()},
        unique="topic",
        update=("marked_at",),
    )


def recount_wanted(campaign_id: int) -> None:
    """Have the campaign's next rebuild count its progress again in full (inside the transaction
    of a change that moved counts of many topics, or of the campaign's assessors)."""
    ScoringState.objects.bulk_create(
        [ScoringState(campaign_id=campaign_id, progress_recount_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["campaign"],
        update_fields=["progress_recount_at"],
    )


# -- a rebuild's update ------------------------------------------------------------------


@dataclass
class Update:
    """What a rebuild stores of the campaign's progress (:meth:`store`, inside its transaction)."""

    campaign: Campaign
    #: The counts the pages read; None: a small campaign's, counted on every view (nothing stored).
    counted: progress.CampaignProgress | None
    state: _State | None
    #: The contributions to store, packed, by topic id.
    rows: dict[int, bytes]
    #: The assessors' times to store, by user id (empty: none now, their row deleted).
    times: dict[str, Times]
    #: The progress marks read (topic id -> marked_at), cleared if unchanged since.
    marks: dict[int, datetime]
    #: The full count asked for and read (ScoringState.progress_recount_at), cleared if unchanged.
    asked: datetime | None
    #: Counted in full (every topic's contribution, or none for a small campaign).
    full: bool

    def store(self, now) -> None:
        progress.store(self.campaign, self.counted, now)
        if self.state is None:
            Report.objects.filter(campaign=self.campaign, name=NAME).delete()
            TopicProgress.objects.filter(campaign=self.campaign).delete()
            ActiveTimes.objects.filter(campaign=self.campaign).delete()
        else:
            Report.objects.put(
                self.campaign, NAME, data=typed.dump(self.state), computed_at=now, judgments_seen=self.state.sums.judged
            )
            rows = [
                TopicProgress(campaign=self.campaign, topic_id=topic_id, data=data)
                for topic_id, data in self.rows.items()
            ]
            TopicProgress.objects.bulk_create(
                rows, batch_size=BATCH, update_conflicts=True, unique_fields=["topic"], update_fields=["data"]
            )
            self._store_times()
        _clear(self.marks)
        if self.asked is not None:
            ScoringState.objects.filter(campaign=self.campaign, progress_recount_at=self.asked).update(
                progress_recount_at=None
            )

    def _store_times(self) -> None:
        """The changed assessors' times (a full count: everyone's, and no row of anyone else)."""
        kept = [
            ActiveTimes(campaign=self.campaign, assessor_id=int(user), data=typed.pack(times))
            for user, times in sorted(self.times.items())
            if times.values
        ]
        ActiveTimes.objects.bulk_create(
            kept,
            batch_size=BATCH,
            update_conflicts=True,
            unique_fields=["campaign", "assessor"],
            update_fields=["data"],
        )
        gone = ActiveTimes.objects.filter(campaign=self.campaign)
        if self.full:
            gone.exclude(assessor_id__in=[one.assessor_id for one in kept]).delete()
        else:
            emptied = [int(user) for user, times in self.times.items() if not times.values]
            if emptied:
                gone.filter(assessor_id__in=emptied).delete()


def update(
    campaign: Campaign, stale: Iterable[int], *, everything: bool = False, topic_count: int | None = None
) -> Update:
    """The campaign's progress after a rebuild whose stale topics are ``stale`` (read before any
    judgment it reads): the stored sums updated by those topics and the progress-marked ones,
    or counted in full (module docstring). Reads only; :meth:`Update.store` writes.
    ``topic_count``: the campaign's topics as the rebuild counted them (else counted here)."""
    asked = ScoringState.objects.filter(campaign=campaign).values_list("progress_recount_at", flat=True).first()
    marks = dict(ProgressMark.objects.filter(campaign=campaign).values_list("topic_id", "marked_at"))
    left_out = _left_out(campaign)
    if not everything and asked is None:
        state = _stored_state(campaign)
        if state is not None and state.left_out == sorted(left_out):
            found = _update(campaign, state, set(stale) | set(marks), left_out, topic_count)
            if found is not None:
                return Update(campaign, *found, marks=marks, asked=asked, full=False)
    return Update(campaign, *_count_all(campaign, left_out), marks=marks, asked=asked, full=True)


def _left_out(campaign: Campaign) -> set[int]:
    found = judges.left_out(campaign)
    return set(found) if isinstance(found, list) else set(found.values_list("user_id", flat=True))


def _stored_state(campaign: Campaign) -> _State | None:
    data = Report.objects.filter(campaign=campaign, name=NAME).values_list("data", flat=True).first()
    if data is None:
        return None
    try:
        return typed.load(_State, data)
    except typed.Outdated:
        return None  # stored by an older version: counted again in full


def _update(campaign: Campaign, state: _State, changed: set[int], left_out: set[int], topic_count: int | None):
    """(progress, state, rows) from ``state`` and the ``changed`` topics' new contributions; None
    when it cannot be (the caller counts in full)."""
    if topic_count is None:
        topic_count = Topic.objects.filter(campaign=campaign).count()
    if len(changed) > SHARE * max(topic_count, 1):
        return None
    existing = set(Topic.objects.filter(campaign=campaign, pk__in=changed).values_list("pk", flat=True))
    stored = dict(TopicProgress.objects.filter(campaign=campaign, topic_id__in=changed).values_list("topic_id", "data"))
    # every topic the sums hold has its row, and every other topic changed (a new one)
    held = TopicProgress.objects.filter(campaign=campaign).count()
    if held != state.sums.topics or held - len(stored) + len(existing) != topic_count:
        return None
    try:
        old = {topic_id: typed.unpack(bytes(data), ProgressSums) for topic_id, data in stored.items()}
    except typed.Outdated:
        return None
    new = _contributions(sorted(existing), left_out)
    summed = sums.add(sums.total(state.sums, old.values(), sign=-1), sums.total(ProgressSums(), new.values()))
    movers = _movers(old, new)
    times = _medians(campaign, state, movers, old, new) if movers else {}
    if times is None:
        return None
    medians = {user: median for user, median in state.medians.items() if user not in movers}
    medians.update((user, one.median()) for user, one in times.items() if one.values)
    found = _State(summed, dict(sorted(medians.items())), sorted(left_out), times_kept=True)
    built = _big(campaign, found)
    if built is None:  # under the limit now: nothing stored
        return None, None, {}, {}
    return built, found, {topic_id: typed.pack(one) for topic_id, one in new.items()}, times


def _count_all(campaign: Campaign, left_out: set[int]):
    """(progress, state, rows) counted from every topic; (None, None, {}) for a small campaign.
    The rows are those that differ from the stored ones (a count after a member was added
    rewrites the topics it moved, not every topic)."""
    if Assignment.objects.filter(topic__campaign=campaign).count() < settings.CONCORD_LIVE_PROGRESS_LIMIT:
        return None, None, {}, {}
    topic_ids = list(Topic.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    total = _Total()
    rows: dict[int, bytes] = {}
    for start in range(0, len(topic_ids), BATCH):
        for topic_id, one in _contributions(topic_ids[start : start + BATCH], left_out).items():
            total.add(one)
            rows[topic_id] = typed.pack(one)
    stored = TopicProgress.objects.filter(campaign=campaign).values_list("topic_id", "data")
    for topic_id, data in stored.iterator(chunk_size=BATCH):
        if rows.get(topic_id) == bytes(data):
            del rows[topic_id]
    times = total.times_kept()
    found = _State(total.sums(), {user: one.median() for user, one in times.items()}, sorted(left_out), times_kept=True)
    built = _big(campaign, found)
    return (built, found, rows, times) if built is not None else (None, None, {}, {})


class _Total:
    """The sum of many topics' contributions, added in place (a full count adds 10,000 of them:
    scoring.sums.add's copies and checks cost more than counting them), and each assessor's
    counting judgments' active times, for their medians."""

    def __init__(self):
        self.counts = [0] * 5  # topics, assigned, judged, drafts, to_adjudicate
        self.states: Counter[str] = Counter()
        self.raters: list[int] = []
        self.assessors: dict[str, list[int]] = {}
        self.times: dict[str, Counter[int]] = {}

    def add(self, one: ProgressSums) -> None:
        counts = self.counts
        counts[:] = [
            a + b for a, b in zip(counts, (one.topics, one.assigned, one.judged, one.drafts, one.to_adjudicate))
        ]
        for status, (n,) in one.states.items():
            self.states[status] += n
        if len(self.raters) < len(one.raters):
            self.raters.extend([0] * (len(one.raters) - len(self.raters)))
        for at, topics in enumerate(one.raters):
            if topics:
                self.raters[at] += topics
        assessors, times = self.assessors, self.times
        for user, row in one.assessors.items():
            mine = assessors.get(user)
            assessors[user] = list(row) if mine is None else [a + b for a, b in zip(mine, row)]
            if row[_SUBMITTED]:
                found = times.get(user)
                if found is None:
                    found = times[user] = Counter()
                found[row[_ACTIVE]] += 1

    def sums(self) -> ProgressSums:
        return ProgressSums(
            *self.counts,
            states={status: [n] for status, n in sorted(self.states.items()) if n},
            raters=self.raters,
            assessors=dict(sorted(self.assessors.items())),
        )

    def times_kept(self) -> dict[str, Times]:
        return {
            user: Times([value for value, _ in counted], [n for _, n in counted])
            for user, found in sorted(self.times.items())
            for counted in [sorted(found.items())]
        }


def _contributions(topic_ids: list[int], left_out: set[int]) -> dict[int, ProgressSums]:
    """Each of ``topic_ids``' contribution (existing topics: each counts one), read with three
    queries per :data:`BATCH` filtered by their ids."""
    found: dict[int, ProgressSums] = {}
    # an integer, not a boolean: no conversion of every row on SQLite
    skipped = ExpressionWrapper(Q(skipped_at__isnull=False), output_field=IntegerField())
    for start in range(0, len(topic_ids), BATCH):
        ids = topic_ids[start : start + BATCH]
        assigned: dict[int, list[tuple[int, int]]] = {topic_id: [] for topic_id in ids}
        for topic_id, user_id, was_skipped in (
            Assignment.objects.filter(topic_id__in=ids)
            .order_by()
            .annotate(was_skipped=skipped)
            .values_list("topic_id", "assessor_id", "was_skipped")
        ):
            assigned[topic_id].append((user_id, int(was_skipped)))
        judged: dict[int, dict[int, tuple[str, int]]] = {topic_id: {} for topic_id in ids}
        for topic_id, user_id, status, active in (
            Judgment.objects.filter(topic_id__in=ids)
            .order_by()
            .values_list("topic_id", "assessor_id", "status", "active_ms")
        ):
            judged[topic_id][user_id] = (status, active)
        gold = set(
            Curation.objects.filter(topic_id__in=ids, name=progress.GOLD).order_by().values_list("topic_id", flat=True)
        )
        for topic_id in ids:
            found[topic_id] = _contribution(assigned[topic_id], judged[topic_id], topic_id in gold, left_out)
    return found


def _contribution(
    assigned: list[tuple[int, int]], judged: dict[int, tuple[str, int]], gold: bool, left_out: set[int]
) -> ProgressSums:
    """One topic's contribution from its assignments (assessor, skipped), its judgments
    (assessor -> (status, active_ms)) and whether it has its gold: scoring.progress's rules,
    row by row (assessor_progress, assignment_counts, state_totals, topic_raters). Its dicts
    in key order, so that a contribution packs to the same bytes however its rows were read."""
    rows: dict[int, list[int]] = {}
    people = judged_n = drafts = 0
    raters = set()
    for user_id, skipped in assigned:
        row = rows.get(user_id)
        if row is None:
            row = rows[user_id] = [0, 0, 0, 0, 0, 0, 0]
        row[_ASSIGNED] += 1
        row[_SKIPPED] += skipped
        if user_id in left_out:
            continue
        people += 1
        raters.add(user_id)
        own = judged.get(user_id)
        if own is not None:
            if own[0] in _COUNTING:
                judged_n += 1
            elif own[0] in _DRAFTED:
                drafts += 1
    states: dict[str, int] = {}
    counting = 0
    for user_id, (status, active) in judged.items():
        row = rows.get(user_id)
        if row is None:
            row = rows[user_id] = [0, 0, 0, 0, 0, 0, 0]
        if status in _COUNTING:
            row[_SUBMITTED] += 1
            row[_ACTIVE] += active
            if status == _REOPENED_STATUS:
                row[_REOPENED] += 1
        elif status in _DRAFTED:
            row[_DRAFTS] += 1
            if status == _WITHDRAWN_STATUS:
                row[_WITHDRAWN] += 1
        if user_id not in left_out:
            states[status] = states.get(status, 0) + 1
            counting += status in _COUNTING
    return ProgressSums(
        topics=1,
        assigned=people,
        judged=judged_n,
        drafts=drafts,
        to_adjudicate=int(counting >= 2 and not gold),
        states={status: [states[status]] for status in sorted(states)},
        raters=[0] * len(raters) + [1],
        assessors={str(user_id): rows[user_id] for user_id in sorted(rows)},
    )


def _counting(row: list[int] | None) -> tuple[int, int]:
    return (row[_SUBMITTED], row[_ACTIVE]) if row is not None else (0, 0)


def _movers(old: dict[int, ProgressSums], new: dict[int, ProgressSums]) -> set[str]:
    """The assessors whose counting judgment (or its active time) differs in one of the topics."""
    movers = set()
    empty = ProgressSums()
    for topic_id in old.keys() | new.keys():
        before, after = old.get(topic_id, empty).assessors, new.get(topic_id, empty).assessors
        for user in before.keys() | after.keys():
            if _counting(before.get(user)) != _counting(after.get(user)):
                movers.add(user)
    return movers


def _medians(
    campaign: Campaign, state: _State, movers: set[str], old: dict[int, ProgressSums], new: dict[int, ProgressSums]
) -> dict[str, Times] | None:
    """The times of each of ``movers`` (assessors whose counting judgment changed in one of the
    topics) as the updated sums hold them: their stored :class:`Times`, the changed topics' old
    contributions out and their new ones in (one query, over the movers' rows); None when the
    stored times do not hold what the sums do (a row missing, or a count below zero): the
    caller counts in full. A judgment changed while the rebuild reads is in neither the sums
    nor the times until the rebuild that reads its topic."""
    stored = dict(
        ActiveTimes.objects.filter(campaign=campaign, assessor_id__in=[int(user) for user in movers]).values_list(
            "assessor_id", "data"
        )
    )
    if {str(user_id) for user_id in stored} != movers & state.medians.keys():
        return None
    found: dict[str, Times] = {}
    for user in sorted(movers):
        data = stored.get(int(user))
        try:
            held = typed.unpack(bytes(data), Times) if data is not None else Times()
        except typed.Outdated:
            return None
        counted = Counter(dict(zip(held.values, held.counts)))
        for topic_id in old.keys() | new.keys():
            for contribution, sign in ((old.get(topic_id), -1), (new.get(topic_id), 1)):
                row = contribution.assessors.get(user) if contribution is not None else None
                if row is not None and row[_SUBMITTED]:
                    counted[row[_ACTIVE]] += sign
        if any(n < 0 for n in counted.values()):
            return None
        values = sorted(value for value, n in counted.items() if n)
        found[user] = Times(values, [counted[value] for value in values])
    return found


def _big(campaign: Campaign, state: _State) -> progress.CampaignProgress | None:
    """The campaign's progress from ``state`` if it has ``CONCORD_LIVE_PROGRESS_LIMIT`` assignments
    or more (everyone's: progress.count_if_big), else None (counted on every view)."""
    summed = state.sums
    if sum(row[_ASSIGNED] for row in summed.assessors.values()) < settings.CONCORD_LIVE_PROGRESS_LIMIT:
        return None
    rows = {int(user): row for user, row in summed.assessors.items()}
    # the memberships in one query: the assessors, every member's name, whether any was imported
    members, names, imported = set(), {}, False
    for user_id, role, was_imported, username in Membership.objects.filter(campaign=campaign).values_list(
        "user_id", "role", "imported", "user__username"
    ):
        names[user_id] = username
        imported = imported or was_imported
        if role == Membership.Role.ASSESSOR:
            members.add(user_id)
    ids = members | {user_id for user_id, row in rows.items() if row[_ASSIGNED]}
    if ids - names.keys():  # assigned, not a member (any longer): their names read apart
        names.update(get_user_model().objects.filter(pk__in=ids - names.keys()).values_list("pk", "username"))
    none = [0] * len(ASSESSOR_ROW)
    assessors = [
        progress.AssessorProgress(
            names[user_id],
            rows.get(user_id, none)[_ASSIGNED],
            rows.get(user_id, none)[_DRAFTS],
            rows.get(user_id, none)[_SUBMITTED],
            rows.get(user_id, none)[_REOPENED],
            rows.get(user_id, none)[_WITHDRAWN],
            skipped=rows.get(user_id, none)[_SKIPPED],
            active_total_ms=rows.get(user_id, none)[_ACTIVE],
            active_median_ms=state.medians.get(str(user_id)),
        )
        for user_id in sorted(ids, key=names.__getitem__)
    ]
    counts = progress.AssignmentCounts(summed.assigned, summed.judged, summed.drafts, summed.to_adjudicate)
    states = {status: n[0] for status, n in sorted(summed.states.items()) if n and n[0]}
    states["new"] = counts.assigned - counts.judged - counts.drafts
    return progress.CampaignProgress(counts, states, assessors, _raters(summed.raters) if imported else None)


def _raters(histogram: list[int]) -> progress.TopicRaters:
    """progress.topic_raters from the histogram (topics per number of the people assigned)."""
    present = [n for n, topics in enumerate(histogram) if topics]
    if not present:
        return progress.TopicRaters(0, 0)
    return progress.TopicRaters(0 if histogram[0] else present[0], present[-1])


def _clear(marks: dict[int, datetime]) -> None:
    """Delete the progress marks read as ``marks`` that are unchanged since (a topic marked again
    meanwhile keeps its mark)."""
    items = list(marks.items())
    for start in range(0, len(items), BATCH):
        unchanged = Q()
        for topic_id, marked_at in items[start : start + BATCH]:
            unchanged |= Q(topic_id=topic_id, marked_at=marked_at)
        ProgressMark.objects.filter(unchanged).delete()


# -- the check (manage.py recompute_reports --full --check) ------------------------------


def check(campaign: Campaign) -> list[str]:
    """How the campaign's stored progress and sums differ from a count now (exactly); nothing is
    written. Left out while a change waits for the worker (a stale topic, a progress mark, a full
    count asked for)."""
    waiting = (
        StaleTopic.objects.filter(campaign=campaign).exists()
        or ProgressMark.objects.filter(campaign=campaign).exists()
        or ScoringState.objects.filter(campaign=campaign, progress_recount_at__isnull=False).exists()
    )
    if waiting:
        return []
    stored = progress.stored_progress([campaign.pk]).get(campaign.pk)
    state = _stored_state(campaign)
    _, fresh_state, _, fresh_times = _count_all(campaign, _left_out(campaign))
    if fresh_state is None:
        return ["progress: stored for a campaign under CONCORD_LIVE_PROGRESS_LIMIT"] if stored or state else []
    if stored is None or state is None:
        return ["progress: none stored"]
    found = differences(typed.dump(stored), typed.dump(progress.count(campaign)), tolerance=0.0, path="progress")
    fresh = typed.dump(fresh_state)
    kept = typed.dump(state)
    # the histogram's trailing zeros are where it was: not a count
    for one in (fresh, kept):
        while one["sums"]["raters"] and not one["sums"]["raters"][-1]:
            one["sums"]["raters"].pop()
    kept_times = {
        str(user_id): typed.dump(typed.unpack(bytes(data), Times))
        for user_id, data in ActiveTimes.objects.filter(campaign=campaign).values_list("assessor_id", "data")
    }
    return (
        found
        + differences(kept, fresh, tolerance=0.0, path="progress sums")
        + differences(kept_times, typed.dump(fresh_times), tolerance=0.0, path="active times")
    )
