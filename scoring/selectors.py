"""Reads for scoring: submitted judgments in a form the reports consume, and
the stored reports that pages show."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Case, Count, OuterRef, Subquery, Sum, When, Window
from django.utils import timezone

from annotate import judges as judges_of
from annotate.models import (
    REVISION_PAYLOAD,
    SUBMITTED_PAYLOAD,
    Assignment,
    Campaign,
    Control,
    Curation,
    Judgment,
    JudgmentRevision,
    Run,
    Topic,
)
from concord import typed
from concord.errors import InvalidInput
from kinds.registry import get_kind
from scoring import fields
from scoring.models import Job, Report, ScoringState, StaleTopic, TopicPartial

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgmentRow:
    topic_id: int
    assessor: str
    payload: dict[str, Any]


def submitted_judgments(
    campaign: Campaign, *, topic_ids: list[int] | None = None, model_judges: bool = False
) -> list[JudgmentRow]:
    """The people's judgments that count: submitted or reopened (the submitted version,
    never the draft on top of it); withdrawn ones and drafts do not. The model judges'
    (annotate/judges.py) are left out unless the campaign counts them with the people's
    (``model_judges_count``), and so are the paused assessors' (annotate/quality.py).
    ``model_judges``: the model judges' own instead, whether or not the campaign counts them."""
    judgments = Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING)
    if topic_ids is not None:
        judgments = judgments.filter(topic_id__in=topic_ids)
    if model_judges:
        judgments = judgments.filter(assessor_id__in=judges_of.model_judge_ids(campaign))
    else:
        judgments = judgments.exclude(assessor_id__in=judges_of.left_out(campaign))
    return [
        JudgmentRow(topic_id, username, payload)
        for topic_id, username, payload in judgments.order_by("topic_id", "assessor__username")
        .annotate(counted=SUBMITTED_PAYLOAD)
        .values_list("topic_id", "assessor__username", "counted")
    ]


@dataclass(frozen=True)
class BuildProgress:
    """A first build under way (scoring/schedule.py, "Chunked builds"): how many
    of the campaign's topics have a fresh report."""

    fresh: int
    topics: int

    @property
    def text(self) -> str:
        return f"Building: {self.fresh:,} of {self.topics:,} topics"


def build_progress(campaign: Campaign) -> BuildProgress | None:
    """The campaign's first build while one runs or waits: a split build's chunks
    are running, or more topics are stale than one rebuild takes at once
    (``CONCORD_BUILD_CHUNK``). None otherwise (a few stale topics: the next
    rebuild, seconds away)."""
    # One query while no build runs (the summary and the report fragment are polled every few
    # seconds); the topics are counted only during one (33 ms at 100,000 topics on PostgreSQL).
    row = (
        Campaign.objects.filter(pk=campaign.pk)
        .annotate(
            stale=_counted(StaleTopic.objects.filter(campaign_id=OuterRef("pk"))),
            chunks=Subquery(ScoringState.objects.filter(campaign_id=OuterRef("pk")).values("build_chunks")[:1]),
        )
        .values("stale", "chunks")
        .first()
    )
    stale, chunks = row["stale"] or 0, row["chunks"] or 0
    if not stale or (stale <= settings.CONCORD_BUILD_CHUNK and not chunks):
        return None
    topics = Topic.objects.filter(campaign_id=campaign.pk).count()
    return BuildProgress(max(topics - stale, 0), topics)


def _counted(rows) -> Subquery:
    """How many of ``rows`` (filtered on the outer campaign), as a subquery."""
    return Subquery(rows.order_by().values("campaign_id").annotate(n=Count("pk")).values("n")[:1])


@dataclass(frozen=True)
class StoredReport:
    """A stored report read back as its kind's type (``KindSpec.reports``)."""

    data: Any
    computed_at: datetime
    judgments_seen: int
    #: the time and judgment count of what its costly figures were computed from
    #: (``Report.fits_at``, ``fits_judgments``: scoring/sums.py); None: its own
    fits_at: datetime | None = None
    fits_judgments: int | None = None

    @property
    def fits_behind(self) -> bool:
        """Whether its costly figures (intervals' bounds, model fits) are older than the rest."""
        return self.fits_at is not None and self.fits_at != self.computed_at

    @property
    def judgments_since_fits(self) -> int | None:
        """How many more counting judgments the report holds than its costly figures do."""
        return None if self.fits_judgments is None else self.judgments_seen - self.fits_judgments


