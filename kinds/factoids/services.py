"""The factoids kind's writes: Phase 2 (van Halteren & Teufel, section 3.1) and the
relations between two annotators' inventories (section 3.2), a curation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotate.models import Campaign, Judgment, JudgmentRevision, Topic
from annotate.services.campaigns import clean_campaign_params
from concord.errors import InvalidInput
from kinds.base import listing, require_ids, require_list, require_object
from kinds.factoids.data import FactoidsKind
from scoring import services as scoring_services

#: A side of a relation names factoids of one inventory; a pair of inventories has at
#: most one relation per factoid of either side.
MAX_INVENTORY = FactoidsKind.limits["payload.factoids"]
MAX_RELATIONS = 2 * MAX_INVENTORY


@transaction.atomic
def start_phase_two(*, campaign: Campaign) -> Campaign:
    """Phase 2 of van Halteren & Teufel (section 3.1): from now on assessors see
    their discrepancies with the others; what they had submitted until now
    stays the Phase 1 annotation."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.params.get("phase") == 2:
        raise InvalidInput("phase", "the campaign is in Phase 2 already")
    campaign.params = clean_campaign_params(
        campaign.kind, {**campaign.params, "phase": 2, "phase2_started_at": timezone.now().isoformat()}, internal=True
    )
    campaign.save(update_fields=["params"])
    scoring_services.mark_all_stale(campaign)
    return campaign


def phase_two_saves(campaign: Campaign) -> list[str]:
    """Who saved which topic since Phase 2 started ("alice on t1", oldest first): any
    saved version (draft or submitted) of a judgment keeps the campaign in Phase 2."""
    started = campaign.params.get("phase2_started_at")
    if campaign.params.get("phase") != 2 or not started:
        return []
    # updated_at: a draft revision first saved before the start may hold a save made after it.
    rows = (
        JudgmentRevision.objects.filter(
            judgment__topic__campaign=campaign, updated_at__gte=datetime.fromisoformat(started)
        )
        .order_by("updated_at", "id")
        .values_list("judgment__assessor__username", "judgment__topic__external_id")
    )
    return list(dict.fromkeys(f"{name} on {topic}" for name, topic in rows))


def phase_one_refusal(campaign: Campaign) -> InvalidInput | None:
    """Why the campaign cannot go back to Phase 1 now, or None."""
    if campaign.params.get("phase") != 2:
        return InvalidInput("phase", "the campaign is in Phase 1 already")
    saved = phase_two_saves(campaign)
    if saved:
        shown = ", ".join(saved[:5]) + (f" and {len(saved) - 5} more" if len(saved) > 5 else "")
        return InvalidInput(
            "phase",
            f"{len(saved)} judgment{'s were' if len(saved) != 1 else ' was'} saved in Phase 2 ({shown}): "
            "going back to Phase 1 would mix them into the independent annotation",
        )
    return None


@transaction.atomic
def revert_phase_two(*, campaign: Campaign) -> Campaign:
    """Back to Phase 1, allowed while no judgment has been saved since Phase 2 started
    (a start by mistake): assessors stop seeing the others' discrepancies."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    refusal = phase_one_refusal(campaign)
    if refusal is not None:
        raise refusal
    params = {k: v for k, v in campaign.params.items() if k not in ("phase", "phase2_started_at")}
    campaign.params = clean_campaign_params(campaign.kind, params, internal=True)
    campaign.save(update_fields=["params"])
    scoring_services.mark_all_stale(campaign)
    return campaign


def clean_relations(data: Any, topic: Topic) -> dict[str, Any]:
    """``{"pairs": {"<annotator>|<annotator>": [{"first": [ids], "second": [ids]}]}}``.

    Names in a key are sorted; ``first`` holds factoids of the first named
    annotator. One side has one factoid: one-to-one is an identity, one to
    several a subsumption (section 3.2).
    """
    require_object(data, "data", allowed={"pairs"}, required={"pairs"})
    if not isinstance(data["pairs"], dict):
        raise InvalidInput("data.pairs", "expected an object")
    inventories = {
        j.assessor.username: {f["id"] for f in j.payload.get("factoids", [])}
        for j in Judgment.objects.filter(topic=topic).select_related("assessor")
    }
    cleaned = {}
    for key, relations in data["pairs"].items():
        names = key.split("|")
        if (
            len(names) != 2
            or names != sorted(names)
            or names[0] == names[1]
            or not all(n in inventories for n in names)
        ):
            raise InvalidInput(
                f"data.pairs.{key}", "expected '<annotator>|<annotator>', names sorted, both annotators of the topic"
            )
        require_list(relations, f"data.pairs.{key}", max_length=MAX_RELATIONS)
        rows = []
        for index, relation in enumerate(relations):
            path = f"data.pairs.{key}[{index}]"
            require_object(relation, path, allowed={"first", "second"}, required={"first", "second"})
            for side, name in (("first", names[0]), ("second", names[1])):
                require_list(relation[side], f"{path}.{side}", min_length=1)
                ids = require_ids(relation[side], f"{path}.{side}", max_length=MAX_INVENTORY)
                unknown = [i for i in ids if i not in inventories[name]]
                if unknown:
                    raise InvalidInput(f"{path}.{side}", f"not factoids of {name}: {listing(unknown)}")
            if len(relation["first"]) > 1 and len(relation["second"]) > 1:
                raise InvalidInput(path, "one side must be a single factoid (identity or subsumption)")
            rows.append({"first": list(relation["first"]), "second": list(relation["second"])})
        cleaned[key] = rows
    return {"pairs": cleaned}
