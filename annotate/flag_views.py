"""Pages' forms for skipping topics and resolving flags (annotate.flags).

Thin, like every view: permission, one service call, a redirect back. Bad
input answers 400 with the field and changes nothing. The judging page skips
and flags through the API (static/annotate/judge.js); these forms serve the
campaign pages (unskip on the assessor's, resolve in the organiser's inbox).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import flags, selectors
from annotate.services.flags import resolve_flag, skip_topic, unskip_topic
from annotate.services.judgments import NotAssigned
from concord.errors import InvalidInput


def _refused(invalid: InvalidInput) -> HttpResponse:
    """The 400 page, naming the field (nothing was written)."""
    raise BadRequest(f"{invalid.field}: {invalid.message}")


@login_required
@require_POST
def topic_skip(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    """``action=skip`` (with ``reason``) or ``action=unskip`` one of the assessor's topics."""
    campaign, role = selectors.campaign_for(request.user, campaign_id)
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    action = request.POST.get("action", "")
    try:
        if action == "skip":
            skip_topic(topic=topic, assessor=request.user, reason=request.POST.get("reason", ""))
            done = f"Skipped {topic.title}."
        elif action == "unskip":
            unskip_topic(topic=topic, assessor=request.user)
            done = f"{topic.title} is back in your queue."
        else:
            raise InvalidInput("action", "expected skip or unskip")
    except InvalidInput as invalid:
        return _refused(invalid)
    except NotAssigned:
        raise PermissionDenied(f"The topic {topic.external_id} is not assigned to you.") from None
    if request.POST.get("back") == "judge":  # the judging page shows the new state itself
        return redirect("judge", campaign_id=campaign.pk, topic_id=topic.external_id)
    messages.success(request, done)  # shown on the assessor's campaign page
    return redirect("campaign", campaign_id=campaign.pk)


@login_required
@require_POST
def flag_resolve(request: HttpRequest, campaign_id: int, flag_id: int) -> HttpResponse:
    """Resolve a flag from the organiser's inbox, with an optional ``answer``."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    flag = flags.flag_for(campaign, flag_id)
    try:
        resolve_flag(flag=flag, organiser=request.user, answer=request.POST.get("answer", ""))
    except InvalidInput as invalid:
        return _refused(invalid)
    return redirect(reverse("campaign", args=[campaign.pk]) + "?section=flags#flags")