def _typed(report: Report | None, type_: type) -> StoredReport | None:
    """None when there is none yet, or when it was stored by an older version
    in another shape (scoring migration 0005 marked every topic stale, so
    the worker rewrites it)."""
    if report is None:
        return None
    try:
        data = typed.load(type_, report.data)
    except typed.Outdated as error:
        log.warning(
            "report %s of campaign %s has an outdated shape (%s): waiting for its recompute",
            report.pk,
            report.campaign_id,
            error,
        )
        return None
    return StoredReport(data, report.computed_at, report.judgments_seen, report.fits_at, report.fits_judgments)


def campaign_report(campaign: Campaign, name: str = "agreement") -> StoredReport | None:
    """The stored campaign report, as the kind's ``campaign_type``."""
    report = Report.objects.filter(campaign=campaign, name=name).first()
    return _typed(report, get_kind(campaign.kind).reports.campaign_type)


def topic_report(topic: Topic) -> StoredReport | None:
    """One topic's report, as the kind's ``topic_type``, computed now from its counting
    judgments (None while none counts). Not stored: a rebuild computed it after every
    submission of the topic, for a page an organiser opens now and then; one topic's
    report is bounded by the kind's limits (a few milliseconds to tens: docs/benchmarks.md),
    and what lists need of it, its disagreement, is stored (scoring.models.TopicPartial)."""
    given = report_input(topic.campaign, topic_ids=[topic.pk])
    [own] = given.topics
    counted = len(given.judgments_of(own))
    if not counted:
        return None
    return StoredReport(get_kind(own.campaign.kind).reports.topic(given, own), timezone.now(), counted)


@dataclass(frozen=True)
class TopicRowsPage:
    """Some rows of a campaign report's per-topic list (``Reports.topic_rows``), made from the
    topics' stored partials, and which stored report they belong to."""

    #: the kind's ``TopicRows.type`` rows, in topic order
    rows: list
    #: how many rows the list has (every topic whose partial holds ``TopicRows.least`` judgments)
    total: int
    offset: int
    #: the ``computed_at`` of the campaign report stored when the rows were read (None: none yet)
    report_at: datetime | None
    #: rows stored after that report (a first build's chunks, before the report that merges them)
    newer: int = 0

    def belongs_to(self, report: StoredReport | None) -> bool:
        """Whether these are the rows of ``report`` exactly: read with it as the stored report,
        none written after it."""
        return report is not None and self.report_at == report.computed_at and not self.newer


#: The most rows one read of a per-topic list makes (a page, the API's ``limit``).
TOPIC_ROWS_LIMIT = 2000


