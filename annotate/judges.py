"""Model judges: which members' judgments are a model's, and whether they count with the people's.

A model judge is a member marked ``Membership.model_judge`` (an LLM used as a rater, most
often an imported column or crowd worker id; a login account may be one too, and then its
judgments are classed as the model's whatever page or token they come from). Its judgments
are stored like anyone's; what changes is who reads them. Unless the campaign's
``model_judges_count`` param is true, every read that makes a figure of the people leaves
them out: the reports' input (scoring.selectors.report_input: ``judgments`` are the
people's, ``judge_judgments`` the model judges'), the gold standards (exports, the
adjudication page's consensus), the adaptive design's opinions and budgets
(annotate/adaptive.py) and the progress counts (scoring/progress.py, the topic table).

Reads only; :func:`annotate.services.members.set_model_judge` writes the flag.
"""

from __future__ import annotations

from annotate.models import Campaign, Membership
from kinds.base import MODEL_JUDGES_COUNT

__all__ = ["counts_model_judges", "left_out", "left_out_of", "model_judge_ids", "model_judge_names"]


def counts_model_judges(campaign: Campaign) -> bool:
    """Whether the campaign counts its model judges' judgments with the people's (``model_judges_count``)."""
    return (campaign.params or {}).get(MODEL_JUDGES_COUNT) is True


def model_judge_ids(campaign: Campaign | int) -> set[int]:
    """The user ids of the campaign's model judges."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return set(Membership.objects.filter(campaign_id=campaign_id, model_judge=True).values_list("user_id", flat=True))


def model_judge_names(campaign: Campaign) -> set[str]:
    """The user names of the campaign's model judges."""
    return set(Membership.objects.filter(campaign=campaign, model_judge=True).values_list("user__username", flat=True))


def left_out(campaign: Campaign) -> set[int]:
    """The user ids whose judgments the people's figures leave out: the model judges, unless the
    campaign counts them (then none)."""
    return set() if counts_model_judges(campaign) else model_judge_ids(campaign)


def left_out_of(campaign_ids: list[int]) -> dict[int, set[int]]:
    """:func:`left_out` of many campaigns in one query: campaign id -> the user ids left out
    (campaigns that leave nobody out are not keys)."""
    found: dict[int, set[int]] = {}
    for campaign_id, user_id, params in Membership.objects.filter(
        campaign_id__in=campaign_ids, model_judge=True
    ).values_list("campaign_id", "user_id", "campaign__params"):
        if (params or {}).get(MODEL_JUDGES_COUNT) is not True:
            found.setdefault(campaign_id, set()).add(user_id)
    return found
