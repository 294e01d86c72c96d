"""The pages that read both what annotate stores and what scoring computes.

The home page, the organiser's campaign page (its sections: summary, report,
progress, flags, analyses), the topic table (Assignments) and the adjudication
queue and page: each sorts or sums by the figures scoring keeps (a topic's
disagreement, the headline, the stored progress counts), so they sit above
both apps (docs/architecture.md, "Layers"). Thin, like every view: permission,
one read or one service call, render; bad input is a 400 naming the field.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode

from annotate import flags, selectors
from annotate import quality as assessor_quality
from annotate.controls import rules as quality_rules
from annotate.models import Control
from annotate.navigation import SECTIONS
from annotate.services.assignments import reassign_topic, top_up
from annotate.services.curations import accept
from annotate.services.judgments import Conflict
from concord import paramforms
from concord.errors import InvalidInput
from dashboard import quality, queue, topics
from dashboard import selectors as dashboard
from kinds.registry import get_kind
from scoring import live
from scoring import progress as progress_counts
from scoring import selectors as scoring_selectors
from scoring import services as scoring_services
from scoring.csvfiles import write_csv
from scoring.filenames import attach, download_name


@login_required
def home(request: HttpRequest) -> HttpResponse:
    queues = selectors.assessor_queues(request.user)
    organised = [q.campaign for q in queues if q.role == "organiser"]
    if request.user.is_staff:
        member_of = {q.campaign.pk for q in queues}
        others = list(selectors.visible_campaigns(request.user).exclude(pk__in=member_of).order_by("name"))
    else:
        others = []
    # Progress and what needs attention for every campaign organised, in a few grouped queries.
    counts = dashboard.attention(c.pk for c in [*organised, *others])
    return render(
        request,
        "dashboard/home.html",
        {
            "assessing": [q for q in queues if q.role == "assessor"],
            "organised": [(c, counts[c.pk], "") for c in organised] + [(c, counts[c.pk], "admin") for c in others],
            "adjudicating": [q for q in queues if q.role == "adjudicator"],
            "can_create": selectors.can_create_campaigns(request.user),
        },
    )


@login_required
def campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="member")
    if role == "assessor":
        queue = next(q for q in selectors.assessor_queues(request.user) if q.campaign.pk == campaign.pk)
        return render(request, "dashboard/campaign_assessor.html", {"campaign": campaign, "queue": queue})
    if role == "adjudicator":
        # The adjudication queue only: no agreement, progress, flags, jobs or exports.
        return render(request, "dashboard/campaign_adjudicator.html", {"campaign": campaign})
    section = request.GET.get("section") or "summary"
    if section not in SECTIONS:
        raise BadRequest(f"section: expected one of {', '.join(SECTIONS)}, not {section!r}")
    # The flag inbox's page numbers are checked on every section: a bad one is a 400 naming it.
    for name in flags.INBOX_PAGES:
        try:
            flags.page_number(request.GET.get(name), name)
        except InvalidInput as invalid:
            raise BadRequest(f"{invalid.field}: {invalid.message}") from None
    context = {
        "campaign": campaign,
        "role": role,
        "kind": get_kind(campaign.kind),
        "section": section,
        "sections": SECTIONS,
        "refresh_ms": settings.CONCORD_REFRESH_MS,
        # A capped table's "show all" (scoring_tags.capped): the one table to show whole.
        "show_all": request.GET.get("all", ""),
    }
    # Each section reads only what it shows: the summary never decodes flags or job forms.
    context.update(_SECTIONS[section](request, campaign))
    return render(request, "dashboard/campaign_organiser.html", context)


def _report_context(request: HttpRequest, campaign) -> dict:
    # The report's ETag, read before the report (scoring/live.py): the fragment's first poll sends it.
    report_etag = live.current_etag(request.user, campaign.pk)
    return {
        "report_etag": report_etag or "",
        "report": live.campaign_report(campaign, report_etag),
        "history": live.campaign_history(campaign, report_etag),
        "building": scoring_selectors.build_progress(campaign),
    }


def _summary_context(request: HttpRequest, campaign) -> dict:
    # the headline stored beside the report, not the report: a crowd's is megabytes to decode
    tag = live.current_etag(request.user, campaign.pk)
    latest = live.campaign_headline(campaign, tag)
    counted = progress_counts.campaign_progress(campaign)
    return {
        "summary": dashboard.campaign_summary(campaign, latest, counted),
        "history": live.campaign_history(campaign, tag),
        "progress": counted.assessors,
        "building": scoring_selectors.build_progress(campaign),
    }


def _progress_context(request: HttpRequest, campaign) -> dict:
    counted = progress_counts.campaign_progress(campaign, states=True)
    return {
        "progress": counted.assessors,
        # One page of topics (the Assignments page lists, filters and sorts them all) and
        # how many assignments are in each state: never a row per topic of a big campaign.
        "topics": topics.topic_table(campaign, topics.Filters()),
        "states": topics.state_counts(campaign, counted.states),
    }


def _flags_context(request: HttpRequest, campaign) -> dict:
    try:
        inbox = flags.inbox(campaign, request.GET)
    except InvalidInput as invalid:
        raise BadRequest(f"{invalid.field}: {invalid.message}") from None
    return {"inbox": inbox, "inbox_links": _inbox_links(request, inbox)}


def _analyses_context(request: HttpRequest, campaign) -> dict:
    return {
        "jobs": scoring_selectors.campaign_jobs(campaign),
        "applied": scoring_selectors.applied_changes(campaign),
        "analyses": analysis_forms(campaign),
    }


_SECTIONS = {
    "summary": _summary_context,
    "report": _report_context,
    "progress": _progress_context,
    "flags": _flags_context,
    "analyses": _analyses_context,
}


@login_required
def summary(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The summary: the fragment the campaign page's Summary polls."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    return render(
        request, "dashboard/campaign_summary.html", {"campaign": campaign, **_summary_context(request, campaign)}
    )


def _inbox_links(request: HttpRequest, inbox: flags.Inbox) -> dict[str, dict[str, str | bool]]:
    """Each inbox list's previous and next page (the other lists keep theirs), and whether it is turned."""
    links: dict[str, dict[str, str | bool]] = {}
    for name, page in zip(flags.INBOX_PAGES, (inbox.open, inbox.resolved, inbox.skipped)):
        links[name] = {"open": name in request.GET}
        for direction in ("previous", "next"):
            number = getattr(page, direction)
            if number is not None:
                query = request.GET.copy()
                query[name] = str(number)
                links[name][direction] = f"?{query.urlencode()}#flags"
    return links