def topic_rows(
    campaign: Campaign, shown: StoredReport | None, *, offset: int = 0, limit: int | None = 100
) -> TopicRowsPage:
    """Rows ``offset`` to ``offset + limit`` of the campaign report's per-topic list
    (``Reports.topic_rows``), each made from its topic's stored partial, to be shown with the
    stored report ``shown`` (what a row takes from the whole campaign is taken from it).

    The rows, their count and the stored campaign report's ``computed_at`` are read in one
    statement, so they are of one state of the database on every engine: a rebuild stores its
    topics' partials and the campaign report in one transaction with one time (scoring.jobs), so
    the rows read with a report of time T are exactly that report's when none was stored after T
    (a split first build's chunks store partials before the report that merges them:
    ``newer`` counts those). :meth:`TopicRowsPage.belongs_to` says whether they are ``shown``'s.
    ``limit`` None: every row (an export: one topic's row is bounded, so every topic's is as
    large as the campaign's partials)."""
    spec = get_kind(campaign.kind).reports
    listing = spec.topic_rows
    if listing is None:
        raise ValueError(f"the {campaign.kind} report has no per-topic list")
    offset = max(0, int(offset))
    end = None if limit is None else offset + max(0, min(int(limit), TOPIC_ROWS_LIMIT))
    report_at = Report.objects.filter(campaign_id=OuterRef("campaign_id"), name="agreement").values("computed_at")[:1]
    listed = TopicPartial.objects.filter(campaign=campaign, judgments__gte=max(listing.least, 0))
    found = list(
        listed.annotate(
            report_at=Subquery(report_at),
            total=Window(Count("pk")),
            newer=Window(Sum(Case(When(computed_at__gt=Subquery(report_at), then=1), default=0))),
        )
        .order_by("topic__position", "topic_id")
        .values_list("topic_id", "topic__external_id", "topic__position", "data", "report_at", "total", "newer")[
            offset:end
        ]
    )
    if not found:  # past the end, or no row: the count and the report's time on their own
        head = Report.objects.filter(campaign=campaign, name="agreement").values_list("computed_at", flat=True)
        return TopicRowsPage([], listed.count() if offset else 0, offset, head.first())
    report = shown.data if shown is not None else None
    rows = []
    for topic_id, external_id, position, data, _, _, _ in found:
        raw = bytes(data)
        try:
            partial = typed.unpack(fields.decompress(raw) if fields.is_compressed(raw) else raw, spec.partial_type)
        except typed.Outdated:  # stored by an older version: the worker computes it again
            continue
        topic = Topic(pk=topic_id, campaign=campaign, external_id=external_id, position=position)
        rows.append(listing.row(topic, partial, report))
    return TopicRowsPage(rows, found[0][5], offset, found[0][4], found[0][6] or 0)


def campaign_jobs(campaign: Campaign) -> list[Job]:
    return list(Job.objects.filter(campaign=campaign)[:20])


def phase_payloads(
    campaign: Campaign, phase: int, *, topic_ids: list[int] | None = None
) -> dict[tuple[int, str], dict[str, Any]]:
    """(topic id, assessor) -> the submitted payload of ``phase``.

    Phase 2 (or a campaign that never left Phase 1): the current submitted
    judgments. Phase 1 once Phase 2 has started: each judgment's last
    submitted revision from before the start of Phase 2, unless it was
    withdrawn after that submission and before the start.
    """
    started = campaign.params.get("phase2_started_at")
    if phase == 2 or not started:
        return {(row.topic_id, row.assessor): row.payload for row in submitted_judgments(campaign, topic_ids=topic_ids)}
    revisions = JudgmentRevision.objects.filter(
        judgment__topic__campaign=campaign,
        status__in=[Judgment.Status.SUBMITTED, Judgment.Status.WITHDRAWN],
        created_at__lt=datetime.fromisoformat(started),
    ).exclude(judgment__assessor_id__in=judges_of.left_out(campaign))
    if topic_ids is not None:
        revisions = revisions.filter(judgment__topic_id__in=topic_ids)
    revisions = (
        revisions.order_by("judgment_id", "version")
        .annotate(payload_of=REVISION_PAYLOAD)
        .values_list("judgment__topic_id", "judgment__assessor__username", "payload_of", "status")
    )
    payloads: dict[tuple[int, str], dict[str, Any]] = {}
    for topic, assessor, payload, status in revisions:  # the last version wins
        if status == Judgment.Status.WITHDRAWN:
            payloads.pop((topic, assessor), None)
        else:
            payloads[(topic, assessor)] = payload
    return payloads


# -- cheap facts an analysis needs before it can run (KindSpec Analysis.ready) ------------


@dataclass(frozen=True)
class CampaignFacts:
    """Counts that tell whether an analysis can run, read with a few small queries."""

    judgments: int  #: the people's judgments that count (submitted or reopened; submitted_judgments)
    most_per_topic: int  #: the most counting judgments any one topic has
    runs: int
    curations: dict[str, int]  #: curation name -> topics that have one
    campaign: Campaign

    def runs_with(self, key: str) -> int:
        """Runs whose data has the top-level ``key`` (e.g. a kind's ranked results)."""
        return self.campaign.runs.filter(data__has_key=key).count()


