"""Control items' known answers in the pairs report and gold: Dawid-Skene and MACE hold them
fixed (stats.labelmodels.model_truth, known=), and the accuracy table reports the control items
apart (kinds/pairs/partials.py, exports.py)."""

from __future__ import annotations

import csv
import io

import pytest

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Control
from annotate.services.campaigns import create_campaign
from kinds.pairs import exports
from kinds.pairs.partials import CONTROLS_REFERENCE
from scoring import selectors as scoring_selectors
from scoring.jobs import recompute_reports
from scoring.selectors import submitted_judgments
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db

#: (a, b, c) per query's one candidate: a and b wrong together on the three controls (q1-q3) and
#: on q4-q6, where c is alone; q7-q8 all match, q9-q10 all no match.
VOTES = [(False, False, True)] * 6 + [(True, True, True)] * 2 + [(False, False, False)] * 2


@pytest.fixture
def crowd(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Pinned", overlap=3)
    import_topics(campaign=campaign, topics=pairs_topics(10, candidates=1))
    import_judgments(
        campaign=campaign,
        entries=[
            {"assessor": name, "topic": f"q{n + 1}", "payload": {"matches": {"c1": match}}}
            for n, matches in enumerate(VOTES)
            for name, match in zip("abc", matches)
        ],
    )
    return campaign


def gold(campaign, truth: str) -> dict[str, str]:
    topics = list(campaign.topics.order_by("position", "id"))
    text = exports.export(campaign, topics, submitted_judgments(campaign), format="csv", truth=truth)
    rows = list(csv.DictReader(io.StringIO(text)))
    label = next(name for name in rows[0] if name in ("label", "match", "relevant"))
    return {row["topic"]: row[label] for row in rows}


@pytest.mark.parametrize("truth", ["dawid-skene", "mace"])
def test_the_known_answers_flip_the_fitted_truth_of_the_other_items(crowd, truth):
    before = gold(crowd, truth)
    for n in range(1, 4):
        Control.objects.create(topic=crowd.topics.get(external_id=f"q{n}"), item="c1", answer=True)
    after = gold(crowd, truth)
    assert [before[f"q{n}"] for n in range(1, 7)] != [after[f"q{n}"] for n in range(1, 7)]
    assert len({after[f"q{n}"] for n in range(1, 9)}) == 1  # q1-q6 now match, as q7-q8
    assert after["q4"] == after["q7"] != after["q9"]


def test_the_report_pins_the_controls_and_reports_them_apart(crowd):
    for n in range(1, 4):
        Control.objects.create(topic=crowd.topics.get(external_id=f"q{n}"), item="c1", answer=True)
    recompute_reports(crowd.pk, everything=True)
    report = scoring_selectors.campaign_report(crowd).data
    [controls] = [r for r in report.references if r.reference == CONTROLS_REFERENCE]
    assert controls.items == 3
    people = {row.name: row.accuracy for row in controls.assessors}
    assert people == {"a": 0.0, "b": 0.0, "c": 1.0}
    truth = {row.name: row.accuracy for row in controls.truth_sets}
    assert truth["dawid-skene"] == 1.0 and truth["mace"] == 1.0
