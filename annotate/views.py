"""Pages an assessor or organiser opens. Thin: permission, one read, render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate import adaptive, flags, quality, selectors, study, study_views
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from concord import paramforms
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import KINDS, get_kind


@login_required
def judge(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    campaign, role = selectors.campaign_for(request.user, campaign_id)
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    if role == "assessor" and (paused := quality.paused_reason(campaign.pk, request.user.pk)) is not None:
        return paused_page(request, campaign, paused)
    spec = get_kind(campaign.kind)
    kind = spec.data
    assignment = topic.assignments.filter(assessor=request.user).first()
    judgment = selectors.own_judgment(topic, request.user)
    queue = next((q for q in selectors.assessor_queues(request.user) if q.campaign.pk == campaign.pk), None)
    # After a submission or a skip: the next topic to judge, skipped ones left out.
    later = (
        [e.topic for e in queue.entries if not e.counts and not e.skipped and e.topic.pk != topic.pk] if queue else []
    )
    previous_topic, following_topic = queue.neighbours(topic) if queue else (None, None)
    entry = next((e for e in queue.entries if e.topic.pk == topic.pk), None) if queue else None
    return render(
        request,
        spec.judge.template,
        {
            # Organisers opening the page see what their assessors see.
            **judging_context(campaign, topic, request.user, items=assignment.items if assignment else None),
            "assigned": queue is not None and any(e.topic.pk == topic.pk for e in queue.entries),
            "state": {
                "payload": judgment.payload
                if judgment
                else kind.initial_payload(topic.data, seed=f"{request.user.pk}:{topic.pk}"),
                "status": judgment.status if judgment else "new",
                "version": judgment.version if judgment else 0,
                # The version that counts in the reports (submitted or reopened), else None.
                "submitted_version": judgment.submitted_version if judgment else None,
            },
            "next_topic": later[0] if later else None,
            # A crowd worker's last topic leads to the next-topic page, which gives their completion code
            # (asked on every page, one indexed lookup, so the page's queries do not depend on its place in the queue).
            "study_worker": study.worker_of(campaign, request.user) is not None,
            "queue": queue,
            # Previous / next in the assessor's own queue order (keys Alt+← / Alt+→).
            "previous_topic": previous_topic,
            "following_topic": following_topic,
            "skipped": entry.skipped if entry else False,
            "skip_reason": entry.skip_reason if entry else "",
            # The newest of the assessor's own flags (GET .../flags/ pages through all).
            "flags": flags.page_of(flags.topic_flags(topic, request.user, "assessor"), 1, size=flags.SHOWN_ON_TOPIC)
            if entry
            else None,
            "flag_items": flags.flaggable_items(topic, assignment) if entry else [],
        },
    )


def paused_page(request: HttpRequest, campaign, reason: str) -> HttpResponse:
    """A paused assessor's refusal (403), saying why; nothing of theirs is touched."""
    return render(request, "annotate/paused.html", {"campaign": campaign, "reason": reason}, status=403)


def judging_context(campaign, topic, user, *, items: list[str] | None = None) -> dict:
    """What the kind's judging page gets wherever it is rendered (an assessor's judging
    page, the consensus editor): the kind's own context (``JudgePage.context``: the
    relevance scale, factoids' Phase 2 discrepancies; ``user`` None on the consensus
    editor), the spec, the campaign and, shown and never saved, the kind's assessor view
    of the part of the topic judged (``items``; None: all of it; blind assessment).

    The one place both views take it from, so the consensus editor cannot miss what the
    judging page has (a relevance gold edited without the campaign's scale would show no
    grade buttons and save the starting assessor's grades unchanged)."""
    spec = get_kind(campaign.kind)
    # The kind's context reads the full topic (factoids' summaries): before the view replaces it.
    extra = spec.judge.context(campaign, topic, user) if spec.judge.context else {}
    topic.data = spec.data.assessor_view(topic.data, items)
    return {**extra, "kind": spec, "campaign": campaign, "topic": topic}


