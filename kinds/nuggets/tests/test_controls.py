"""Control nuggets' known answers in the nuggets gold standard: Dawid-Skene and MACE hold them
fixed (stats.labelmodels.model_truth, known=; kinds/nuggets/exports.py known_answers)."""

from __future__ import annotations

import csv
import io

import pytest

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Control
from annotate.services.campaigns import create_campaign
from kinds.nuggets import exports
from scoring.selectors import submitted_judgments

pytestmark = pytest.mark.django_db

#: (a, b, c) per question's one nugget: a and b wrong together on the three controls (q1-q3) and
#: on q4-q6, where c is alone; q7-q8 all vital, q9-q10 all okay.
VOTES = [("okay", "okay", "vital")] * 6 + [("vital",) * 3] * 2 + [("okay",) * 3] * 2


@pytest.fixture
def crowd(people):
    campaign = create_campaign(creator=people["organiser"], kind="nuggets", name="Pinned", overlap=3)
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": f"q{n}", "data": {"target": f"Q{n}", "nuggets": [{"id": "n1", "text": f"fact {n}"}]}}
            for n in range(1, 11)
        ],
    )
    import_judgments(
        campaign=campaign,
        entries=[
            {"assessor": name, "topic": f"q{n + 1}", "payload": {"labels": {"n1": label}}}
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
def test_the_known_answers_flip_the_fitted_truth_of_the_other_nuggets(crowd, truth):
    before = gold(crowd, truth)
    for n in range(1, 4):
        Control.objects.create(topic=crowd.topics.get(external_id=f"q{n}"), item="n1", answer="vital")
    after = gold(crowd, truth)
    assert [before[f"q{n}"] for n in range(1, 7)] != [after[f"q{n}"] for n in range(1, 7)]
    assert {after[f"q{n}"] for n in range(1, 9)} == {"vital"}  # q1-q6 now vital, as q7-q8
    assert after["q9"] == "okay"


def test_the_vote_gold_reads_no_known_answer(crowd):
    """The consensus (a vote, not a model) is the assessors' whatever the controls say."""
    before = gold(crowd, "consensus")
    for n in range(1, 4):
        Control.objects.create(topic=crowd.topics.get(external_id=f"q{n}"), item="n1", answer="vital")
    assert gold(crowd, "consensus") == before
    assert before["q1"] == "okay"
