"""Background tasks (Django's tasks API). Thin: the work is in scoring/jobs.py.

The import goes one way, tasks -> jobs: a job that splits into chunks is
handed the chunk task's ``enqueue`` rather than importing this module.
"""

from __future__ import annotations

from django_tasks import task

from scoring import jobs, schedule

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
    busy = schedule.hold(campaign_id)
    if busy is not None:  # another worker rebuilds it now: after that one
        schedule.deferred(recompute_campaign_reports, busy).enqueue(campaign_id)
        return
    try:
        jobs.recompute_reports(campaign_id)
    finally:
        schedule.finished(campaign_id)


def enqueue_recompute(campaign_id: int, not_before=None) -> None:
    """Queue a rebuild of the campaign, to run no sooner than ``not_before``."""
    schedule.deferred(recompute_campaign_reports, not_before).enqueue(campaign_id)


@task(queue_name=ANALYSES)
def run_analysis(job_id: int) -> None:
    jobs.run_job(job_id, enqueue_chunk=run_analysis_chunk.enqueue)


@task(queue_name=ANALYSES)
def run_analysis_chunk(job_id: int, index: int) -> None:
    jobs.run_chunk(job_id, index)


@task(queue_name=ANALYSES)
def combine_analysis_chunks(job_id: int) -> None:
    """Queued only by recovery: the last chunk's worker normally combines."""
    jobs.combine_chunks(job_id)