def campaign_facts(campaign: Campaign) -> CampaignFacts:
    counting = Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING).exclude(
        assessor_id__in=judges_of.left_out(campaign)
    )
    per_topic = counting.values("topic_id").annotate(n=Count("id")).order_by("-n").values_list("n", flat=True)[:1]
    curations = dict(
        Curation.objects.filter(topic__campaign=campaign)
        .values("name")
        .annotate(n=Count("id"))
        .values_list("name", "n")
    )
    return CampaignFacts(
        judgments=counting.count(),
        most_per_topic=next(iter(per_topic), 0),
        runs=campaign.runs.count(),
        curations=curations,
        campaign=campaign,
    )


@dataclass(frozen=True)
class ReportInput:
    """Everything a kind's reports and analyses read, assembled by :func:`report_input`.

    The builders are pure functions of it: they never query the database.
    ``judgments`` are the people's (:func:`submitted_judgments`: the model judges' too
    when the campaign counts them with the people's); ``judge_judgments`` the model
    judges' (annotate/judges.py), whether or not they count, for a kind whose report
    tests them (``Reports.model_judges``). ``curations`` maps (topic id, name) to a
    curation's data; ``phases`` maps a phase to (topic id, assessor) -> the payload
    submitted in it (see :func:`phase_payloads`; only campaigns that have phases have them).
    ``draws`` maps (topic id, assessor) to the probability each item of their assignment was
    drawn with (``Assignment.draws``: a kind's allocation on request), for the assignments that
    have them. ``controls`` maps a topic id to its control items' known answers, item -> answer
    (``annotate.models.Control``: the truth models hold it fixed, the accuracy tables report
    the control items apart); never shown to an assessor.
    """

    campaign: Campaign
    topics: list[Topic]
    judgments: list[JudgmentRow]
    runs: list[Run]
    curations: Mapping[tuple[int, str], Any] = field(default_factory=dict)
    phases: Mapping[int, Mapping[tuple[int, str], dict[str, Any]]] = field(default_factory=dict)
    judge_judgments: list[JudgmentRow] = field(default_factory=list)
    draws: Mapping[tuple[int, str], Mapping[str, float]] = field(default_factory=dict)
    controls: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def controls_of(self, topic: Topic) -> dict[str, Any]:
        """The known answers of ``topic``'s control items, item -> answer (empty: not a control topic)."""
        return dict(self.controls.get(topic.pk, {}))

    def draws_of(self, topic: Topic, assessor: str) -> Mapping[str, float]:
        """The probability each item of ``assessor``'s assignment of ``topic`` was drawn with
        (empty: its items were not drawn, e.g. assigned up front or imported)."""
        return self.draws.get((topic.pk, assessor), {})

    def judgments_of(self, topic: Topic) -> list[JudgmentRow]:
        return self._by_topic().get(topic.pk, [])

    def judge_judgments_of(self, topic: Topic) -> list[JudgmentRow]:
        """The model judges' counting judgments of ``topic``."""
        return self._by_topic(judges=True).get(topic.pk, [])

    def held(self, topic: Topic | None = None, *, model_judges: bool = False) -> int:
        """How many judgments a figure of ``topic`` (None: of the campaign) rests on: the
        people's, and with ``model_judges`` the model judges' that are not among them (a
        report that reads ``judge_judgments`` too: ``Reports.model_judges``). What a stored
        report or partial says it was computed from (``TopicPartial.judgments``,
        ``Report.judgments_seen``)."""
        people = self.judgments if topic is None else self.judgments_of(topic)
        if not model_judges:
            return len(people)
        judges = self.judge_judgments if topic is None else self.judge_judgments_of(topic)
        counted = {(row.topic_id, row.assessor) for row in people}
        return len(people) + sum((row.topic_id, row.assessor) not in counted for row in judges)

    def curation(self, topic: Topic, name: str) -> Any | None:
        """The data of ``topic``'s curation ``name``, or None."""
        return self.curations.get((topic.pk, name))

    def phase_payloads(self, phase: int) -> Mapping[tuple[int, str], dict[str, Any]]:
        return self.phases.get(phase, {})

    def phase_payloads_of(self, phase: int, topic: Topic) -> Mapping[str, dict[str, Any]]:
        """Assessor -> the payload submitted in ``phase`` of ``topic`` (:meth:`phase_payloads`
        grouped by topic once, so that each topic's report reads its own, not every topic's)."""
        key = f"_phase_{phase}_by_topic"
        grouped = self.__dict__.get(key)
        if grouped is None:
            grouped = {}
            for (topic_id, assessor), payload in self.phase_payloads(phase).items():
                grouped.setdefault(topic_id, {})[assessor] = payload
            object.__setattr__(self, key, grouped)
        return grouped.get(topic.pk, {})

    def _by_topic(self, *, judges: bool = False) -> dict[int, list[JudgmentRow]]:
        key = "_grouped_judges" if judges else "_grouped"
        cached = self.__dict__.get(key)
        if cached is None:
            cached = {}
            for row in self.judge_judgments if judges else self.judgments:
                cached.setdefault(row.topic_id, []).append(row)
            object.__setattr__(self, key, cached)
        return cached


