"""Background tasks (Django's tasks API). Thin: the work is in scoring/jobs.py.

The import goes one way, tasks -> jobs: a job that splits into chunks is
handed the chunk task's ``enqueue`` rather than importing this module.
"""

from __future__ import annotations

from contextlib import contextmanager

from django.db import transaction
from django_tasks import task

from concord.busy import Patience
from scoring import dispatch, jobs, progress_sums, schedule
from scoring.models import Job

#: The analyses organisers run (and their chunks) queue apart from the live
#: report rebuilds, with a worker of their own (settings.TASK_QUEUES, ./run).
ANALYSES = "analyses"


@task()
def recompute_campaign_reports(campaign_id: int) -> None:
    """A rebuild of the campaign's reports; picked up sooner than the minimum
    interval after the previous one, it queues itself for then instead (scoring/schedule.py)."""
    wait = schedule.too_soon(campaign_id)
    task = schedule.deferred(recompute_campaign_reports, wait)
    if wait is not None and task is not recompute_campaign_reports:
        task.enqueue(campaign_id)  # the campaign's flag stays set: nothing else queues one meanwhile
        return
    if schedule.importing(campaign_id):  # half written: the import queues the rebuild when done
        return
    busy = schedule.hold(campaign_id)
    if busy is not None:  # another worker rebuilds it now: after that one
        schedule.deferred(recompute_campaign_reports, busy).enqueue(campaign_id)
        return
    split = False
    try:
        chunks = jobs.build_chunks(campaign_id)
        split = bool(chunks) and _split_build(campaign_id, chunks)
        if split:
            jobs.store_progress(campaign_id)  # the summary reads them while the chunks build
        else:
            jobs.recompute_reports(campaign_id)
            when = jobs.fits_refresh_at(campaign_id, can_wait=refresh_report_fits.get_backend().supports_defer)
            if when is not None:
                schedule.deferred(refresh_report_fits, when).enqueue(campaign_id)
    finally:
        # However busy the database: a hold left in place would keep the
        # campaign's next rebuild (the retry of this one, too) waiting for the lease.
        # A split build keeps it: its chunks hand it on (scoring/schedule.py).
        if not split:
            Patience(f"ending the rebuild of campaign {campaign_id}").call(lambda: schedule.finished(campaign_id))


def _split_build(campaign_id: int, chunks: list[list[int]]) -> bool:
    """Queue one task per chunk of the held campaign's stale topics (after the split commits)."""
    with transaction.atomic():
        build = schedule.current_build(campaign_id)
        if not schedule.split(campaign_id, build, len(chunks)):
            return False
        # the chunks clear the stale marks without counting progress: the rebuild after them counts
        # it in full (asked here, before any chunk can run: a queue that runs a task as it is
        # enqueued runs them all, and that rebuild, on this commit)
        progress_sums.recount_wanted(campaign_id)
        chunk = schedule.behind(build_reports_chunk)
        for topic_ids in chunks:
            transaction.on_commit(lambda topic_ids=topic_ids: chunk.enqueue(campaign_id, build, topic_ids))
    return True


@task()
def build_reports_chunk(campaign_id: int, build: int, topic_ids: list[int]) -> None:
    """One chunk of a campaign's split build (scoring/schedule.py, "Chunked builds");
    the last one queues the rebuild that merges the campaign report."""
    left = jobs.build_chunk(campaign_id, topic_ids, count=lambda: schedule.chunk_done(campaign_id, build))
    if left == 0:
        Patience(f"handing on the build of campaign {campaign_id}").call(lambda: schedule.handed_over(campaign_id))
        enqueue_recompute(campaign_id)


@task(queue_name=ANALYSES)
def refresh_report_fits(campaign_id: int) -> None:
    """The costly figures of a campaign report kept by running sums (scoring/sums.py), on the
    analyses' worker so that the live rebuilds go on meanwhile; then the rebuild that takes them up."""
    if not jobs.take_fits_refresh(campaign_id):
        return  # replaced by one queued since
    if jobs.refresh_fits(campaign_id):
        with transaction.atomic():
            schedule.claim(campaign_id, enqueue_recompute)


def enqueue_recompute(campaign_id: int, not_before=None) -> None:
    """Queue a rebuild of the campaign, to run no sooner than ``not_before``."""
    schedule.deferred(recompute_campaign_reports, not_before).enqueue(campaign_id)


def dispatch_analyses(campaign_id: int) -> dispatch.Turn:
    """Queue the campaign's next analysis work whose turn it is (scoring/dispatch.py)."""
    return dispatch.dispatch(campaign_id, start=run_analysis.enqueue, chunk=run_analysis_chunk.enqueue)


@contextmanager
def _then_the_next_turn(job_id: int):
    """However an analysis task ends, its campaign's next waiting work joins the queue."""
    try:
        yield
    finally:
        campaign_id = Job.objects.filter(pk=job_id).values_list("campaign_id", flat=True).first()
        if campaign_id is not None:
            dispatch_analyses(campaign_id)


@task(queue_name=ANALYSES)
def run_analysis(job_id: int) -> None:
    with _then_the_next_turn(job_id):
        jobs.run_job(job_id, dispatch=dispatch_analyses)


@task(queue_name=ANALYSES)
def run_analysis_chunk(job_id: int, index: int) -> None:
    with _then_the_next_turn(job_id):
        jobs.run_chunk(job_id, index)


@task(queue_name=ANALYSES)
def combine_analysis_chunks(job_id: int) -> None:
    """Queued only by recovery: the last chunk's worker normally combines."""
    with _then_the_next_turn(job_id):
        jobs.combine_chunks(job_id)
