"""Organiser and admin pages: the live report, analyses and exports."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import selectors
from concord import paramforms, typed
from concord.digits import whole_number
from concord.errors import InvalidInput, LimitReached
from concord.security import message_page
from kinds.registry import get_kind
from scoring import charts as chart_specs
from scoring import live, services
from scoring import selectors as scoring_selectors
from scoring.csvfiles import write_csv
from scoring.downloads import export_file, export_groups
from scoring.filenames import attach, download_name
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
    """The live agreement report: a fragment the campaign page polls, with an ETag; polling it
    with ``If-None-Match`` while the report is unchanged is a 304 after one query (scoring/live.py)."""
    tag = live.current_etag(request.user, campaign_id)
    if live.matches(request, tag):
        return live.not_modified(tag)
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    response = render(
        request,
        "scoring/report_fragment.html",
        {
            "campaign": campaign,
            "kind": get_kind(campaign.kind),
            "report": live.campaign_report(campaign, tag),
            "history": live.campaign_history(campaign, tag),
            "building": scoring_selectors.build_progress(campaign),
            # The Report section's capped tables: every row of the one the page asked for (?all=).
            "section": "report",
            "show_all": request.GET.get("all", ""),
        },
    )
    return live.tagged(response, tag)


@login_required
def topic_report(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    # Computed when read (scoring.selectors.topic_report): the page's polls answer 304 while
    # nothing it is computed from changed, and a change computes it once per process.
    tag = live.topic_etag(topic)
    if live.matches(request, tag):
        return live.not_modified(tag)
    response = render(
        request,
        "scoring/topic_report.html",
        {
            "campaign": campaign,
            "kind": get_kind(campaign.kind),
            "topic": topic,
            "report": live.topic_report(topic, tag),
            "refresh_ms": settings.CONCORD_REFRESH_MS,
        },
    )
    return live.tagged(response, tag)


@login_required
@require_POST
def start_analysis(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    name = request.POST.get("analysis", "")
    schema = services.campaign_analysis_schemas(campaign).get(name)
    try:
        params = paramforms.read(schema, request.POST) if schema is not None else None
        job = services.start_analysis(campaign=campaign, analysis=name, params=params, user=request.user)
    except InvalidInput as error:
        return refused(request, error, back=("Back to the campaign", reverse("campaign", args=[campaign.pk])))
    except LimitReached as limit:
        back = ("Back to the campaign", reverse("campaign", args=[campaign.pk]))
        return message_page(request, "Too many analyses", limit.message, status=429, link=back)
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
        {
            "job": job,
            "campaign": job.campaign,
            "result_template": template,
            "charts": charts,
            # What "Apply to the campaign" would change (None: the analysis changes nothing).
            "changes": scoring_selectors.proposed_changes(job) if job.applied_at is None or job.reverted_at else None,
            "applied": scoring_selectors.param_changes(job.params_before, job.params_after) if job.applied_at else [],
        },
    )


@login_required
def apply_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """GET: what applying the job's result changes on the campaign, and a confirm
    button; POST: apply it (scoring.services.apply_job), then the campaign page."""
    job = job_for(request, job_id)
    back = reverse("job", args=[job.pk])
    if request.method == "POST":
        try:
            services.apply_job(job=job, user=request.user)
        except InvalidInput as error:
            return refused(request, error, back=("Back to the job", back))
        return redirect(reverse("campaign", args=[job.campaign_id]) + "?section=analyses#applied-changes")
    changes = scoring_selectors.proposed_changes(job)
    refusal = None
    if changes is None:
        refusal = f"Job {job.pk} ({job.analysis}, {job.status}) has no result that changes the campaign."
    elif job.applied_at is not None and job.reverted_at is None:
        refusal = f"Job {job.pk} is applied already (see the campaign page to revert it)."
    elif not changes:
        refusal = "The campaign has these values already: applying would change nothing."
    return render(
        request,
        "confirm.html",
        {
            "title": f"Apply {job.analysis} to the campaign",
            "campaign": job.campaign,
            "explanation": [
                f"Job {job.pk} proposes these parameter values. Applying them changes the campaign "
                "and recomputes every report; you can revert it from the campaign page while nobody "
                "has changed these parameters since."
            ],
            "changes": changes,
            "question": f"Apply job {job.pk}'s result to {job.campaign.name}?",
            "button": "Apply to the campaign",
            "action": reverse("job-apply", args=[job.pk]),
            "back": back,
            "refusal": refusal,
        },
    )


@login_required
@require_POST
def revert_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """The Revert button beside an applied analysis result (campaign page)."""
    job = job_for(request, job_id)
    try:
        services.revert_job(job=job, user=request.user)
    except InvalidInput as error:
        return refused(request, error, back=("Back to the campaign", reverse("campaign", args=[job.campaign_id])))
    return redirect(reverse("campaign", args=[job.campaign_id]) + "?section=analyses")


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
    return redirect(reverse("campaign", args=[job.campaign_id]) + "?section=analyses")


@login_required
def export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="admin")
    groups, help_text = export_groups(campaign)
    return render(request, "scoring/export.html", {"campaign": campaign, "groups": groups, "help": help_text})


@login_required
def export_download(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="admin")
    try:
        return export_file(
            campaign, format=request.GET.get("format", "csv"), truth=request.GET.get("truth", "consensus")
        )
    except InvalidInput as error:
        return refused(request, error, back=("Back to the export page", reverse("campaign-export", args=[campaign.pk])))


def _field(data, path: str):
    """``data.<path>`` of a typed report (dataclasses, dicts, lists by position): only public
    names, so a query can read the report's fields and nothing else."""
    value = data
    for part in path.split("."):
        index = whole_number(part)  # ASCII digits only: "²" passes isdigit() and fails int()
        if index is not None and isinstance(value, list):
            value = value[index] if index < len(value) else None
            if value is None:
                raise Http404(f"No field {path!r} in this report.")
            continue
        if not part.isidentifier() or part.startswith("_"):
            raise Http404(f"No field {path!r} in this report.")
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            raise Http404(f"No field {path!r} in this report.")
    return value


