"""Background tasks (Django's tasks API). Thin: the work is in services."""

from __future__ import annotations

from django_tasks import task

from scoring import services


@task()
def recompute_campaign_reports(campaign_id: int) -> None:
    services.recompute_reports(campaign_id)


@task()
def run_analysis(job_id: int) -> None:
    services.run_job(job_id)


@task()
def run_analysis_chunk(job_id: int, index: int) -> None:
    services.run_chunk(job_id, index)


@task()
def combine_analysis_chunks(job_id: int) -> None:
    """Queued only by recovery: the last chunk's worker normally combines."""
    services.combine_chunks(job_id)
