"""Control items' known answers in the labels report and gold: Dawid-Skene and MACE hold them
fixed (stats.labelmodels.model_truth, known=), and the accuracy table reports the control items
apart (kinds/labels/partials.py, exports.py)."""

from __future__ import annotations

import csv
import io

import pytest

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Control
from annotate.services.campaigns import create_campaign
from kinds.labels import exports
from kinds.labels.partials import CONTROLS_REFERENCE
from scoring import selectors as scoring_selectors
from scoring.jobs import recompute_reports
from scoring.selectors import submitted_judgments

pytestmark = pytest.mark.django_db

#: (a, b, c) per item: a and b agree on the wrong answer of the three controls (t00-t02) and of
#: t03-t05, where c is alone; t06-t07 all say yes, t08-t09 all no.
VOTES = [("no", "no", "yes")] * 6 + [("yes", "yes", "yes")] * 2 + [("no", "no", "no")] * 2


@pytest.fixture
def crowd(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="labels", name="Pinned", overlap=3, params={"categories": ["yes", "no"]}
    )
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": f"t{n:02d}", "data": {"items": [{"id": "i1", "text": f"item {n}"}]}} for n in range(10)
        ],
    )
    import_judgments(
        campaign=campaign,
        entries=[
            {"assessor": name, "topic": f"t{n:02d}", "payload": {"labels": {"i1": label}}}
            for n, labels in enumerate(VOTES)
            for name, label in zip("abc", labels)
        ],
    )
    return campaign


def gold(campaign, truth: str) -> dict[str, str]:
    topics = list(campaign.topics.order_by("position", "id"))
    text = exports.export(campaign, topics, submitted_judgments(campaign), format="csv", truth=truth)
    return {row["topic"]: row["label"] for row in csv.DictReader(io.StringIO(text))}


@pytest.mark.parametrize("truth", ["dawid-skene", "mace"])
def test_the_known_answers_flip_the_fitted_truth_of_the_other_items(crowd, truth):
    before = gold(crowd, truth)
    assert [before[f"t{n:02d}"] for n in range(6)] == ["no"] * 6  # the majority's
    for n in range(3):
        Control.objects.create(topic=crowd.topics.get(external_id=f"t{n:02d}"), item="i1", answer="yes")
    after = gold(crowd, truth)
    # a and b are wrong on every control, so the model trusts c on t03-t05 too
    assert [after[f"t{n:02d}"] for n in range(6)] == ["yes"] * 6
    assert [after[f"t{n:02d}"] for n in range(6, 10)] == ["yes", "yes", "no", "no"]
    assert gold(crowd, "consensus")["t03"] == "no"  # a vote takes no known answer


def test_the_report_pins_the_controls_and_reports_them_apart(crowd):
    for n in range(3):
        Control.objects.create(topic=crowd.topics.get(external_id=f"t{n:02d}"), item="i1", answer="yes")
    recompute_reports(crowd.pk, everything=True)
    report = scoring_selectors.campaign_report(crowd).data
    [controls] = [r for r in report.references if r.reference == CONTROLS_REFERENCE]
    assert controls.items == 3
    truth = {row.name: (row.n, row.accuracy) for row in controls.truth_sets}
    assert truth["majority vote"] == (3, 0.0)
    assert truth["dawid-skene"] == (3, 1.0) and truth["mace"] == (3, 1.0)
    people = {row.name: (row.n, row.accuracy) for row in controls.assessors}
    assert people == {"a": (3, 0.0), "b": (3, 0.0), "c": (3, 1.0)}
    reliability = {r.assessor: r.accuracy for r in report.reliability}
    assert reliability["c"] > 0.9 > 0.5 > reliability["a"]


def test_a_campaign_without_controls_has_no_controls_reference(crowd):
    recompute_reports(crowd.pk, everything=True)
    report = scoring_selectors.campaign_report(crowd).data
    assert [r.reference for r in report.references] == []
    assert {r.assessor: round(r.accuracy, 2) for r in report.reliability}["c"] < 0.5
