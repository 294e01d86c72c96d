"""Model judges: which members' judgments are a model's, and whether they count with the people's.

A model judge is a member marked ``Membership.model_judge`` (an LLM used as a rater, most
often an imported column or crowd worker id; a login account may be one too, and then its
judgments are classed as the model's whatever page or token they come from). Its judgments
are stored like anyone's; what changes is who reads them. Unless the campaign's
``model_judges_count`` param is true, every read that makes a figure of the people leaves
them out: the reports' input (scoring.selectors.report_input: ``judgments`` are the
people's, ``judge_judgments`` the model judges'), the gold standards (exports, the
adjudication page's consensus), the adaptive design's opinions and budgets
(annotate/adaptive.py) and the progress counts (scoring/progress.py, the topic table). A
paused assessor's judgments (annotate/quality.py) leave the same reads, whatever the param.

Reads only; :func:`annotate.services.members.set_model_judge` writes the flag.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from annotate.models import Campaign, Membership
from kinds.base import MODEL_JUDGES_COUNT

__all__ = ["counts_model_judges", "left_out", "model_judge_ids", "model_judge_names"]


def counts_model_judges(campaign: Campaign) -> bool:
    """Whether the campaign counts its model judges' judgments with the people's (``model_judges_count``)."""
    return (campaign.params or {}).get(MODEL_JUDGES_COUNT) is True


def model_judge_ids(campaign: Campaign | int) -> QuerySet:
    """The user ids of the campaign's model judges, as a subquery for ``assessor_id__in=`` (no
    query of its own)."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return Membership.objects.filter(campaign_id=campaign_id, model_judge=True).values("user_id")


def model_judge_names(campaign: Campaign) -> set[str]:
    """The user names of the campaign's model judges."""
    return set(Membership.objects.filter(campaign=campaign, model_judge=True).values_list("user__username", flat=True))


def left_out(campaign: Campaign) -> QuerySet:
    """The user ids whose judgments the people's figures leave out, for ``assessor_id__in=`` (a
    subquery, no query of its own): the paused assessors (``Membership.paused_at``: their
    judgments are kept and shown, and count again once reinstated), and the model judges unless
    the campaign counts them."""
    members = Membership.objects.filter(campaign_id=campaign.pk)
    if counts_model_judges(campaign):
        return members.filter(paused_at__isnull=False).values("user_id")
    return members.filter(Q(paused_at__isnull=False) | Q(model_judge=True)).values("user_id")
