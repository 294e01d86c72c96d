"""Organiser and admin pages: the live report, analyses and exports."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import selectors
from concord import paramforms
from concord.errors import InvalidInput
from concord.security import message_page
from kinds.registry import get_kind
from scoring import selectors as scoring_selectors
from scoring import services
from scoring.downloads import export_choices, export_file
from scoring.models import Job


def refused(request: HttpRequest, error: InvalidInput, *, back: tuple[str, str]) -> HttpResponse:
    """A 400 page for bad input: the field and message (which may quote what
    the user sent) rendered through an escaping template, never as raw HTML."""
    return message_page(request, "Bad request", f"{error.field}: {error.message}", status=400, link=back)


def job_for(request: HttpRequest, job_id: int) -> Job:
    """A job of a campaign the user organises. A missing job and one of a
    campaign the user is not in read the same (the 404 page says so)."""
    job = Job.objects.select_related("campaign").filter(pk=job_id).first()
    try:
        if job is None:
            raise Http404
        selectors.campaign_for(request.user, job.campaign_id, need="organise")
    except Http404:
        raise Http404(f"No job {job_id}, or you are not a member of its campaign.") from None
    return job


@login_required
def report(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The live agreement report: a fragment the campaign page polls."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    return render(
        request,
        get_kind(campaign.kind).reports.template,
        {"campaign": campaign, "kind": get_kind(campaign.kind), "report": scoring_selectors.campaign_report(campaign)},
    )


@login_required
def topic_report(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    return render(
        request,
        "scoring/topic_report.html",
        {
            "campaign": campaign,
            "kind": get_kind(campaign.kind),
            "topic": topic,
            "report": scoring_selectors.topic_report(topic),
            "refresh_ms": settings.CONCORD_REFRESH_MS,
        },
    )


@login_required
@require_POST
def start_analysis(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    name = request.POST.get("analysis", "")
    schema = services.analysis_schemas(campaign.kind).get(name)
    try:
        params = paramforms.read(schema, request.POST) if schema is not None else None
        job = services.start_analysis(campaign=campaign, analysis=name, params=params, user=request.user)
    except InvalidInput as error:
        return refused(request, error, back=("Back to the campaign", reverse("campaign", args=[campaign.pk])))
    # The job's own page: its progress at once, its result when done (not the campaign page's top).
    return redirect("job", job_id=job.pk)


@login_required
def jobs(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    return render(
        request, "scoring/jobs.html", {"campaign": campaign, "jobs": scoring_selectors.campaign_jobs(campaign)}
    )


@login_required
def job(request: HttpRequest, job_id: int) -> HttpResponse:
    job = job_for(request, job_id)
    analysis = get_kind(job.campaign.kind).analysis(job.analysis)
    # The common "agreement" analysis (recompute every report) has no kind template.
    template = analysis.template if analysis else "scoring/results/default.html"
    charts = analysis.charts(job.result) if analysis and analysis.charts and job.result else {}
    return render(
        request,
        "scoring/job.html",
        {"job": job, "campaign": job.campaign, "result_template": template, "charts": charts},
    )


@login_required
@require_POST
def cancel_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """The Cancel button beside a queued or running job (campaign page, job page)."""
    job = job_for(request, job_id)
    try:
        services.cancel_job(job=job, user=request.user)
    except InvalidInput as error:
        return refused(request, error, back=("Back to the campaign", reverse("campaign", args=[job.campaign_id])))
    if request.POST.get("next") == "job":
        return redirect("job", job_id=job.pk)
    return redirect("campaign", campaign_id=job.campaign_id)


@login_required
def export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="admin")
    formats, truths, help_text = export_choices(campaign)
    return render(
        request, "scoring/export.html", {"campaign": campaign, "formats": formats, "truths": truths, "help": help_text}
    )


@login_required
def export_download(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="admin")
    try:
        return export_file(
            campaign, format=request.GET.get("format", "csv"), truth=request.GET.get("truth", "consensus")
        )
    except InvalidInput as error:
        return refused(request, error, back=("Back to the export page", reverse("campaign-export", args=[campaign.pk])))
