"""The work of scoring: recomputing stored reports and running jobs (analyses,
their chunks, the combine step). Called by the background tasks
(scoring/tasks.py); it never queues a task itself, so tasks -> jobs is one
way (what to queue next is passed in).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Greatest
from django.utils import timezone

from annotate.models import Campaign, ImportFence, Topic
from concord import busy, typed
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import ParamsSchema
from concord.progress import Progress
from kinds.registry import get_kind
from kinds.spec import Analysis, Disagreement
from scoring import fields, history, progress_sums, sums
from scoring import progress as campaign_progress
from scoring.models import REASON_LENGTH, Job, JobChunk, Report, ScoringState, StaleTopic, TopicPartial
from scoring.partials import MergeInput, differences, merge_input
from scoring.selectors import campaign_report, report_input, topic_rows

log = logging.getLogger(__name__)

#: A job in one of these states may still run (or be cancelled).
UNFINISHED_JOB = (Job.Status.QUEUED, Job.Status.RUNNING)


def recompute_reports(campaign_id: int, *, everything: bool = False, progress: Progress | None = None) -> int:
    """Recompute the reports of the stale topics (or all) and of the campaign.

    A kind with partial results (``Reports.incremental``, scoring/partials.py)
    reads only the stale topics' judgments: their reports and partials are
    computed and stored, and the campaign report is the merge of every topic's
    stored partial (a topic with none yet, or one of an older shape, is
    computed too). Other kinds rebuild the campaign report from every judgment.

    Returns the number of topic reports written.
    """
    # Cleared first: a submission from now on queues a fresh recompute, so
    # none can fall between what this run reads and the end of the run.
    ScoringState.objects.filter(campaign_id=campaign_id).update(pending=False)
    # The report's time, taken before anything is read: every change committed before it
    # marked its topic in the same transaction, so it is in the marks read below and in
    # the judgments read after them (Report.computed_at).
    started = timezone.now()
    campaign = Campaign.objects.get(pk=campaign_id)
    reports = get_kind(campaign.kind).reports
    marks = {
        topic_id: (revision, marked_at)
        for topic_id, revision, marked_at in StaleTopic.objects.filter(campaign=campaign).values_list(
            "topic_id", "revision", "marked_at"
        )
    }
    if reports.incremental:
        with _collector_paused():
            return _recompute_incremental(campaign, reports, marks, everything, progress, started)
    given = report_input(campaign)
    topics = {t.pk: t for t in given.topics}
    wanted = sorted(topics) if everything else sorted(marks)
    now = started
    topic_reports = _topic_reports(given, reports, [topics[t] for t in wanted if t in topics], progress)
    built = reports.campaign(given)
    campaign_data = typed.dump(built)
    counted = progress_sums.update(campaign, marks, everything=everything)
    with transaction.atomic():
        _store_topics(campaign, topic_reports, now)
        seen = given.held(model_judges=reports.model_judges)
        _store(campaign, campaign_data, seen, now)
        _store_headline(campaign, reports, built, seen, now)
        _clear_marks(marks)  # before the state row (counted.store): LOCK_ORDER
        counted.store(now)
    if progress:
        progress(1.0, "reports stored")
    return len(topic_reports)


@dataclass(frozen=True)
class TopicBuilt:
    """What a rebuild stores of one topic (:class:`scoring.models.TopicPartial`): its
    disagreement and its partial packed (empty for a kind without partials). The report
    itself is not stored (scoring.selectors.topic_report computes it when read)."""

    topic: Topic
    disagreement: Disagreement | None
    partial: bytes
    #: the counting judgments the partial was computed from (TopicPartial.judgments)
    judgments: int
    #: the report's first rows the partial gives (TopicPartial.listed; ``RunningSums.listed``);
    #: None: the kind lists none
    listed: int | None = None


def _topic_reports(given, reports, topics: list[Topic], progress: Progress | None) -> list[TopicBuilt]:
    """What is stored of each of ``topics`` (:class:`TopicBuilt`): its disagreement from its
    report, or from its partial when the kind gives ``partial_disagreement``."""
    built_topics = []
    for done, topic in enumerate(topics, 1):
        if reports.partial_disagreement is not None:
            # the partial holds the votes: the topic's report (its figures) is never built here
            partial = reports.partial(given, topic, None)
            disagreement = reports.partial_disagreement(partial, given.campaign)
        else:
            built = reports.topic(given, topic)
            partial = reports.partial(given, topic, built) if reports.incremental else None
            disagreement = reports.disagreement(built)
        held = given.held(topic, model_judges=reports.model_judges)
        rows = None if partial is None or not _lists(reports) else reports.sums.listed(partial)
        built_topics.append(
            TopicBuilt(topic, disagreement, b"" if partial is None else typed.pack(partial), held, rows)
        )
        if progress and (done % 50 == 0 or done == len(topics)):
            progress(0.9 * done / len(topics), f"{done} of {len(topics)} topics")
    return built_topics


def _recompute_incremental(campaign: Campaign, reports, marks: dict, everything: bool, progress, now) -> int:
    """The campaign report merged from every topic's partial: the stored ones of the topics
    not marked, the others computed from their judgments. Its ``judgments_seen`` is the sum of
    what each partial was computed from (stored with it, or read with it here), so a judgment
    saved while this runs is counted only where it is merged; ``now`` was taken before the
    marks were read (recompute_reports).

    A kind with running sums (scoring/sums.py) rebuilds from them instead when it can
    (:func:`_recompute_from_sums`): the marked topics' partials and the sums, not every
    partial of the campaign."""
    if reports.sums is not None and not everything:
        done = _recompute_from_sums(campaign, reports, marks, progress, now)
        if done is not None:
            return done
    topics = list(campaign.topics.order_by("position", "id").only("id", "external_id", "position", "campaign_id"))
    for topic in topics:
        topic.campaign = campaign
    stored = (
        {}
        if everything
        else {
            topic_id: (data, held, rows)
            for topic_id, data, held, rows in TopicPartial.objects.filter(campaign=campaign).values_list(
                "topic_id", "data", "judgments", "listed"
            )
        }
    )
    lists = _lists(reports)
    partials: dict[int, object] = {}
    holds: dict[int, int] = {}
    for topic_id, (data, held, rows) in stored.items():
        if topic_id in marks or not data or held is None or (lists and rows is None):
            continue
        try:
            partials[topic_id] = typed.unpack(_partial_bytes(data), reports.partial_type)
        except typed.Outdated:
            continue  # written by an older version: computed again below
        holds[topic_id] = held
    wanted = [t.pk for t in topics if t.pk not in partials]
    given = report_input(campaign, topic_ids=wanted)
    built = _topic_reports(given, reports, given.topics, progress)
    for one in built:
        partials[one.topic.pk] = typed.unpack(one.partial, reports.partial_type)
        holds[one.topic.pk] = one.judgments
    ordered = [partials[t.pk] for t in topics]
    cpu = time.process_time()
    merged = reports.merge(MergeInput(campaign, topics, given.runs), ordered)
    merge_seconds = time.process_time() - cpu
    campaign_data = typed.dump(merged)
    seen = sum(holds.get(t.pk, 0) for t in topics)
    counted = progress_sums.update(campaign, marks, everything=everything)
    # summed before the transaction: its write lock is held for the writes alone
    summed = (
        None
        if reports.sums is None
        else sums.total(
            reports.sums.empty(), (reports.sums.contribution(campaign, t, p) for t, p in zip(topics, ordered))
        )
    )
    with transaction.atomic():
        _store_topics(campaign, built, now)
        _store(campaign, campaign_data, seen, now, fits=(now, seen))
        if summed is not None:
            _store_sums(campaign, reports, summed, _fingerprint(campaign, given.runs), len(topics), seen, now)
            _store_fits(campaign, campaign_data, seen, now)
        _store_headline(campaign, reports, merged, seen, now)
        _clear_marks(marks)  # before the state row (counted.store): LOCK_ORDER
        counted.store(now)
        if summed is not None:  # the fits are this rebuild's own
            ScoringState.objects.filter(campaign=campaign).update(changes_since_fits=0)
    if summed is not None:
        _note_fits_cost(campaign, merge_seconds)
    if progress:
        progress(1.0, "reports stored")
    return len(built)


def _partial_bytes(data: bytes | memoryview) -> bytes:
    """A stored partial's MessagePack: compressed with the reports' dictionary
    (scoring.fields.compress), or as it was stored before (raw)."""
    raw = bytes(data)
    return fields.decompress(raw) if fields.is_compressed(raw) else raw


def _store_topics(campaign: Campaign, built: list[TopicBuilt], now) -> None:
    """Store the partials and disagreements of ``built`` (from :func:`_topic_reports`), replacing
    what those topics had: a few statements for any number of topics (inside the caller's
    transaction; a first build wrote each topic's report with an ``update_or_create``, five
    statements a topic)."""
    rows = []
    for one in built:
        disagreement, reason = _disagreement_columns(one.disagreement)
        packed = fields.compress(one.partial) if one.partial else b""
        rows.append(
            TopicPartial(
                campaign=campaign,
                topic=one.topic,
                data=packed,
                computed_at=now,
                disagreement=disagreement,
                disagreement_reason=reason,
                judgments=one.judgments,
                listed=one.listed,
            )
        )
    TopicPartial.objects.bulk_create(
        rows,
        batch_size=_BATCH,
        update_conflicts=True,
        unique_fields=["topic"],
        update_fields=["data", "computed_at", "disagreement", "disagreement_reason", "judgments", "listed"],
    )


def _lists(reports) -> bool:
    """Whether the kind's report copies rows from its first topics' partials (``RunningSums.listed``)."""
    return reports.sums is not None and reports.sums.listed is not None


# -- chunked first builds (scoring/schedule.py, "Chunked builds") ------------------


def build_chunks(campaign_id: int) -> list[list[int]]:
    """The campaign's stale topics in chunks of ``CONCORD_BUILD_CHUNK`` (in the
    campaign's order) when there are more than one chunk's worth and its kind
    merges partials; else none: one rebuild does it all."""
    size = settings.CONCORD_BUILD_CHUNK
    campaign = Campaign.objects.only("kind").get(pk=campaign_id)
    if not get_kind(campaign.kind).reports.incremental:
        return []
    stale = StaleTopic.objects.filter(campaign_id=campaign_id)
    if stale.count() <= size:
        return []
    ids = list(stale.order_by("topic__position", "topic_id").values_list("topic_id", flat=True))
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def store_progress(campaign_id: int) -> None:
    """Count and store the campaign's progress (scoring.progress) on its own: a split
    build's, whose campaign report waits for the last chunk. Its chunks clear the stale
    marks without counting progress: the rebuild after them counts it in full."""
    campaign = Campaign.objects.get(pk=campaign_id)
    counted = campaign_progress.count_if_big(campaign)
    campaign_progress.store(campaign, counted, timezone.now())


def build_chunk(campaign_id: int, topic_ids: list[int], *, count: Callable[[], int | None]) -> int | None:
    """Compute and store the reports and partials of those of ``topic_ids`` still
    stale, in one transaction that ``count()`` opens (scoring.schedule.chunk_done:
    the chunks left, or None to store nothing). As :func:`recompute_reports`, the
    marks are read before the judgments and cleared only if unchanged since.
    Returns what ``count()`` returned."""
    started = timezone.now()
    campaign = Campaign.objects.get(pk=campaign_id)
    reports = get_kind(campaign.kind).reports
    marks = {
        topic_id: (revision, marked_at)
        for topic_id, revision, marked_at in StaleTopic.objects.filter(
            campaign=campaign, topic_id__in=topic_ids
        ).values_list("topic_id", "revision", "marked_at")
    }
    built = []
    if marks:
        with _collector_paused():
            given = report_input(campaign, topic_ids=sorted(marks))
            built = _topic_reports(given, reports, given.topics, None)
    with transaction.atomic():
        _clear_marks(marks)  # before the state row (count()): LOCK_ORDER
        left = count()
        if left is None:
            transaction.set_rollback(True)  # the hold was lost: the marks stay
        else:
            _store_topics(campaign, built, started)
    return left


def check_reports(campaign: Campaign, *, tolerance: float = 1e-12) -> list[str]:
    """How what is stored of ``campaign`` differs from a recompute from scratch (every
    topic's partial and disagreement, the campaign report from every judgment, and the
    progress counts: scoring.progress_sums.check), to ``tolerance``; nothing is written.
    Stale topics are left out (they wait for the worker), and so is the campaign report
    while any topic is stale."""
    reports = get_kind(campaign.kind).reports
    given = report_input(campaign)
    stale = set(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True))
    stored = {
        row[0]: row[1:]
        for row in TopicPartial.objects.filter(campaign=campaign).values_list(
            "topic_id", "data", "disagreement", "disagreement_reason", "judgments", "listed"
        )
    }
    found = []
    for topic in given.topics:
        if topic.pk in stale or (topic.pk not in stored and not given.held(topic, model_judges=reports.model_judges)):
            continue
        path = f"topic {topic.external_id}"
        if topic.pk not in stored:
            found.append(f"{path}: nothing stored")
            continue
        [fresh] = _topic_reports(given, reports, [topic], None)
        data, disagreement, reason, held, rows = stored[topic.pk]
        found += differences(
            {"disagreement": disagreement, "reason": reason, "judgments": held, "listed": rows},
            {
                **dict(zip(("disagreement", "reason"), _disagreement_columns(fresh.disagreement))),
                "judgments": fresh.judgments,
                "listed": fresh.listed,
            },
            tolerance=tolerance,
            path=path,
        )
        if reports.incremental:
            found += differences(
                typed.dump(typed.unpack(_partial_bytes(data), reports.partial_type)),
                typed.dump(typed.unpack(fresh.partial, reports.partial_type)),
                tolerance=tolerance,
                path=f"{path} partial",
            )
    if not stale:
        whole = reports.campaign(given)
        fresh = typed.dump(whole)
        row = Report.objects.filter(campaign=campaign, name="agreement").values_list("data", "judgments_seen").first()
        if reports.sums is not None and row is not None:
            found += _check_sums(campaign, reports, given, row[1])
            fits = Report.objects.filter(campaign=campaign, name=sums.FITS).values_list("data", flat=True).first()
            if fits is not None:
                # the costly figures are the stored fits' until they are refreshed: the rest from the sums
                partials = list(zip(given.topics, _fresh_partials(given, reports)))
                summed = sums.total(
                    reports.sums.empty(), (reports.sums.contribution(campaign, *one) for one in partials)
                )
                expected = reports.sums.report(
                    merge_input(given),
                    typed.load(reports.campaign_type, fits),
                    summed,
                    partials,  # every topic's in order: refresh takes the first rows
                )
                fresh = typed.dump(expected)
        if row is None:
            found.append("campaign: no stored report")
        else:
            found += differences(row[0], fresh, tolerance=tolerance, path="campaign")
            held = given.held(model_judges=reports.model_judges)
            if row[1] != held:
                found.append(f"campaign: judgments_seen {row[1]}, holds {held}")
            if reports.topic_rows is not None:
                found += _check_topic_rows(campaign, reports, given)
    return found + progress_sums.check(campaign)


def _check_topic_rows(campaign: Campaign, reports, given) -> list[str]:
    """How the report's per-topic list as a page reads it (``Reports.topic_rows``: from the stored
    partials, with the stored report) differs from the rows of every topic's fresh partial."""
    shown = campaign_report(campaign)
    page = topic_rows(campaign, shown, limit=None)
    found = [] if page.belongs_to(shown) else [f"campaign topic rows: read with the report of {page.report_at}"]
    listing = reports.topic_rows
    fresh = [
        listing.row(topic, partial, shown.data)
        for topic, partial in zip(given.topics, _fresh_partials(given, reports))
        if given.held(topic, model_judges=reports.model_judges) >= listing.least
    ]
    if page.total != len(fresh):
        found.append(f"campaign topic rows: {page.total} listed, {len(fresh)} topics to list")
    return found + differences(typed.dump(page.rows), typed.dump(fresh), tolerance=1e-12, path="campaign topic rows")


