"""The pages a crowd worker meets through a study link (annotate/study.py): the link itself,
``/study/<token>/``, and the completion page the next-topic page turns into once their
share is done.

Thin: the link and the platform's parameters checked, one service call, sign-in, a redirect
to the campaign's next-topic page. Every refusal is a short page saying why, with its 4xx,
and writes nothing: an unknown or altered token 404, a withdrawn link 410, a bad parameter
400 naming it, a browser signed in as someone else 409 (it asks to sign out first; it is
never switched silently), a full study or a removed worker 403, too many new workers at once
429 with Retry-After.

MTurk shows an ExternalQuestion in a frame of its own pages: those pages only may frame the
link's preview and its "open the task" page (``frame-ancestors`` MTurk's two hosts), which
create nothing; the work itself opens in a tab of its own, where the session cookie is the
site's own. Its completion form posts to MTurk, so that one page's ``form-action`` allows
the worker's ``turkSubmitTo`` (one of MTurk's two hosts, checked when it arrived).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from annotate import adaptive, study
from annotate.models import Campaign, StudyLink
from annotate.services import study as study_services
from concord.errors import InvalidInput
from concord.security import message_page, policy_header

#: The backend a study sign-in is recorded with (the worker has no password to authenticate).
BACKEND = "django.contrib.auth.backends.ModelBackend"


def _refused(request: HttpRequest, refusal: study_services.Refused) -> HttpResponse:
    titles = {404: "No such study link", 410: "Study link withdrawn", 429: "Too many at once"}
    response = message_page(request, titles.get(refusal.status, "Not let in"), refusal.message, status=refusal.status)
    if refusal.retry_after:
        response["Retry-After"] = str(refusal.retry_after)
    return response


def _framed_by_mturk(response: HttpResponse) -> HttpResponse:
    """Let MTurk's pages (and only them) show this response in their frame."""
    policy = {**settings.SECURE_CSP, "frame-ancestors": list(study.MTURK_HOSTS)}
    response["Content-Security-Policy"] = policy_header(policy)
    response.xframe_options_exempt = True
    return response


@require_safe
def study_entry(request: HttpRequest, token: str) -> HttpResponse:
    """A worker arriving from the platform: signed in as their campaign account (made on
    their first visit) and sent to the campaign's next-topic page."""
    try:
        link = study_services.link_for(token)
        arrival = study.arrival(link.platform, request.GET)
    except study_services.Refused as refusal:
        return _refused(request, refusal)
    except InvalidInput as invalid:
        return message_page(
            request,
            "This study link is not complete",
            f"{invalid.field}: {invalid.message}. Open the study again from the platform's page.",
            status=400,
        )
    campaign = link.campaign
    if arrival.preview:
        return _framed_by_mturk(render(request, "annotate/study_preview.html", {"campaign": campaign}))
    if link.platform == study.MTURK and request.headers.get("Sec-Fetch-Dest") == "iframe":
        # Inside MTurk's frame the site's cookie is a third party's, which browsers may refuse:
        # the work opens in a tab of its own, from the same address.
        return _framed_by_mturk(
            render(request, "annotate/study_frame.html", {"campaign": campaign, "url": request.get_full_path()})
        )
    if request.user.is_authenticated:
        worker = study.worker_of(campaign, request.user)
        if worker is None or (worker.platform, worker.worker_id) != (arrival.platform, arrival.worker_id):
            return render(
                request,
                "annotate/study_signed_in.html",
                {"campaign": campaign, "username": request.user.get_username(), "url": request.get_full_path()},
                status=409,
            )
    try:
        user, _ = study_services.arrive(link, arrival)
    except study_services.Refused as refusal:
        return _refused(request, refusal)
    if not request.user.is_authenticated:
        login(request, user, backend=BACKEND)
    response = redirect("campaign-next", campaign.pk)
    response.status_code = 303
    return response


def completion(request: HttpRequest, campaign: Campaign, *, ran_out: bool = False) -> HttpResponse | None:
    """The completion page, when the user came through a study link and their share is done:
    no topic pending, and none to allocate (work assigned up front; or ``ran_out``: "Next
    topic" found none; or an earlier visit found none). None: not a study worker, or not done."""
    worker = study.worker_of(campaign, request.user)
    if worker is None or study.has_pending(campaign, request.user):
        return None
    if worker.completed_at is None and adaptive.allocates(campaign) and not ran_out:
        return None
    study_services.complete(worker)
    done = study.completion(worker)
    response = render(request, "annotate/study_done.html", {"campaign": campaign, "done": done})
    if done.platform == StudyLink.Platform.MTURK:
        policy = {**settings.SECURE_CSP, "form-action": [*settings.SECURE_CSP["form-action"], worker.submit_to]}
        response["Content-Security-Policy"] = policy_header(policy)
    return response
