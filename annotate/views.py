"""Pages an assessor or organiser opens. Thin: permission, one read, render."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from annotate import selectors
from kinds.registry import get_kind
from scoring import selectors as scoring_selectors
from scoring import services as scoring_services


@login_required
def home(request: HttpRequest) -> HttpResponse:
    queues = selectors.assessor_queues(request.user)
    organised = [q for q in queues if q.role == "organiser"]
    if request.user.is_staff:
        member_of = {q.campaign.pk for q in queues}
        others = selectors.visible_campaigns(request.user).exclude(pk__in=member_of)
    else:
        others = []
    return render(
        request,
        "annotate/home.html",
        {
            "assessing": [q for q in queues if q.role == "assessor"],
            "organised": organised,
            "others": others,
        },
    )


@login_required
def campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id)
    if role == "assessor":
        queue = next(q for q in selectors.assessor_queues(request.user) if q.campaign.pk == campaign.pk)
        return render(request, "annotate/campaign_assessor.html", {"campaign": campaign, "queue": queue})
    return render(
        request,
        "annotate/campaign_organiser.html",
        {
            "campaign": campaign,
            "role": role,
            "kind": get_kind(campaign.kind),
            "progress": selectors.assessor_progress(campaign),
            "assignments": selectors.topic_assignments(campaign),
            "report": scoring_selectors.campaign_report(campaign),
            "jobs": scoring_selectors.campaign_jobs(campaign),
            "analyses": scoring_services.analyses_for(campaign),
            "refresh_ms": settings.CONCORD_REFRESH_MS,
        },
    )


@login_required
def judge(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id)
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    spec = get_kind(campaign.kind)
    kind = spec.data
    assignment = topic.assignments.filter(assessor=request.user).first()
    judgment = selectors.own_judgment(topic, request.user)
    queue = next((q for q in selectors.assessor_queues(request.user) if q.campaign.pk == campaign.pk), None)
    later = [e.topic for e in queue.entries if e.status != "submitted" and e.topic.pk != topic.pk] if queue else []
    extra_context = spec.judge.context(campaign, topic, request.user) if spec.judge.context else {}
    # Shown, never saved: the kind's assessor view of the part of the topic
    # this assessor judges (blind assessment). Organisers opening the page see
    # what their assessors see.
    topic.data = kind.assessor_view(topic.data, assignment.items if assignment else None)
    return render(
        request,
        spec.judge.template,
        {
            **extra_context,
            "kind": spec,
            "campaign": campaign,
            "topic": topic,
            "assigned": queue is not None and any(e.topic.pk == topic.pk for e in queue.entries),
            "state": {
                "payload": judgment.payload
                if judgment
                else kind.initial_payload(topic.data, seed=f"{request.user.pk}:{topic.pk}"),
                "status": judgment.status if judgment else "new",
                "version": judgment.version if judgment else 0,
            },
            "next_topic": later[0] if later else None,
            "queue": queue,
        },
    )


@login_required
def consensus_editor(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    """The organiser's consensus inventory and marking, on the judging page.

    ``?from=<assessor>`` starts an empty consensus from that assessor's
    submitted annotation."""
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    spec = get_kind(campaign.kind)
    kind = spec.data
    current = scoring_selectors.curation(topic, "consensus")
    assessors = sorted(topic.judgments.filter(status="submitted").values_list("assessor__username", flat=True))
    start_from = request.GET.get("from")
    if current is not None:
        payload = current.data
    elif start_from in assessors:
        payload = topic.judgments.get(assessor__username=start_from).payload
    else:
        payload = kind.empty_payload(topic.data)
    # The consensus is built on the judging page, which renders the assessor view.
    topic.data = kind.assessor_view(topic.data)
    return render(
        request,
        spec.judge.template,
        {
            "kind": spec,
            "campaign": campaign,
            "topic": topic,
            "assigned": True,
            "consensus_mode": True,
            "assessors": assessors,
            "api_url": reverse("api-curation", args=[campaign.pk, topic.external_id, "consensus"]),
            "state": {"payload": payload, "status": "draft", "version": current.version if current else 0},
            "next_topic": None,
            "queue": None,
        },
    )