def report_input(campaign: Campaign, *, topic_ids: list[int] | None = None) -> ReportInput:
    """The one read behind every report and analysis of ``campaign``: its
    topics in order, the people's submitted judgments and the model judges',
    runs, curations and phase payloads.

    ``topic_ids``: only those topics and what is theirs (the runs are whole),
    for an incremental recompute of a few topics (scoring/partials.py)."""
    topics = campaign.topics.order_by("position", "id")
    curations = Curation.objects.filter(topic__campaign=campaign)
    if topic_ids is not None:
        topics = topics.filter(pk__in=topic_ids)
        curations = curations.filter(topic_id__in=topic_ids)
    topics = list(topics)
    for topic in topics:
        topic.campaign = campaign  # builders read the campaign's params through it: no query each
    judgments = submitted_judgments(campaign, topic_ids=topic_ids)
    curations = {(topic_id, name): data for topic_id, name, data in curations.values_list("topic_id", "name", "data")}
    current = {(row.topic_id, row.assessor): row.payload for row in judgments}
    # Phase 1's payloads differ from the current ones only once a second phase has started.
    first = phase_payloads(campaign, 1, topic_ids=topic_ids) if campaign.params.get("phase2_started_at") else current
    drawn = Assignment.objects.filter(topic__campaign=campaign, draws__isnull=False)
    controls = Control.objects.filter(topic__campaign=campaign)
    if topic_ids is not None:
        drawn = drawn.filter(topic_id__in=topic_ids)
        controls = controls.filter(topic_id__in=topic_ids)
    return ReportInput(
        campaign,
        topics,
        judgments,
        campaign_runs(campaign),
        curations,
        {1: first, 2: current},
        submitted_judgments(campaign, topic_ids=topic_ids, model_judges=True),
        {
            (topic_id, assessor): draws
            for topic_id, assessor, draws in drawn.values_list("topic_id", "assessor__username", "draws")
        },
        controls=_controls(controls),
    )


#: Per process, the runs of the campaigns whose reports it built last: (id, import time) -> data.
#: A run is never changed once imported (an import adds a new row, a deletion removes it; the
#: admin shows it read only), so a worker decodes a campaign's runs once, not at every rebuild
#: (at 10,000 topics a relevance run is megabytes of JSON: most of a rebuild's CPU). The data
#: is shared between rebuilds and read only (tests/scoring/test_run_data.py checks every kind
#: leaves it as stored). At most RUNS_CAMPAIGNS campaigns' runs are kept: a worker holds one
#: campaign's during each rebuild anyway.
_run_data: OrderedDict[int, dict[tuple[int, datetime], Any]] = OrderedDict()
_run_data_lock = threading.Lock()
RUNS_CAMPAIGNS = 4