def _fresh_partials(given, reports) -> list:
    return [
        reports.partial(given, topic, None if reports.partial_disagreement else reports.topic(given, topic))
        for topic in given.topics
    ]


def _check_sums(campaign: Campaign, reports, given, seen: int) -> list[str]:
    """How the stored running sums differ from the sums of every topic's fresh partial (exactly)."""
    row = Report.objects.filter(campaign=campaign, name=sums.SUMS).values_list("data", "judgments_seen").first()
    if row is None:
        return ["campaign sums: none stored"]
    state = typed.load(_SumsState, row[0])
    fresh = sums.total(
        reports.sums.empty(),
        (reports.sums.contribution(campaign, t, p) for t, p in zip(given.topics, _fresh_partials(given, reports))),
    )
    # counts exactly (integers differ by 1 at least); sums of floats to rounding
    found = differences(state.sums, typed.dump(fresh), tolerance=1e-12, path="campaign sums")
    if state.topics != len(given.topics):
        found.append(f"campaign sums: {state.topics} topics, the campaign has {len(given.topics)}")
    if row[1] != seen:
        found.append(f"campaign sums: judgments_seen {row[1]}, the report {seen}")
    return found


@contextmanager
def _collector_paused():
    """Python's cycle collector off while a recompute builds its many small,
    acyclic objects (10,000 decoded partials, the report tree): its passes
    over them were a third of a recompute at 10,000 topics. One pass after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.collect(0)


#: Rows written or deleted per statement when a rebuild stores many topics at once.
_BATCH = 500


#: The order in which a rebuild's transaction takes its row locks: the topics' stale marks, then
#: the campaign's state row (ScoringState), as every submission does (annotate.services.judgments:
#: its stale mark, then the recompute flag). A rebuild that updated the state row first (the
#: progress recount's flag, a chunk's count) and then cleared a mark a submission held would wait
#: for that submission while it waited for the state row: a deadlock, which PostgreSQL ends by
#: refusing the submission.
LOCK_ORDER = ("scoring_staletopic", "scoring_scoringstate")


def _clear_marks(marks: dict) -> None:
    """Delete the stale marks read as ``marks`` (topic -> (revision, marked_at)) that are
    unchanged since: a topic marked again meanwhile keeps its mark. A few statements for
    any number (a first build's chunk cleared 250 marks one statement each)."""
    items = list(marks.items())
    for start in range(0, len(items), _BATCH):
        unchanged = Q()
        for topic_id, (revision, marked_at) in items[start : start + _BATCH]:
            unchanged |= Q(topic_id=topic_id, revision=revision, marked_at=marked_at)
        StaleTopic.objects.filter(unchanged).delete()


def _disagreement_columns(disagreement: Disagreement | None) -> tuple[float | None, str]:
    """A topic's ``disagreement`` and ``disagreement_reason`` columns (none when not finite)."""
    if disagreement is None or not math.isfinite(disagreement.value):
        return None, ""
    return disagreement.value, disagreement.reason[:REASON_LENGTH]


def _store(campaign: Campaign, data: dict, seen: int, now, fits: tuple | None = None) -> None:
    """Store the campaign report (named ``agreement``); ``fits``: the time and judgment count of
    what its costly figures were computed from (scoring/sums.py), when not its own."""
    fits_at, fits_judgments = fits if fits is not None else (now, seen)
    Report.objects.put(
        campaign,
        "agreement",
        data=data,
        computed_at=now,
        judgments_seen=seen,
        fits_at=fits_at,
        fits_judgments=fits_judgments,
    )


# -- running sums (scoring/sums.py) ------------------------------------------------------


@dataclass(frozen=True)
class _SumsState:
    """What is stored of a campaign's running sums (report ``sums``): the kind's sums packed,
    the topics they hold (one contribution each), and what their report depends on beside
    the partials (the campaign's params and runs), so a change there rebuilds in full."""

    fingerprint: str
    topics: int
    #: the kind's sums as ``concord.typed.dump`` gives them
    sums: dict


def _fingerprint(campaign: Campaign, runs) -> str:
    """What a campaign report depends on beyond its topics' partials: the campaign's params and
    its runs (their names and kinds: their per-topic data is in the partials)."""
    described = {
        "params": campaign.params,
        "runs": sorted((run.name, run.data.get("reference") is True, "results" in run.data) for run in runs),
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()


def _store_sums(campaign: Campaign, reports, summed, fingerprint: str, topics: int, seen: int, now) -> None:
    # _SumsState's fields as typed.dump gives them (the sums dumped once: a crowd's are megabytes)
    state = {"fingerprint": fingerprint, "topics": topics, "sums": typed.dump(summed)}
    Report.objects.put(campaign, sums.SUMS, data=state, computed_at=now, judgments_seen=seen)


def _store_fits(campaign: Campaign, data: dict, seen: int, at) -> None:
    """Store the full merge (report ``fits``) whose costly figures the rebuilds from sums carry."""
    Report.objects.put(campaign, sums.FITS, data=data, computed_at=at, judgments_seen=seen)


def _note_fits_cost(campaign: Campaign, cpu_seconds: float) -> None:
    """What the campaign's full merge cost (the next refresh waits in proportion: :func:`fits_refresh_at`).
    Outside the transaction that stored it: every submission writes the campaign's state row
    (its recompute flag) after its stale mark, and a rebuild that held that row while it cleared
    the stale marks would wait for the submission that waits for it."""
    ScoringState.objects.filter(campaign=campaign).update(fits_seconds=cpu_seconds)


#: A rebuild from sums covers at most this share of the campaign's topics; a change of more
#: (an import, a run) rebuilds in full, which refreshes the costly figures too.
SUMS_SHARE = 0.5


def _recompute_from_sums(campaign: Campaign, reports, marks: dict, progress, now) -> int | None:
    """The campaign report from the stored running sums, updated by the marked topics' change
    (their stored partials' contributions out, their new ones in), and the costly figures of
    the stored fits; None when it cannot be (nothing stored yet, the params or runs changed,
    topics added or deleted unseen, or too many topics marked): the caller rebuilds in full."""
    stored = _stored_sums(campaign, reports)
    if stored is None:
        return None
    (state, summed, _, sums_seen), (fits, fits_at, fits_seen) = stored[sums.SUMS], stored[sums.FITS]
    topic_count = Topic.objects.filter(campaign=campaign).count()
    if len(marks) > SUMS_SHARE * max(topic_count, 1):
        return None
    old = {
        topic_id: (data, held)
        for topic_id, data, held in TopicPartial.objects.filter(
            campaign=campaign, topic_id__in=list(marks)
        ).values_list("topic_id", "data", "judgments")
    }
    # every topic the sums hold has its partial stored, with its counts (one stored without is
    # computed again: a full rebuild), and every other topic is marked
    # (a count and an existence test, each through the index TopicPartial.Meta declares: one
    # count of the rows matching a filter evaluates it on every row of the campaign)
    stored_partials = TopicPartial.objects.filter(campaign=campaign)
    unknown = Q(judgments__isnull=True) | Q(listed__isnull=True) if _lists(reports) else Q(judgments__isnull=True)
    if stored_partials.count() != state.topics or stored_partials.filter(unknown).exists():
        return None
    if topic_count != state.topics + len(set(marks) - set(old)):
        return None
    if any(held is None for _, held in old.values()):
        return None
    given = report_input(campaign, topic_ids=sorted(marks))
    if _fingerprint(campaign, given.runs) != state.fingerprint:
        return None
    marked = {topic.pk: topic for topic in given.topics}
    try:
        outgoing = [
            (marked[topic_id], typed.unpack(_partial_bytes(data), reports.partial_type))
            for topic_id, (data, _) in old.items()
        ]
    except (typed.Outdated, KeyError):
        return None
    built = _topic_reports(given, reports, given.topics, progress)
    incoming = [(one.topic, typed.unpack(one.partial, reports.partial_type)) for one in built]
    contribution = functools.partial(reports.sums.contribution, campaign)
    try:
        summed = sums.moved(summed, [contribution(*one) for one in outgoing], [contribution(*one) for one in incoming])
    except ValueError:  # stored sums that do not hold a stored partial (a count below zero): count afresh
        log.warning("campaign %s: its running sums do not hold its partials; rebuilt in full", campaign.pk)
        return None
    seen = sums_seen - sum(held for _, held in old.values()) + sum(one.judgments for one in built)
    listed = []
    if reports.sums.listed is not None:
        listed = _listed(campaign, reports, marks, incoming)
        if listed is None:
            return None
    refreshed = reports.sums.report(MergeInput(campaign, [], given.runs), fits, summed, listed)
    campaign_data = typed.dump(refreshed)
    counted = progress_sums.update(campaign, marks, topic_count=topic_count)
    topics = state.topics + len(built) - len(old)
    with transaction.atomic():
        _store_topics(campaign, built, now)
        _store(campaign, campaign_data, seen, now, fits=(fits_at, fits_seen) if reports.sums.fits else None)
        if marks:  # its time is that of the newest change the sums hold (fits_refresh_at)
            _store_sums(campaign, reports, summed, state.fingerprint, topics, seen, now)
        _store_headline(campaign, reports, refreshed, seen, now)
        _clear_marks(marks)  # before the state row (counted.store): LOCK_ORDER
        counted.store(now)
        if built and reports.sums.fits:
            ScoringState.objects.filter(campaign=campaign).update(
                changes_since_fits=F("changes_since_fits") + len(built)
            )
    if marks:
        _keep_decoded(campaign.pk, sums.SUMS, now, seen, (_SumsState(state.fingerprint, topics, {}), summed))
    if progress:
        progress(1.0, "reports stored")
    return len(built)


#: Per process, the decoded running sums and fits of the campaigns this worker rebuilt last,
#: under the stored row's time and count (a row stored since has others): a rebuild after a
#: few submissions decodes neither again (at 10,000 topics, about a third of its CPU). What
#: is kept is never changed in place (``sums.moved`` makes new sums; the fits are read only).
_decoded: OrderedDict = OrderedDict()
_decoded_lock = threading.Lock()
#: The campaigns' decoded sums and fits kept per process (two entries each).
DECODED_CAMPAIGNS = 8


def _keep_decoded(campaign_id: int, name: str, at, seen: int, value) -> None:
    with _decoded_lock:
        for key in [key for key in _decoded if key[:2] == (campaign_id, name)]:
            del _decoded[key]
        _decoded[(campaign_id, name, at, seen)] = value
        while len(_decoded) > 2 * DECODED_CAMPAIGNS:
            _decoded.popitem(last=False)


def _stored_sums(campaign: Campaign, reports) -> dict | None:
    """The campaign's stored running sums as ``(state, sums, time, count)`` and fits as ``(fits,
    time, count)``, decoded (or as this process decoded them last: :data:`_decoded`); None when
    either is not stored or is of an older shape."""
    heads = {
        name: (at, seen)
        for name, at, seen in Report.objects.filter(campaign=campaign, name__in=[sums.SUMS, sums.FITS]).values_list(
            "name", "computed_at", "judgments_seen"
        )
    }
    if sums.SUMS not in heads or sums.FITS not in heads:
        return None
    with _decoded_lock:
        found = {name: _decoded.get((campaign.pk, name, *heads[name])) for name in heads}
    missing = [name for name, value in found.items() if value is None]
    if missing:
        rows = Report.objects.filter(campaign=campaign, name__in=missing).values_list(
            "name", "data", "computed_at", "judgments_seen"
        )
        try:
            for name, raw, at, seen in rows:  # the row as read now: stored again since the heads, maybe
                if name == sums.SUMS:
                    state = typed.load(_SumsState, raw)
                    value = (dataclasses.replace(state, sums={}), typed.load(reports.sums.type, state.sums))
                else:
                    value = typed.load(reports.campaign_type, raw)
                heads[name] = (at, seen)
                found[name] = value
                _keep_decoded(campaign.pk, name, at, seen, value)
        except (typed.Outdated, TypeError, ValueError):
            return None
        if any(found[name] is None for name in missing):  # deleted meanwhile
            return None
    return {
        sums.SUMS: (*found[sums.SUMS], *heads[sums.SUMS]),
        sums.FITS: (found[sums.FITS], *heads[sums.FITS]),
    }


def _listed(campaign: Campaign, reports, marks: dict, incoming: list) -> list | None:
    """The first topics in order (position, then id) whose rows (``RunningSums.listed``) reach
    the report's ``listed_limit()``, with their partials, as (topic, partial): of the marked
    topics their new partials (``incoming``), of the others the stored ones. The others are found
    in a window of the stored counts (``TopicPartial.listed``): the first ``listed_limit()`` in
    order that give a row (each gives one at least, so no topic past them is listed), whatever
    the campaign's size; then only the listed ones' partials are read. None when one of those
    is gone, of an older shape or changed in between (the caller rebuilds in full)."""
    spec = reports.sums
    limit = spec.listed_limit()
    found = [(topic.position, topic.pk, topic, partial, spec.listed(partial)) for topic, partial in incoming]
    # read from the topics in their order (the index topic_order), each one's count looked up by
    # its topic: the scan stops at the window's last row, with no sort of the campaign's partials
    window = (
        Topic.objects.filter(campaign=campaign)
        .exclude(pk__in=list(marks))
        .annotate(rows=Subquery(TopicPartial.objects.filter(topic=OuterRef("pk")).values("listed")))
        .filter(rows__gt=0)
        .order_by("position", "id")
        .values_list("id", "external_id", "position", "rows")[:limit]
    )
    found += [
        (position, topic_id, Topic(pk=topic_id, campaign=campaign, external_id=external_id, position=position), None, n)
        for topic_id, external_id, position, n in window
    ]
    first, rows = [], 0
    for _, _, topic, partial, n in sorted((one for one in found if one[4] > 0), key=lambda one: one[:2]):
        if rows >= limit:
            break
        first.append((topic, partial, n))
        rows += n
    wanted = {topic.pk: n for topic, partial, n in first if partial is None}
    stored = {}
    if wanted:
        try:
            stored = {
                topic_id: typed.unpack(_partial_bytes(data), reports.partial_type)
                for topic_id, data, n in TopicPartial.objects.filter(
                    campaign=campaign, topic_id__in=list(wanted)
                ).values_list("topic_id", "data", "listed")
                if n == wanted[topic_id]  # as the window read it
            }
        except typed.Outdated:
            return None
    if len(stored) != len(wanted):
        return None
    return [(topic, stored[topic.pk] if partial is None else partial) for topic, partial, _ in first]


def fits_refresh_at(campaign_id: int, *, can_wait: bool = True):
    """When the campaign's costly figures (report ``fits``) are to be merged again, marked as
    queued; None when no refresh is wanted: the fits hold the newest change the running sums
    hold (report ``sums``), the kind's reports take nothing from them (``RunningSums.fits``), or
    one is queued for that time or sooner (one due :data:`FITS_QUEUED_LOST` seconds ago and not
    done is taken as lost).

    The time is ``CONCORD_FITS_INTERVAL`` seconds from now, so that changes arriving after a
    quiet spell are merged together rather than the first one alone, and no sooner than that
    interval and :data:`FITS_WAIT` times the last full merge's CPU after the fits' own time.
    While the topics changed since the fits (``ScoringState.changes_since_fits``) are fewer than
    :data:`FITS_SHARE` of the judgments the fits hold, it is no sooner than
    ``CONCORD_FITS_MAX_AGE`` seconds after the fits' own time either.
    ``can_wait`` False (a task backend that cannot run a task later): a refresh is queued only
    when due now."""
    rows = {
        name: (at, seen)
        for name, at, seen in Report.objects.filter(
            campaign_id=campaign_id, name__in=[sums.SUMS, sums.FITS]
        ).values_list("name", "computed_at", "judgments_seen")
    }
    (fits_at, fits_seen), (changed_at, _) = rows.get(sums.FITS, (None, 0)), rows.get(sums.SUMS, (None, 0))
    if fits_at is None or changed_at is None or changed_at <= fits_at:
        return None
    now = timezone.now()
    cost, changes = ScoringState.objects.filter(campaign_id=campaign_id).values_list(
        "fits_seconds", "changes_since_fits"
    ).first() or (None, 0)
    interval = settings.CONCORD_FITS_INTERVAL
    due = max(fits_at + timedelta(seconds=max(interval, FITS_WAIT * (cost or 0.0))), now + timedelta(seconds=interval))
    if changes < FITS_SHARE * fits_seen:
        due = max(due, fits_at + timedelta(seconds=settings.CONCORD_FITS_MAX_AGE))
    if due > now and not can_wait:
        return None
    kind = Campaign.objects.filter(pk=campaign_id).values_list("kind", flat=True).first()
    running = get_kind(kind).reports.sums if kind is not None else None
    if running is None or not running.fits:  # its reports take nothing from them
        return None
    lost = now - timedelta(seconds=FITS_QUEUED_LOST)
    queued = (
        ScoringState.objects.filter(campaign_id=campaign_id)
        .filter(Q(fits_queued_at__isnull=True) | Q(fits_queued_at__lt=lost) | Q(fits_queued_at__gt=due))
        .update(fits_queued_at=due)
    )
    return due if queued else None


#: A fits refresh due this many seconds ago and not done is taken as lost (its worker died).
FITS_QUEUED_LOST = 600
#: A refresh of a campaign's costly figures waits at least this many times the CPU its last full
#: merge took (and CONCORD_FITS_INTERVAL): while judgments arrive, the refreshes of a campaign
#: whose merge takes 20 s (100,000 crowd items) take a fifth of a core, not the whole of one,
#: and leave the rebuilds that keep its figures fresh the rest.
FITS_WAIT = 4
#: The costly figures are refreshed once the topics changed since they were merged are this
#: share of the judgments they hold (or after CONCORD_FITS_MAX_AGE). A figure over n units moves
#: by about sqrt(m / n) of its standard error when m units are added or changed: a tenth of one
#: at 1%, a fortieth of a 95% interval's width. Their merge costs in proportion to the campaign,
#: so a refresh every 1% of its judgments costs each save the same at any size (at 10,000
#: topics x 10 assessors, a refresh of 0.4-3.5 s of CPU every 1,000 judgments, where every 30 s
#: at 20 saves/s across 8 campaigns was half the task workers' CPU: benchmarks.load).
FITS_SHARE = 0.01


def take_fits_refresh(campaign_id: int) -> bool:
    """Whether a queued refresh of the campaign's fits that is running now is the one queued
    last (``ScoringState.fits_queued_at`` due): it clears the mark, and the refresh goes on.
    False: one queued later replaced it (a refresh queued for when the fits are old, then one
    sooner once enough changed): it does nothing."""
    return bool(
        ScoringState.objects.filter(campaign_id=campaign_id, fits_queued_at__lte=timezone.now()).update(
            fits_queued_at=None
        )
    )


def refresh_fits(campaign_id: int) -> bool:
    """The full merge of every stored partial, stored as the campaign's ``fits`` (the costly
    figures the rebuilds from sums carry); True if stored. It holds exactly the judgments of
    the partials it read (``judgments_seen``), and every change committed before the campaign
    report it read first (its ``computed_at``), whose partials were committed with it.
    It writes nothing else but the count of the changes since (the ones it holds taken off):
    the campaign's next rebuild takes it up."""
    ScoringState.objects.filter(campaign_id=campaign_id).update(fits_queued_at=None)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return False
    reports = get_kind(campaign.kind).reports
    changes = ScoringState.objects.filter(campaign=campaign).values_list("changes_since_fits", flat=True).first() or 0
    as_of = Report.objects.filter(campaign=campaign, name="agreement").values_list("computed_at", flat=True).first()
    if reports.sums is None or as_of is None:
        return False
    if Report.objects.filter(campaign=campaign, name=sums.FITS, computed_at__gte=as_of).exists():
        return False  # they hold every change already
    topics = list(campaign.topics.order_by("position", "id").only("id", "external_id", "position", "campaign_id"))
    stored = {
        topic_id: (data, held)
        for topic_id, data, held in TopicPartial.objects.filter(campaign=campaign).values_list(
            "topic_id", "data", "judgments"
        )
    }
    if any(t.pk not in stored or stored[t.pk][1] is None for t in topics):
        return False  # a topic not built yet: the rebuild that builds it refreshes everything
    cpu = time.process_time()
    with _collector_paused():
        try:
            partials = [typed.unpack(_partial_bytes(stored[t.pk][0]), reports.partial_type) for t in topics]
        except typed.Outdated:
            return False
        given = report_input(campaign, topic_ids=[])
        merged = reports.merge(MergeInput(campaign, topics, given.runs), partials)
        seen = sum(stored[t.pk][1] for t in topics)
        data = typed.dump(merged)
    with transaction.atomic():
        newer = Report.objects.filter(campaign=campaign, name=sums.FITS, computed_at__gte=as_of).exists()
        if newer:
            return False
        _store_fits(campaign, data, seen, as_of)
        # the changes read before the report: every one is in it (those counted since are not taken off)
        ScoringState.objects.filter(campaign=campaign).update(
            changes_since_fits=Greatest(F("changes_since_fits") - changes, 0)
        )
    _note_fits_cost(campaign, time.process_time() - cpu)
    return True


def _store_headline(campaign: Campaign, reports, built, seen: int, now) -> None:
    """The kind's headline of the campaign report ``built``, stored beside it (report ``headline``,
    the same time and count): the campaign's summary reads it instead of decoding the whole
    report (a crowd's, with its workers' kappa matrix, is megabytes: scoring.live.campaign_headline),
    and added to the headline's series (scoring.history) in the same transaction."""
    if reports.headline is None:
        return
    headline = reports.headline(built)
    Report.objects.put(campaign, HEADLINE, data=typed.dump(headline), computed_at=now, judgments_seen=seen)
    history.record(campaign, headline, seen, now)


#: The name of the stored headline report (beside the campaign report ``agreement``).
HEADLINE = "headline"


# -- jobs: long analyses with progress ----------------------------------------

#: Analyses every kind offers; a kind adds its own in its spec's ``analyses`` (KindSpec).
COMMON_ANALYSES = ("agreement",)
COMMON_ANALYSIS_PARAMS = {"agreement": ParamsSchema(help="No params: every report of the campaign is recomputed.")}

#: What one job may cost. Every analysis declares its params with upper
#: bounds (``ANALYSIS_PARAMS`` in kinds/<kind>/analyses.py, each with the
#: measurements behind them) that keep one job, or one chunk of a chunked
#: job, within about 2 GB of memory and 10 minutes on a 2-core, 4 GB worker.
JOB_BUDGET = {"memory_gb": 2, "minutes": 10}

#: A job whose worker died while running it is queued again until it has
#: been started this many times; then recover_jobs marks it failed.
MAX_ATTEMPTS = 2


def analyses_for(campaign: Campaign) -> list[str]:
    return [*COMMON_ANALYSES, *(analysis.name for analysis in get_kind(campaign.kind).analyses)]


def analysis_schemas(kind: str) -> dict[str, ParamsSchema]:
    """analysis -> its params schema, for every analysis of ``kind``."""
    return {**COMMON_ANALYSIS_PARAMS, **{analysis.name: analysis.params for analysis in get_kind(kind).analyses}}


def campaign_analysis_schemas(campaign: Campaign) -> dict[str, ParamsSchema]:
    """analysis -> its params schema for ``campaign`` (``Analysis.params_for`` where the
    analysis has one: what may be asked depends on the campaign), for every analysis of its kind."""
    schemas = analysis_schemas(campaign.kind)
    for analysis in get_kind(campaign.kind).analyses:
        if analysis.params_for is not None:
            schemas[analysis.name] = analysis.params_for(campaign.params)
    return schemas


def _analysis(job: Job) -> Analysis:
    analysis = get_kind(job.campaign.kind).analysis(job.analysis)
    if analysis is None:
        raise InvalidInput("analysis", f"the {job.campaign.kind} kind has no analysis {job.analysis!r}")
    return analysis


def _chunk_steps(job: Job) -> tuple[Callable[[dict, dict], dict], Callable[[dict, list[dict]], dict]]:
    chunks = _analysis(job).chunks
    if chunks is None:
        raise InvalidInput("analysis", f"{job.analysis} does not run in chunks")
    return chunks


class JobCancelled(Exception):
    """Raised by a job's progress callback once the job was cancelled."""


@dataclass(frozen=True)
class Chunked:
    """What an analysis returns to continue as chunks that any number of
    workers run: the data they share, and each chunk's parameters. The
    kind's module gives ``CHUNKS[analysis] = (run_chunk, combine)`` with
    ``run_chunk(snapshot, params) -> dict`` and
    ``combine(snapshot, [chunk results in index order]) -> dict``."""

    snapshot: dict
    chunks: list[dict]


def run_job(job_id: int, *, dispatch: Callable[[int], object]) -> None:
    """Run a job; a chunked analysis is split into chunks that wait their turn,
    and ``dispatch(campaign_id)`` is called once the split is committed to hand
    the first of them to the queue (scoring.tasks passes ``dispatch_analyses``:
    scoring/dispatch.py; this module never imports the tasks)."""
    job = Job.objects.select_related("campaign").get(pk=job_id)
    if job.chunks_total:  # a repeated task: already split
        return
    _not_importing(job)
    # Only a queued job starts (not a finished, failed or cancelled one, nor
    # one another worker has started); each start is an attempt.
    claimed = Job.objects.filter(pk=job.pk, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=timezone.now(), progress=0.0, attempts=F("attempts") + 1
    )
    if not claimed:
        return
    job.status = Job.Status.RUNNING

    def progress(fraction: float, message: str) -> None:
        """Record progress; raise JobCancelled once the job is no longer running (cancelled)."""
        updated = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
            progress=round(min(max(fraction, 0.0), 1.0), 4), message=message[:500]
        )
        if not updated:
            raise JobCancelled(job.pk)

    with _failures_recorded(job.pk, queue_again=True):
        if job.analysis == "agreement":
            written = recompute_reports(job.campaign_id, everything=True, progress=progress)
            result = {"topic_reports": written}
        else:
            # What an analysis proposes (Analysis.apply) changes the campaign only when
            # an organiser applies it (scoring.services.apply_job).
            result = _analysis(job).run(report_input(job.campaign), job.params, progress)
        if isinstance(result, Chunked):
            _split(job, result, dispatch)
            return
        _finish(job.pk, json_ready(result))


def _not_importing(job: Job) -> None:
    """A campaign a large import is being written into is read once it is complete:
    busy.Busy, which the task worker answers by running the task again later."""
    if ImportFence.objects.filter(campaign_id=job.campaign_id).exists():
        raise busy.Busy(f"an import is being written into campaign {job.campaign_id}")


def _split(job: Job, plan: Chunked, dispatch: Callable[[int], object]) -> None:
    with transaction.atomic():
        # Conditional, so a repeated run of the job (see recover_jobs) cannot split it twice.
        claimed = Job.objects.filter(pk=job.pk, chunks_total=0).update(
            snapshot=json_ready(plan.snapshot),
            chunks_total=len(plan.chunks),
            chunks_done=0,
            message=f"0 of {len(plan.chunks)} chunks",
        )
        if not claimed:
            return
        JobChunk.objects.bulk_create(
            JobChunk(job=job, index=i, params=p, waits_turn=True) for i, p in enumerate(plan.chunks)
        )
        transaction.on_commit(lambda: dispatch(job.campaign_id))


def run_chunk(job_id: int, index: int) -> None:
    """Run one chunk; the worker that finishes the last one combines them."""
    job = Job.objects.select_related("campaign").get(pk=job_id)
    chunk = JobChunk.objects.get(job=job, index=index)
    if chunk.finished_at is not None:  # a retried task: the work is done
        return
    if job.status != Job.Status.RUNNING:  # cancelled or failed: the other chunks are not worth running
        return
    _not_importing(job)
    run, _ = _chunk_steps(job)
    with _failures_recorded(job.pk):
        result = json_ready(run(job.snapshot, chunk.params))
        with transaction.atomic():
            claimed = JobChunk.objects.filter(pk=chunk.pk, finished_at=None).update(
                result=result, finished_at=timezone.now()
            )
            if not claimed:
                return
            Job.objects.filter(pk=job.pk).update(chunks_done=F("chunks_done") + 1)
            done = Job.objects.values_list("chunks_done", flat=True).get(pk=job.pk)
            Job.objects.filter(pk=job.pk).update(
                progress=round(0.98 * done / job.chunks_total, 4), message=f"{done} of {job.chunks_total} chunks"
            )
        if done == job.chunks_total:
            _combine(job)


def combine_chunks(job_id: int) -> None:
    """Combine a chunked job whose chunks are all finished but whose combine
    step never completed (its worker was lost; see ``recover_jobs``)."""
    job = Job.objects.select_related("campaign").get(pk=job_id)
    if job.status == Job.Status.DONE or not job.chunks_total:
        return
    if JobChunk.objects.filter(job=job, finished_at__isnull=False).count() < job.chunks_total:
        return
    with _failures_recorded(job.pk):
        _combine(job)


def _combine(job: Job) -> None:
    _, combine = _chunk_steps(job)
    results = list(JobChunk.objects.filter(job=job).order_by("index").values_list("result", flat=True))
    _finish(job.pk, json_ready(combine(job.snapshot, results)))


def _finish(job_id: int, result: dict) -> None:
    # Conditional: a job cancelled meanwhile keeps its state and stores no result.
    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        status=Job.Status.DONE, progress=1.0, result=result, finished_at=timezone.now(), message="done"
    )


