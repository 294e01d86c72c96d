"""The organiser's study link page (``/campaigns/<id>/study/``): make, replace or withdraw the
campaign's link for a crowd platform (annotate/study.py), set what it gives each worker, and
download each worker's time for payment (``study/time.csv``).

Thin, like every view: permission (organisers), one service call, a redirect (303) back; bad
input re-renders the page with the message at its field (400) and changes nothing. The CSV is
written by ``scoring.csvfiles.write_csv``, as every export (a worker id or code that would
start a formula gets a ``'``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from annotate import selectors, study
from annotate.models import StudyLink, StudyWorker
from annotate.services import study as study_services
from concord import paramforms
from concord.errors import InvalidInput
from concord.params import ParamsSchema
from kinds.base import STUDY, study_param
from scoring.csvfiles import write_csv
from scoring.filenames import attach, download_name

#: The form's controls for the ``study`` param (``params.study.topics_per_worker``, ...).
STUDY_FORM = ParamsSchema(study_param())


@login_required
def study_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """``action=make`` (``platform``, ``completion_code``, the study params) makes a new link,
    withdrawing the open one; ``action=withdraw`` withdraws it."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    error = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "make":
                values = paramforms.read(STUDY_FORM, request.POST)
                study_services.make_link(
                    campaign=campaign,
                    organiser=request.user,
                    platform=request.POST.get("platform", ""),
                    completion_code=request.POST.get("completion_code", ""),
                    study_params=values.get(STUDY, {}),
                )
                messages.success(request, "A new study link is ready: post it on the platform.")
            elif action == "withdraw":
                study_services.withdraw_link(campaign=campaign)
                messages.success(request, "The study link was withdrawn: it lets nobody in any more.")
            else:
                raise InvalidInput("action", "expected make or withdraw")
        except InvalidInput as invalid:
            error = invalid
        else:
            response = redirect("campaign-study", campaign_id=campaign.pk)
            response.status_code = 303
            return response
    link = study.open_link(campaign)
    shown = {STUDY: campaign.params.get(STUDY) or {}}  # blank controls: the defaults apply
    return render(
        request,
        "dashboard/study.html",
        {
            "campaign": campaign,
            "link": link,
            # The placeholders are added after build_absolute_uri, which would percent-encode their braces.
            "url": study.link_url(link, request.build_absolute_uri(study.link_path(link))) if link else "",
            "platforms": StudyLink.Platform.choices,
            "fields": paramforms.fields(STUDY_FORM, values=shown, error=error),
            "error": error,
            "form": request.POST if error else {},
            "workers": StudyWorker.objects.filter(campaign=campaign).count(),
            "settings": study.settings_of(campaign),
            "per_minute": settings.CONCORD_STUDY_ACCOUNTS_PER_MINUTE,
        },
        status=400 if error else 200,
    )


@login_required
@require_safe
def study_times(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Each study worker's time, for paying them: ``annotate.study.TIME_COLUMNS``, one row each."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    rows = (
        (platform, worker, submitted, active_ms, seconds, first.isoformat(), done.isoformat() if done else None)
        for platform, worker, submitted, active_ms, seconds, first, done in study.time_rows(campaign)
    )
    response = HttpResponse(write_csv(study.TIME_COLUMNS, rows), content_type="text/csv; charset=utf-8")
    return attach(response, download_name(campaign, "study-time", extension="csv"))