def campaign_runs(campaign: Campaign) -> list[Run]:
    """The campaign's runs in name order, their data decoded once per process (:data:`_run_data`):
    one query for their ids, names and times, and one for the data of those not decoded yet."""
    heads = list(Run.objects.filter(campaign=campaign).order_by("name").values_list("pk", "name", "created_at"))
    with _run_data_lock:
        kept = dict(_run_data.get(campaign.pk, {}))
    missing = [pk for pk, _, at in heads if (pk, at) not in kept]
    if missing:
        for pk, at, data in Run.objects.filter(pk__in=missing).values_list("pk", "created_at", "data"):
            kept[(pk, at)] = data
    runs = [
        Run(pk=pk, campaign=campaign, name=name, data=kept[(pk, at)], created_at=at)
        for pk, name, at in heads
        if (pk, at) in kept  # deleted between the two queries: not a run of the campaign now
    ]
    with _run_data_lock:
        _run_data[campaign.pk] = {(run.pk, run.created_at): run.data for run in runs}
        _run_data.move_to_end(campaign.pk)
        while len(_run_data) > RUNS_CAMPAIGNS:
            _run_data.popitem(last=False)
    return runs


def _controls(controls) -> dict[int, dict[str, Any]]:
    """Topic id -> its control items' known answers (item -> answer)."""
    found: dict[int, dict[str, Any]] = {}
    for topic_id, item, answer in controls.values_list("topic_id", "item", "answer"):
        found.setdefault(topic_id, {})[item] = answer
    return found


# -- what an analysis changes on its campaign (Analysis.apply) ----------------------------


@dataclass(frozen=True)
class ParamChange:
    """One campaign parameter an applied (or proposed) analysis result changes; ``field``
    is its dotted path (``frespa.min_sup``), ``before``/``after`` None when absent."""

    field: str
    before: Any
    after: Any


def flat_params(params: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    """Nested params as dotted path -> leaf value (a list is one leaf)."""
    flat: dict[str, Any] = {}
    for key, value in (params or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flat_params(value, f"{path}."))
        else:
            flat[path] = value
    return flat


def param_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[ParamChange]:
    """The leaves that differ between two params, in path order."""
    old, new = flat_params(before), flat_params(after)
    return [
        ParamChange(path, old.get(path), new.get(path))
        for path in sorted(old.keys() | new.keys())
        if old.get(path) != new.get(path)
    ]


def proposed_params(job: Job) -> dict[str, Any] | None:
    """The campaign params ``job``'s result would give the campaign now (its
    analysis's ``apply``), or None: the analysis changes nothing or has no result."""
    analysis = get_kind(job.campaign.kind).analysis(job.analysis)
    if analysis is None or analysis.apply is None or job.status != Job.Status.DONE or not job.result:
        return None
    return analysis.apply(job.campaign.params, job.result)


def proposed_changes(job: Job) -> list[ParamChange] | None:
    """What applying ``job`` would change on its campaign now ([] nothing), or None
    (nothing to apply)."""
    proposed = proposed_params(job)
    return None if proposed is None else param_changes(job.campaign.params, proposed)


@dataclass(frozen=True)
class AppliedChange:
    """An analysis result applied to its campaign, for the campaign page."""

    job: Job
    changes: list[ParamChange]
    #: why it cannot be reverted (the params changed since), or None
    stale: str | None


def revert_refusal(job: Job, params: Mapping[str, Any]) -> InvalidInput | None:
    """Why ``job``'s applied change cannot be reverted on ``params`` (the campaign's
    params now): a field it changed has another value since. None: it can."""
    now = flat_params(params)
    for change in param_changes(job.params_before, job.params_after):
        if now.get(change.field) != change.after:
            return InvalidInput(
                f"params.{change.field}",
                f"changed since job {job.pk} was applied (it set {change.after!r}, it is {now.get(change.field)!r} "
                "now): not reverted; change it back on the campaign instead",
            )
    return None


def applied_changes(campaign: Campaign) -> list[AppliedChange]:
    """The analysis results applied to ``campaign`` and not reverted, newest first."""
    jobs = Job.objects.filter(campaign=campaign, applied_at__isnull=False, reverted_at__isnull=True).select_related(
        "applied_by"
    )
    listing = []
    for job in jobs.order_by("-applied_at", "-id")[:20]:
        refusal = revert_refusal(job, campaign.params)
        listing.append(
            AppliedChange(job, param_changes(job.params_before, job.params_after), refusal.message if refusal else None)
        )
    return listing