@login_required
def next_topic(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The "Next topic" button: POST gives the assessor's pending topic or, in an adaptive
    campaign, work allocated now (annotate.adaptive.next_work); else back to the campaign page.

    Allocating spends the campaign's budget, so only a POST (a form, with its CSRF token)
    does it: a GET (a link from another site, a prefetch, the judging page's "next" after a
    submission) shows the page with the button and allocates nothing."""
    campaign, role = selectors.campaign_for(request.user, campaign_id)
    if role != "assessor":
        return redirect("campaign", campaign.pk)
    if (paused := quality.paused_reason(campaign.pk, request.user.pk)) is not None:
        return paused_page(request, campaign, paused)
    if request.method != "POST":
        # A crowd worker whose share is done gets their completion code instead (annotate/study_views.py).
        return study_views.completion(request, campaign) or render(
            request, "annotate/next_topic.html", {"campaign": campaign}
        )
    work = adaptive.next_work(campaign, request.user)
    if work.topic is None:
        done = study_views.completion(request, campaign, ran_out=True)
        if done is not None:
            return done
        messages.info(
            request,
            "No topic for you now: every item is certain enough or waits for an opinion already given out, "
            "or the budget is spent. Try again later.",
        )
        return redirect("campaign", campaign.pk)
    return redirect("judge", campaign.pk, work.topic.external_id)


@login_required
def consensus_editor(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    """The topic's gold (its ``consensus`` curation) edited on the kind's judging page,
    by an organiser or an adjudicator (the adjudication page's "Edit").

    ``?from=<assessor>`` starts an empty consensus from that assessor's
    submitted annotation."""
    campaign, role = selectors.campaign_for(request.user, campaign_id, need="adjudicate")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    spec = get_kind(campaign.kind)
    kind = spec.data
    current = selectors.curation(topic, "consensus")
    assessors = sorted(
        topic.judgments.filter(status__in=Judgment.COUNTING).values_list("assessor__username", flat=True)
    )
    start_from = request.GET.get("from")
    if current is not None:
        payload = current.data
    elif start_from in assessors:
        payload = topic.judgments.get(assessor__username=start_from).submitted_payload
    else:
        payload = kind.empty_payload(topic.data)
    return render(
        request,
        spec.judge.template,
        {
            # The gold is nobody's own judgment: no user for the kind's context.
            **judging_context(campaign, topic, None),
            "assigned": True,
            "consensus_mode": True,
            "assessors": assessors,
            "api_url": reverse("api-curation", args=[campaign.pk, topic.external_id, "consensus"]),
            "state": {"payload": payload, "status": "draft", "version": current.version if current else 0},
            "next_topic": None,
            "queue": None,
        },
    )


@login_required
def new_campaign(request: HttpRequest) -> HttpResponse:
    """Create a campaign in the browser: choose a kind, then name, guidelines,
    overlap and the kind's params, a form generated from its params schema
    (the same declarations and service as POST /api/campaigns/)."""
    if not selectors.can_create_campaigns(request.user):
        raise PermissionDenied("Only organisers and admins create campaigns.")
    kind = request.POST.get("kind") or request.GET.get("kind")
    if kind not in KINDS:
        return render(request, "annotate/campaign_new.html", {"kinds": list(KINDS.values()), "spec": None})
    spec = KINDS[kind]
    error, values = None, {}
    form = {"name": "", "guidelines": "", "overlap": "2"}
    if request.method == "POST":
        form = {key: request.POST.get(key, "") for key in form}
        try:
            values = paramforms.read(spec.params, request.POST)
            overlap = whole_number(form["overlap"].strip())
            if overlap is None:
                raise InvalidInput("overlap", "expected a whole number of assessors per topic, from 1 to 100")
            campaign = create_campaign(
                creator=request.user,
                kind=kind,
                name=form["name"].strip(),
                guidelines=form["guidelines"],
                overlap=overlap,
                params=values,
            )
        except InvalidInput as invalid:
            error = invalid
        else:
            return redirect("campaign", campaign_id=campaign.pk)
    return render(
        request,
        "annotate/campaign_new.html",
        {
            "spec": spec,
            "form": form,
            "error": error,
            "groups": paramforms.groups(paramforms.fields(spec.params, values=values, error=error)),
        },
        status=400 if error else 200,
    )
