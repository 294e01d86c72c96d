"""The adjudication queue and the adjudication page (annotate/adjudication.py).

Thin, like every view: permission (``need="adjudicate"``: organisers, admins and
the campaign's adjudicators), one read or one service call, render. Bad input
re-renders with the message at its field (400); a stale version says someone
else saved the gold meanwhile (409) and writes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode

from annotate import adjudication, selectors
from annotate.services import Conflict
from concord.errors import InvalidInput
from kinds.registry import get_kind


@login_required
def queue(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Topics two or more assessors judged, most disputed first; filters: a pair of
    assessors, open flags, open or adjudicated."""
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="adjudicate")
    error = None
    try:
        filters = adjudication.read_filters(request.GET, campaign)
        found = adjudication.queue(campaign, filters)
    except InvalidInput as invalid:
        error = invalid
        filters = adjudication.Filters()
        found = adjudication.queue(campaign, filters)
    base = reverse("adjudication", args=[campaign.pk])
    pages = {
        "previous": f"{base}?{urlencode(filters.query(page=found.page - 1))}" if found.page > 1 else "",
        "next": f"{base}?{urlencode(filters.query(page=found.page + 1))}" if found.page < found.pages else "",
    }
    return render(
        request,
        "annotate/adjudication.html",
        {
            "campaign": campaign,
            "role": role,
            "queue": found,
            "filters": filters,
            "judges": adjudication.judges(campaign),
            "states": adjudication.STATES,
            "pages": pages,
            "error": error,
            "next_topic": adjudication.next_topic(campaign),
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
            curation = adjudication.accept(
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
    shown = adjudication.page(campaign, topic)
    return render(
        request,
        "annotate/adjudicate.html",
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