def _matrix_csv(report, request: HttpRequest, campaign, topic: str = "") -> HttpResponse:
    if report is None:
        raise Http404("No report yet.")
    names = _field(report.data, request.GET.get("names", ""))
    matrix = _field(report.data, request.GET.get("values", ""))
    if not isinstance(names, list) or not isinstance(matrix, list) or len(names) != len(matrix):
        raise Http404("That report field is not a matrix.")
    layout = request.GET.get("layout", "matrix")
    if layout == "long":
        # one row per two names, with the cell's 95% interval where the report has one
        # (a report's ``matrix_intervals(field)``: stats/intervals.py FigureCI per pair of names)
        intervals_of = getattr(report.data, "matrix_intervals", None)
        intervals = intervals_of(request.GET.get("values", "")) if callable(intervals_of) else {}
        header, rows = chart_specs.pair_rows(names, matrix, intervals)
    elif layout == "matrix":
        header, rows = chart_specs.matrix_rows(names, matrix)
    else:
        return refused(request, InvalidInput("layout", "expected matrix or long"), back=None)
    response = HttpResponse(write_csv(header, rows), content_type="text/csv; charset=utf-8")
    # The field and the layout: the matrix and its long form (one row per two names) differ.
    what = f"report-{request.GET.get('values', '')}-{layout}"
    return attach(response, download_name(campaign, what, topic=topic, extension="csv"))


@login_required
def report_matrix(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The whole assessors x assessors matrix of a campaign report's heatmap (which shows at most
    ``scoring.charts.HEATMAP_LIMIT`` assessors) as CSV: ``?names=<field>&values=<field>``."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    return _matrix_csv(scoring_selectors.campaign_report(campaign), request, campaign)


def _flat(value, prefix: str, row: dict) -> None:
    """``value`` (dumped: dicts, lists, scalars) as ``row[dotted path] = scalar``."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _flat(inner, f"{prefix}.{key}" if prefix else str(key), row)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            _flat(inner, f"{prefix}.{i}" if prefix else str(i), row)
    else:
        row[prefix or "value"] = value


@login_required
def report_table(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Every row of a list in the campaign report as CSV, ``?rows=<field>`` (e.g. ``pairs``): the
    full table behind a report table the live fragment caps (``{% capped %}``, scoring_tags);
    nested fields become dotted columns (``assessors.0``, ``kappa_ci.low``)."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    report = scoring_selectors.campaign_report(campaign)
    if report is None:
        raise Http404("No report yet.")
    path = request.GET.get("rows", "")
    if path == TOPIC_ROWS and get_kind(campaign.kind).reports.topic_rows is not None:
        return attach(_topic_rows_csv(campaign, report), download_name(campaign, f"report-{path}", extension="csv"))
    items = _field(report.data, path)
    if not isinstance(items, list):
        raise Http404(f"No list {path!r} in this report.")
    rows, header = [], {}
    for item in typed.dump(items):
        row: dict = {}
        _flat(item, "", row)
        rows.append(row)
        header.update(dict.fromkeys(row))
    columns = list(header)
    response = HttpResponse(
        write_csv(columns, ([row.get(c) for c in columns] for row in rows)), content_type="text/csv; charset=utf-8"
    )
    return attach(response, download_name(campaign, f"report-{path}", extension="csv"))


#: ``?rows=`` of the report's per-topic list, read from the topics' partials (``Reports.topic_rows``).
TOPIC_ROWS = "topics"
#: How many times the per-topic CSV reads the report and its rows again when a rebuild stored
#: another report between the two reads.
_ROWS_ATTEMPTS = 3


def _topic_rows_csv(campaign, report) -> HttpResponse:
    """Every row of the report's per-topic list as CSV, read in one statement with the report
    they belong to (``scoring.selectors.topic_rows``): read again, with the report stored since,
    when a rebuild came between; a 503 if rebuilds keep coming (a try later gets them)."""
    for _ in range(_ROWS_ATTEMPTS):
        page = scoring_selectors.topic_rows(campaign, report, limit=None)
        if page.belongs_to(report):
            break
        report = scoring_selectors.campaign_report(campaign)
    else:
        response = HttpResponse("The report is being rebuilt: try again in a few seconds.", status=503)
        response["Retry-After"] = "5"
        return response
    rows, header = [], {}
    for item in typed.dump(page.rows):
        row: dict = {}
        _flat(item, "", row)
        rows.append(row)
        header.update(dict.fromkeys(row))
    columns = list(header)
    response = HttpResponse(
        write_csv(columns, ([row.get(c) for c in columns] for row in rows)), content_type="text/csv; charset=utf-8"
    )
    response["X-Report-Computed-At"] = report.computed_at.isoformat()
    return response


@login_required
def topic_report_matrix(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    return _matrix_csv(live.topic_report(topic, live.topic_etag(topic)), request, campaign, topic.external_id)
