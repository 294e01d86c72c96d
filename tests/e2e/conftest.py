"""The demo the browser walks open (tests/e2e/demo_pages.py lists its pages)."""

from __future__ import annotations

import pytest

from annotate.demo import seed
from annotate.models import Campaign
from kinds.registry import KINDS
from scoring import services as scoring_services


@pytest.fixture
def demo(people, replace_spec, django_capture_on_commit_callbacks):
    """The demo campaigns of the kinds named (the others' demos switched off),
    reports computed and one finished analysis job each; people log in with
    pw-<name> (the people fixture made them, so the seed keeps their passwords)."""

    def build(*names: str) -> list[Campaign]:
        for other in KINDS:
            if other not in names:
                replace_spec(other, demo=None)
        with django_capture_on_commit_callbacks(execute=True):
            _, campaigns = seed(reset_passwords=False)
        for campaign in campaigns:
            scoring_services.recompute_reports(campaign.pk, everything=True)
            scoring_services.start_analysis(
                campaign=campaign, analysis="agreement", params=None, user=people["organiser"]
            )
        return campaigns

    return build
