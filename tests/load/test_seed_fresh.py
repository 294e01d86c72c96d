"""The load rig's bulk seeding (``benchmarks.loadrig.harness.seed_fresh``), run in the test
database at a tiny size: every kind's judgments are written as an assessor's own save would
store them, and every kind's reports build from them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the harness is imported as benchmarks.loadrig.harness, as its subprocesses run it
    sys.path.insert(0, str(ROOT))

from annotate.models import Campaign, Judgment  # noqa: E402
from benchmarks.loadrig import harness  # noqa: E402
from kinds.base import ASSESSOR_SEED, assessor_seed  # noqa: E402
from kinds.registry import KINDS  # noqa: E402
from scoring import jobs  # noqa: E402
from scoring.models import Report  # noqa: E402

pytestmark = pytest.mark.django_db


def test_bulk_seeded_judgments_are_stored_as_each_assessors_save_stores_them_and_every_kind_builds():
    User.objects.create(username="load-organiser")
    plan = harness.seed_fresh(topics=3, samples=1)
    assert sorted(c["kind"] for c in plan["campaigns"]) == sorted(KINDS)
    for entry in plan["campaigns"]:
        campaign = Campaign.objects.get(pk=entry["campaign"])
        kind = KINDS[campaign.kind].data
        judgments = Judgment.objects.filter(topic__campaign=campaign).select_related("topic")
        assert judgments.count() == entry["judgments"] == 3 * harness.FRESH_ASSESSORS - 1
        for judgment in judgments:
            seed = assessor_seed(judgment.assessor_id, judgment.topic.external_id)
            saved = kind.clean_judgment(
                judgment.payload, judgment.topic.data, complete=True, params={**campaign.params, ASSESSOR_SEED: seed}
            )
            # what the server fills in on a save (a preference verdict's sides) is there already
            assert judgment.payload == saved, (campaign.kind, judgment.assessor.username)
        jobs.recompute_reports(campaign.pk, everything=True)
        assert Report.objects.filter(campaign=campaign, judgments_seen=entry["judgments"]).exists(), campaign.kind