def analysis_forms(campaign) -> list[dict]:
    """Each analysis of the campaign with its params form, or why it cannot run yet."""
    facts = scoring_selectors.campaign_facts(campaign)
    return [
        {
            "name": name,
            "help": schema.help,
            "fields": paramforms.fields(schema, form=name),
            "reason": scoring_services.not_ready(campaign, name, facts),
        }
        for name, schema in scoring_services.campaign_analysis_schemas(campaign).items()
        if name in scoring_services.analyses_for(campaign)
    ]


@login_required
def progress(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Progress per assessor: the fragment the organiser's page polls, as it polls the report;
    ``?format=csv``: every row as CSV (the capped table's "CSV" link)."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    wanted = request.GET.get("format", "")
    if wanted not in ("", "csv"):
        raise BadRequest(f"format: expected csv or nothing, not {wanted!r}")
    if wanted == "csv":  # counted now, whatever the campaign's size: a download, not a poll
        rows = progress_counts.assessor_progress(campaign)
        return attach(
            HttpResponse(write_csv(PROGRESS_COLUMNS, _progress_rows(rows)), content_type="text/csv; charset=utf-8"),
            download_name(campaign, "progress", extension="csv"),
        )
    rows = progress_counts.campaign_progress(campaign).assessors
    context = {"campaign": campaign, "progress": rows, "section": "progress", "show_all": request.GET.get("all", "")}
    return render(request, "dashboard/progress_table.html", context)


PROGRESS_COLUMNS = [
    "assessor",
    "assigned",
    "drafts",
    "withdrawn",
    "submitted",
    "reopened",
    "skipped",
    "active_median_ms",
    "active_total_ms",
]


def _progress_rows(rows: list[progress_counts.AssessorProgress]):
    for p in rows:
        yield [
            p.username,
            p.assigned,
            p.drafts,
            p.withdrawn,
            p.submitted,
            p.reopened,
            p.skipped,
            p.active_median_ms,
            p.active_total_ms,
        ]


@login_required
def campaign_assignments(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Who has which topic in which state; reassign a topic; top up to the overlap."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    error = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "reassign":
                reassign_topic(
                    campaign=campaign,
                    topic=request.POST.get("topic", ""),
                    from_assessor=request.POST.get("from_assessor", ""),
                    to_assessor=request.POST.get("to_assessor", ""),
                )
                messages.success(
                    request,
                    f"Topic {request.POST['topic']} moved from {request.POST['from_assessor']} "
                    f"to {request.POST['to_assessor']}.",
                )
            elif action == "topup":
                made = top_up(campaign)
                messages.success(request, f"Topped up to the overlap: {made} new assignment{'s' if made != 1 else ''}.")
            else:
                raise InvalidInput("action", "expected reassign or topup")
        except InvalidInput as invalid:
            error = invalid
        else:
            return redirect(request.get_full_path())
    try:
        filters = topics.read_filters(request.GET, campaign)
        table = topics.topic_table(campaign, filters)
    except InvalidInput as invalid:
        error = error or invalid
        filters = topics.Filters()
        table = topics.topic_table(campaign, filters)
    base = reverse("campaign-assignments", args=[campaign.pk])
    pages = {
        "previous": f"{base}?{urlencode(filters.query(page=table.page - 1))}" if table.page > 1 else "",
        "next": f"{base}?{urlencode(filters.query(page=table.page + 1))}" if table.page < table.pages else "",
    }
    sorts = {
        key: f"{base}?{urlencode(filters.query(sort=('-' + key) if filters.sort == key else key, page=1))}"
        for key in topics.SORTS
    }
    return render(
        request,
        "dashboard/assignments.html",
        {
            "campaign": campaign,
            "table": table,
            "filters": filters,
            "states": topics.STATES,
            "members": topics.member_names(campaign),
            "assessors": topics.assessor_names(campaign),
            "pages": pages,
            "sorts": sorts,
            "error": error,
            # What the kind's disagreement measures: the first paragraph of its docstring.
            "disagreement_help": " ".join(
                (get_kind(campaign.kind).reports.disagreement.__doc__ or "").split("\n\n")[0].split()
            ),
        },
        status=400 if error else 200,
    )


@login_required
def adjudication_queue(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Topics two or more assessors judged, most disputed first; filters: a pair of
    assessors, open flags, open or adjudicated."""
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="adjudicate")
    error = None
    try:
        filters = queue.read_filters(request.GET, campaign)
        found = queue.disputed(campaign, filters)
    except InvalidInput as invalid:
        error = invalid
        filters = queue.Filters()
        found = queue.disputed(campaign, filters)
    base = reverse("adjudication", args=[campaign.pk])
    pages = {
        "previous": f"{base}?{urlencode(filters.query(page=found.page - 1))}" if found.page > 1 else "",
        "next": f"{base}?{urlencode(filters.query(page=found.page + 1))}" if found.page < found.pages else "",
    }
    return render(
        request,
        "dashboard/adjudication.html",
        {
            "campaign": campaign,
            "role": role,
            "queue": found,
            "filters": filters,
            "judges": queue.judges(campaign),
            "states": queue.STATES,
            "pages": pages,
            "error": error,
            "next_topic": queue.next_topic(campaign),
            "disagreement_help": " ".join(
                (get_kind(campaign.kind).reports.disagreement.__doc__ or "").split("\n\n")[0].split()
            ),
        },
        status=400 if error else 200,
    )


@login_required
def adjudicate(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    """Every assessor's judgment of the topic side by side (the kind's comparison),
    its gold, and the actions that set it."""
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="adjudicate")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    error, status, stale = None, 200, False
    if request.method == "POST":
        try:
            curation = accept(
                campaign=campaign,
                topic=topic,
                action=request.POST.get("action", ""),
                assessor=request.POST.get("assessor", ""),
                version=request.POST.get("version", ""),
                user=request.user,
            )
        except InvalidInput as invalid:
            error, status = invalid, 400
        except Conflict:
            stale, status = True, 409
        else:
            what = (
                f"{request.POST.get('assessor')}'s judgment"
                if request.POST.get("action") == "assessor"
                else "the consensus"
            )
            messages.success(request, f"Saved {what} as the gold of {topic.external_id} (version {curation.version}).")
            return redirect("adjudicate", campaign_id=campaign.pk, topic_id=topic.external_id)
    spec = get_kind(campaign.kind)
    shown = queue.page(campaign, topic)
    return render(
        request,
        "dashboard/adjudicate.html",
        {
            "campaign": campaign,
            "role": role,
            "kind": spec,
            "topic": topic,
            "page": shown,
            "view": shown.view,
            "comparison": shown.comparison,
            "assessors": shown.assessors,
            "error": error,
            "stale": stale,
        },
        status=status,
    )


@login_required
def campaign_quality(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Each assessor's accuracy on the controls with its interval, their agreement with the
    others, time per item, "can't tell" share, failed checks and status; Pause and Reinstate
    (POST, with a reason; annotate/quality.py), and the pause records. Organisers and admins."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    error = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        username = request.POST.get("username", "").strip()
        try:
            if action == "pause":
                assessor_quality.pause(
                    campaign=campaign, username=username, by=request.user, reason=request.POST.get("reason", "")
                )
                messages.success(request, f"{username} is paused: no more work; their judgments leave the figures.")
            elif action == "reinstate":
                assessor_quality.reinstate(
                    campaign=campaign, username=username, by=request.user, reason=request.POST.get("reason", "")
                )
                messages.success(request, f"{username} is reinstated: they get work again and their judgments count.")
            else:
                raise InvalidInput("action", "expected pause or reinstate")
        except InvalidInput as invalid:
            error = invalid
        else:
            response = redirect("campaign-quality", campaign_id=campaign.pk)
            response.status_code = 303
            return response
    return render(
        request,
        "dashboard/quality.html",
        {
            "campaign": campaign,
            "rows": quality.quality_table(campaign),
            "has_controls": Control.objects.filter(topic__campaign=campaign).exists(),
            "rules": quality_rules(campaign.params),
            "records": assessor_quality.records(campaign, limit=RECORDS_SHOWN),
            "records_shown": RECORDS_SHOWN,
            "error": error,
            "posted": {"action": request.POST.get("action", ""), "username": request.POST.get("username", "")}
            if error
            else {},
        },
        status=400 if error else 200,
    )


#: The newest pause records the quality page lists.
RECORDS_SHOWN = 200


@login_required
def campaign_quality_csv(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The quality table as CSV (every cell neutralised: scoring.csvfiles)."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    rows = quality.csv_rows(quality.quality_table(campaign))
    response = HttpResponse(write_csv(quality.CSV_HEADER, rows), content_type="text/csv; charset=utf-8")
    return attach(response, download_name(campaign, "quality", extension="csv"))