#: What a user reads when a job failed for a reason they can act on.
OUT_OF_MEMORY = "ran out of memory: run it again with smaller parameters (fewer draws, pairs, resamples or seeds)"
UNEXPECTED = "failed unexpectedly (logged for the administrators); run it again, or with other parameters"


def failure_message(error: BaseException) -> str:
    """The message a user sees for a job that raised ``error``: what to
    change, never an exception's own text (that goes to the log)."""
    if isinstance(error, InvalidInput):
        return f"{error.field}: {error.message}"
    if isinstance(error, MemoryError):
        return OUT_OF_MEMORY
    return UNEXPECTED


@contextmanager
def _failures_recorded(job_id: int, *, queue_again: bool = False):
    """``queue_again``: a transient database error puts the job back in the queue
    (its task is run again: scoring's db_worker); a chunk or combine step stays running."""
    try:
        yield
    except JobCancelled:
        log.info("job %s stopped: it was cancelled", job_id)
    except (InvalidInput, MemoryError) as error:  # known: the message says what to change
        log.warning("job %s failed: %r", job_id, error)
        fail_job(job_id, failure_message(error))
    except Exception as error:
        if busy.is_transient(error):
            log.warning("job %s met a busy database (%s): it runs again", job_id, error)
            if queue_again:
                busy.Patience(f"job {job_id}").call(lambda: _queued_again(job_id))
            raise
        # The job records a generic failure; the traceback goes to the log only.
        log.exception("job %s failed", job_id)
        fail_job(job_id, failure_message(error))
        raise


def _queued_again(job_id: int) -> None:
    # Not an attempt that counts towards MAX_ATTEMPTS (those are the worker's deaths).
    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        status=Job.Status.QUEUED,
        progress=0.0,
        started_at=None,
        attempts=F("attempts") - 1,
        message="waiting: the database was busy",
    )


def fail_job(job_id: int, message: str) -> None:
    Job.objects.filter(pk=job_id, status__in=UNFINISHED_JOB).update(
        status=Job.Status.FAILED, finished_at=timezone.now(), message=message[:500]
    )
