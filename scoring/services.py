"""Writes for scoring: marking topics stale, recomputing stored reports, jobs.

Live scoring: a submission marks its topic stale and, once committed, asks
for a recompute. A campaign has at most one recompute queued at a time
(``ScoringState.pending``); submissions that arrive while it waits ride along
with it, so a burst of N submissions costs one or two recomputes, not N.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from annotate.models import Campaign, Judgment, Topic
from scoring.models import Job, JobChunk, Report, ScoringState, StaleTopic
from scoring.reports import json_ready, report_module
from scoring.selectors import submitted_judgments

log = logging.getLogger(__name__)
Progress = Callable[[float, str], None]


def mark_stale(topic: Topic, revision_id: int) -> None:
    """Call inside the transaction that changed a judgment of ``topic``."""
    StaleTopic.objects.bulk_create(
        [StaleTopic(campaign_id=topic.campaign_id, topic=topic, revision=revision_id, marked_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["topic"],
        update_fields=["revision", "marked_at"],
    )
    campaign_id = topic.campaign_id
    transaction.on_commit(lambda: request_recompute(campaign_id))


def mark_all_stale(campaign: Campaign) -> None:
    """After a bulk import (judgments, runs): every topic of ``campaign`` needs a new report."""
    newest = Judgment.objects.filter(topic__campaign=campaign).aggregate(v=Max("revisions__id"))["v"] or 0
    now = timezone.now()
    StaleTopic.objects.bulk_create(
        [
            StaleTopic(campaign=campaign, topic_id=t, revision=newest, marked_at=now)
            for t in campaign.topics.values_list("id", flat=True)
        ],
        update_conflicts=True,
        unique_fields=["topic"],
        update_fields=["revision", "marked_at"],
    )
    transaction.on_commit(lambda: request_recompute(campaign.pk))


def request_recompute(campaign_id: int) -> bool:
    """Queue a recompute unless one is already queued. True if one was queued."""
    from scoring.tasks import recompute_campaign_reports

    ScoringState.objects.get_or_create(campaign_id=campaign_id)
    claimed = ScoringState.objects.filter(campaign_id=campaign_id, pending=False).update(
        pending=True, requested_at=timezone.now()
    )
    if claimed:
        recompute_campaign_reports.enqueue(campaign_id)
    return bool(claimed)


def recompute_reports(campaign_id: int, *, everything: bool = False, progress: Progress | None = None) -> int:
    """Recompute the reports of the stale topics (or all) and of the campaign.

    Returns the number of topic reports written.
    """
    # Cleared first: a submission from now on queues a fresh recompute, so
    # none can fall between what this run reads and the end of the run.
    ScoringState.objects.filter(campaign_id=campaign_id).update(pending=False)
    campaign = Campaign.objects.get(pk=campaign_id)
    module = report_module(campaign.kind)
    marks = {
        topic_id: (revision, marked_at)
        for topic_id, revision, marked_at in StaleTopic.objects.filter(campaign=campaign).values_list(
            "topic_id", "revision", "marked_at"
        )
    }
    topics = {t.pk: t for t in campaign.topics.all()}
    wanted = sorted(topics) if everything else sorted(marks)
    judgments = submitted_judgments(campaign)
    runs = list(campaign.runs.all())
    by_topic: dict[int, list] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    now = timezone.now()
    topic_reports = []
    for done, topic_id in enumerate(wanted, 1):
        rows = by_topic.get(topic_id, [])
        data = json_ready(module.topic_report(topics[topic_id], rows, runs=runs))
        topic_reports.append((topic_id, data, len(rows)))
        if progress and (done % 50 == 0 or done == len(wanted)):
            progress(0.9 * done / len(wanted), f"{done} of {len(wanted)} topics")
    campaign_data = json_ready(module.campaign_report(campaign, list(topics.values()), judgments, runs=runs))
    with transaction.atomic():
        for topic_id, data, seen in topic_reports:
            _store(campaign, topics[topic_id], data, seen, now)
        _store(campaign, None, campaign_data, len(judgments), now)
        for topic_id, (revision, marked_at) in marks.items():
            StaleTopic.objects.filter(topic_id=topic_id, revision=revision, marked_at=marked_at).delete()
    if progress:
        progress(1.0, "reports stored")
    return len(topic_reports)


def _store(campaign: Campaign, topic: Topic | None, data: dict, seen: int, now) -> None:
    Report.objects.update_or_create(
        campaign=campaign,
        topic=topic,
        name="agreement",
        defaults={"data": data, "computed_at": now, "judgments_seen": seen},
    )


# -- jobs: long analyses with progress ----------------------------------------

#: Analyses every kind offers; kinds add theirs in their module's ANALYSES.
COMMON_ANALYSES = ("agreement",)


def analyses_for(campaign: Campaign) -> list[str]:
    return [*COMMON_ANALYSES, *getattr(report_module(campaign.kind), "ANALYSES", {})]


def start_analysis(*, campaign: Campaign, analysis: str, params: dict | None, user) -> Job:
    from annotate.kinds import InvalidInput
    from scoring.tasks import run_analysis

    if analysis not in analyses_for(campaign):
        raise InvalidInput("analysis", f"unknown analysis {analysis!r} (known: {', '.join(analyses_for(campaign))})")
    if params is not None and not isinstance(params, dict):
        raise InvalidInput("params", "expected an object")
    job = Job.objects.create(campaign=campaign, analysis=analysis, params=params or {}, created_by=user)
    transaction.on_commit(lambda: run_analysis.enqueue(job.pk))
    return job


@dataclass(frozen=True)
class Chunked:
    """What an analysis returns to continue as chunks that any number of
    workers run: the data they share, and each chunk's parameters. The
    kind's module gives ``CHUNKS[analysis] = (run_chunk, combine)`` with
    ``run_chunk(snapshot, params) -> dict`` and
    ``combine(snapshot, [chunk results in index order]) -> dict``."""

    snapshot: dict
    chunks: list[dict]


def run_job(job_id: int) -> None:
    job = Job.objects.select_related("campaign").get(pk=job_id)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now(), progress=0.0)

    def progress(fraction: float, message: str) -> None:
        Job.objects.filter(pk=job.pk).update(progress=round(min(max(fraction, 0.0), 1.0), 4), message=message[:500])

    with _failures_recorded(job.pk):
        if job.analysis == "agreement":
            written = recompute_reports(job.campaign_id, everything=True, progress=progress)
            result = {"topic_reports": written}
        else:
            analysis = report_module(job.campaign.kind).ANALYSES[job.analysis]
            result = analysis(job.campaign, job.params, progress)
        if isinstance(result, Chunked):
            _split(job, result)
            return
        _finish(job.pk, json_ready(result))


def _split(job: Job, plan: Chunked) -> None:
    from scoring.tasks import run_analysis_chunk

    with transaction.atomic():
        Job.objects.filter(pk=job.pk).update(
            snapshot=json_ready(plan.snapshot), chunks_total=len(plan.chunks), chunks_done=0,
            message=f"0 of {len(plan.chunks)} chunks",
        )
        JobChunk.objects.bulk_create(JobChunk(job=job, index=i, params=p) for i, p in enumerate(plan.chunks))
        for index in range(len(plan.chunks)):
            transaction.on_commit(lambda index=index: run_analysis_chunk.enqueue(job.pk, index))


def run_chunk(job_id: int, index: int) -> None:
    """Run one chunk; the worker that finishes the last one combines them."""
    job = Job.objects.select_related("campaign").get(pk=job_id)
    chunk = JobChunk.objects.get(job=job, index=index)
    if chunk.finished_at is not None:  # a retried task: the work is done
        return
    run, combine = report_module(job.campaign.kind).CHUNKS[job.analysis]
    with _failures_recorded(job.pk):
        result = json_ready(run(job.snapshot, chunk.params))
        with transaction.atomic():
            claimed = JobChunk.objects.filter(pk=chunk.pk, finished_at=None).update(result=result, finished_at=timezone.now())
            if not claimed:
                return
            Job.objects.filter(pk=job.pk).update(chunks_done=F("chunks_done") + 1)
            done = Job.objects.values_list("chunks_done", flat=True).get(pk=job.pk)
            Job.objects.filter(pk=job.pk).update(
                progress=round(0.98 * done / job.chunks_total, 4), message=f"{done} of {job.chunks_total} chunks"
            )
        if done == job.chunks_total:
            results = list(JobChunk.objects.filter(job=job).order_by("index").values_list("result", flat=True))
            _finish(job.pk, json_ready(combine(job.snapshot, results)))


def _finish(job_id: int, result: dict) -> None:
    Job.objects.filter(pk=job_id).update(
        status=Job.Status.DONE, progress=1.0, result=result, finished_at=timezone.now(), message="done"
    )


@contextmanager
def _failures_recorded(job_id: int):
    try:
        yield
    except Exception as error:  # the job records the failure; the worker logs it
        log.exception("job %s failed", job_id)
        Job.objects.filter(pk=job_id).update(
            status=Job.Status.FAILED, finished_at=timezone.now(), message=f"{type(error).__name__}: {error}"[:500]
        )
        raise
