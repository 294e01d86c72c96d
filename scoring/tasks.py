"""Background tasks (Django's tasks API). Thin: the work is in scoring/jobs.py.

The import goes one way, tasks -> jobs: a job that splits into chunks is
handed the chunk task's ``enqueue`` rather than importing this module.
"""

from __future__ import annotations

from django_tasks import task

from scoring import jobs


@task()
def recompute_campaign_reports(campaign_id: int) -> None:
    jobs.recompute_reports(campaign_id)


@task()
def run_analysis(job_id: int) -> None:
    jobs.run_job(job_id, enqueue_chunk=run_analysis_chunk.enqueue)


@task()
def run_analysis_chunk(job_id: int, index: int) -> None:
    jobs.run_chunk(job_id, index)


@task()
def combine_analysis_chunks(job_id: int) -> None:
    """Queued only by recovery: the last chunk's worker normally combines."""
    jobs.combine_chunks(job_id)
