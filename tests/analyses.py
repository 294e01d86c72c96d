"""Analyses the tests run as jobs, and figures worked out by hand to check them against."""

from __future__ import annotations

from scoring import services as scoring_services
from scoring.models import Job


def run_analysis(campaign, analysis: str, params: dict, capture) -> Job:
    """Runs ``analysis`` as a job now (``capture``: pytest-django's
    ``django_capture_on_commit_callbacks``) and returns it, finished."""
    with capture(execute=True):
        job = scoring_services.start_analysis(campaign=campaign, analysis=analysis, params=params, user=None)
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done", job.message
    return job


def crossing_by_hand(sizes, values, level) -> dict:
    """Where a curve crosses ``level``, worked out by hand: the first size at or above
    the level, linear from the one before (``stats.crossing`` computes it vectorised)."""
    points = [(n, v) for n, v in zip(sizes, values) if v is not None]
    for i, (n, v) in enumerate(points):
        if v >= level:
            if i == 0:
                return {"at": float(n), "within": points[-1][0]}
            n0, v0 = points[i - 1]
            return {"at": n0 + (level - v0) * (n - n0) / (v - v0), "within": points[-1][0]}
    return {"at": None, "within": points[-1][0]}
