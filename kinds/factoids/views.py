"""The factoids kind's own pages: starting Phase 2, and the relations editor."""

from __future__ import annotations

import itertools

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate import selectors
from annotate.models import Judgment
from annotate.services.curations import save_curation
from annotate.services.judgments import Conflict
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.factoids import services as factoid_services
from kinds.factoids.report import relations_of
from scoring.views import refused


def _version(text: str) -> int:
    version = whole_number(text)
    if version is None:
        raise InvalidInput("version", "expected the version you read: a whole number in the digits 0-9")
    return version


@login_required
def start_phase_two(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """GET: what starting Phase 2 means, and a confirm button; POST: start it."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    # The phase actions are on the report (factoids/phase_actions.html): back to it.
    back = reverse("campaign", args=[campaign.pk]) + "?section=report"
    if request.method == "POST":
        try:
            factoid_services.start_phase_two(campaign=campaign)
        except InvalidInput as error:
            return refused(request, error, back=("Back to the campaign", back))
        return redirect(back)
    return render(
        request,
        "confirm.html",
        {
            "title": "Start Phase 2",
            "campaign": campaign,
            "explanation": [
                "In Phase 2 every annotator sees, on each topic, where their factoids and markings differ "
                "from the others' and may correct slips (van Halteren & Teufel, section 3.1). What they "
                "submitted until now stays the Phase 1 annotation; the reports then show both phases.",
                "You can go back to Phase 1 from the campaign page until someone saves a judgment in Phase 2.",
            ],
            "question": f"Start Phase 2 of {campaign.name}?",
            "button": "Start Phase 2",
            "action": reverse("campaign-phase", args=[campaign.pk]),
            "back": back,
            "refusal": "The campaign is in Phase 2 already." if campaign.params.get("phase") == 2 else None,
        },
    )


@login_required
def revert_phase_two(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """GET: going back to Phase 1 (or why it cannot), and a confirm button; POST: do it."""
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    # The phase actions are on the report (factoids/phase_actions.html): back to it.
    back = reverse("campaign", args=[campaign.pk]) + "?section=report"
    if request.method == "POST":
        try:
            factoid_services.revert_phase_two(campaign=campaign)
        except InvalidInput as error:
            return refused(request, error, back=("Back to the campaign", back))
        return redirect(back)
    refusal = factoid_services.phase_one_refusal(campaign)
    return render(
        request,
        "confirm.html",
        {
            "title": "Back to Phase 1",
            "campaign": campaign,
            "explanation": [
                "Annotators stop seeing their discrepancies with the others, and the reports show Phase 1 only."
            ],
            "question": f"Take {campaign.name} back to Phase 1?",
            "button": "Back to Phase 1",
            "danger": True,
            "action": reverse("campaign-phase-revert", args=[campaign.pk]),
            "back": back,
            "refusal": f"Cannot go back to Phase 1: {refusal.message}." if refusal else None,
        },
    )


@login_required
def relations_editor(request: HttpRequest, campaign_id: int, topic_id: str) -> HttpResponse:
    """Confirm or edit the relations between each pair of annotators' inventories.

    One relation per line: the first annotator's factoid ids, ``|``, the
    second's (one side a single id: identity or subsumption)."""

    campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
    topic = selectors.topic_for(request.user, campaign, role, topic_id)
    payloads = {  # the versions that count (a reopened judgment's submitted one)
        j.assessor.username: j.submitted_payload
        for j in topic.judgments.filter(status__in=Judgment.COUNTING).select_related("assessor")
    }
    current = selectors.curation(topic, "relations")
    error = None
    if request.method == "POST":
        pairs = {}
        for first, second in itertools.combinations(sorted(payloads), 2):
            lines = request.POST.get(f"{first}|{second}", "").splitlines()
            pairs[f"{first}|{second}"] = [
                {"first": line.split("|")[0].split(), "second": line.split("|", 1)[1].split() if "|" in line else []}
                for line in lines
                if line.strip()
            ]
        try:
            save_curation(
                topic=topic,
                name="relations",
                data={"pairs": pairs},
                version=_version(request.POST.get("version", "0")),
                user=request.user,
            )
            return redirect("relations-editor", campaign_id=campaign.pk, topic_id=topic.external_id)
        except (InvalidInput, Conflict) as problem:
            error = f"{getattr(problem, 'field', 'relations')}: {getattr(problem, 'message', problem)}"
    sections = []
    for first, second in itertools.combinations(sorted(payloads), 2):
        relations, source = relations_of(
            topic, first, second, payloads[first], payloads[second], current.data if current else None
        )
        sections.append(
            {
                "key": f"{first}|{second}",
                "first": first,
                "second": second,
                "source": source,
                "text": "\n".join(f"{' '.join(r['first'])} | {' '.join(r['second'])}" for r in relations),
                "inventories": [(first, payloads[first]["factoids"]), (second, payloads[second]["factoids"])],
            }
        )
    return render(
        request,
        "factoids/relations.html",
        {
            "campaign": campaign,
            "topic": topic,
            "sections": sections,
            "error": error,
            "version": current.version if current else 0,
        },
    )
