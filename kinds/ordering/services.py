"""The ordering kind's writes: a tuned FreSPA setting saved on the campaign."""

from __future__ import annotations

from typing import Any

from annotate.models import Campaign
from annotate.services import clean_campaign_params
from scoring.jobs import recompute_reports


def apply_tuning(campaign: Campaign, result: dict[str, Any]) -> None:
    """Save the ``frespa-tune`` analysis's setting on the campaign (its params,
    checked as every change of them is) and recompute every report with it."""
    campaign.params = clean_campaign_params(
        campaign.kind, {**campaign.params, "frespa": result["setting"]}, current=campaign.params
    )
    campaign.save(update_fields=["params"])
    recompute_reports(campaign.pk, everything=True)
