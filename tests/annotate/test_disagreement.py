"""Per-topic disagreement (KindSpec Reports.disagreement): each kind's measure
and reason on hand-made reports, stored with the topic's report, the
adjudication queue ranking crowd items by how split their votes are, and the
assignments page filtering and sorting topics by it (and by open flags)."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import re

import pytest

from annotate.imports.write import import_topics
from annotate.models import Flag
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS
from kinds.spec import Disagreement
from scoring import services as scoring_services
from scoring.models import TopicPartial

pytestmark = pytest.mark.django_db


def vote(campaign, people, topic_id: str, name: str, matches: list[bool]) -> None:
    topic = campaign.topics.get(external_id=topic_id)
    ids = [c["id"] for c in topic.data["candidates"]]
    save_judgment(
        topic=topic,
        assessor=people[name],
        payload={"matches": dict(zip(ids, matches))},
        status="submitted",
        version=0,
    )


def test_every_kind_defines_its_disagreement_and_its_worked_examples_hold():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    examples = 0
    for name, spec in KINDS.items():
        measure = spec.reports.disagreement
        assert callable(measure) and measure.__doc__, f"{name}: document what the disagreement measures"
        from_partial = spec.reports.partial_disagreement
        for function in (measure, *([from_partial] if from_partial else [])):
            for test in finder.find(function, module=importlib.import_module(function.__module__)):
                examples += len(test.examples)
                runner.run(test)
    assert runner.failures == 0 and examples >= 17


def test_pairs_disagreement_is_the_mean_vote_entropy_and_is_stored_with_its_reason(
    campaign, people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        vote(campaign, people, "q1", "alice", [True, True, False, False])
        vote(campaign, people, "q1", "bob", [True, False, False, True])  # 1-1 on c2 and c4: entropy 1 each
        vote(campaign, people, "q2", "alice", [True, False, False, False])
        vote(campaign, people, "q2", "bob", [True, False, False, False])  # full agreement
    stored = {
        topic: (value, reason)
        for topic, value, reason in TopicPartial.objects.filter(campaign=campaign).values_list(
            "topic__external_id", "disagreement", "disagreement_reason"
        )
    }
    assert stored["q1"] == (0.5, "2 of 4 candidates split; most: c2 (1 match / 1 no match)")
    assert stored["q2"] == (0.0, "unanimous on all 4 candidates")
    assert "q3" not in stored or stored["q3"] == (None, "")  # fewer than two judgments


@pytest.fixture
def crowd(people, make_user):
    """Snow et al.'s (2008) shape: one item per topic, ten raters; t1 split 2-8, t2 5-5, t3 4-6,
    t4 unanimous, t5 1-9; reports computed."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=10)
    raters = [make_user(f"w{i}") for i in range(10)]
    for rater in raters:
        add_member(campaign=campaign, username=rater.username, role="assessor")
    splits = {"t1": 2, "t2": 5, "t3": 4, "t4": 0, "t5": 1}
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "title": t, "data": {"query": "entails?", "candidates": [{"id": "c", "text": "pair"}]}}
            for t in splits
        ],
    )
    for topic in campaign.topics.all():
        for i, rater in enumerate(raters):
            save_judgment(
                topic=topic,
                assessor=rater,
                payload={"matches": {"c": i < splits[topic.external_id]}},
                status="submitted",
                version=0,
            )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def test_the_queue_opens_on_the_evenest_split_of_crowd_votes_and_says_why(client, people, crowd):
    """The share of non-unanimous items scored 2-8, 4-6 and 5-5 all 1.000, so the queue opened on
    t1 (2-8) by campaign order; vote entropy puts 5-5 first, 1-9 last before unanimity."""
    client.force_login(people["organiser"])
    response = client.get(f"/campaigns/{crowd.pk}/adjudication/")
    rows = response.context["queue"].rows
    assert [row.topic.external_id for row in rows] == ["t2", "t3", "t1", "t5", "t4"]
    assert [round(row.disagreement, 3) for row in rows] == [1.0, 0.971, 0.722, 0.469, 0.0]
    assert [row.reason for row in rows] == [
        "5 match / 5 no match",
        "6 no match / 4 match",
        "8 no match / 2 match",
        "9 no match / 1 match",
        "10 no match",
    ]
    assert response.context["next_topic"].external_id == "t2"
    page = response.content.decode()
    assert '<span class="muted disagreement-reason">5 match / 5 no match</span>' in page
    assert "Vote entropy" in page  # the help says what the number is


@pytest.mark.parametrize(
    ("report", "reason"),
    [("relevance_grades", "1 × non-relevant / 1 × highly relevant"), ("nugget_labels", "1 vital / 1 okay")],
)
def test_every_label_kind_scores_an_even_split_1_and_gives_the_votes(report, reason):
    found = LABEL_REPORTS[report]()
    assert isinstance(found, Disagreement) and (found.value, found.reason) == (1.0, reason)


def _relevance_grades() -> Disagreement | None:
    from kinds.relevance.report import RelevanceAgreement, RelevanceDocument, RelevanceTopicReport, topic_disagreement

    fields = {f.name: None for f in dataclasses.fields(RelevanceAgreement)}
    scale = ["non-relevant", "related", "relevant", "highly relevant"]
    return topic_disagreement(
        RelevanceTopicReport(**fields, scale=scale, threshold=1, documents=[RelevanceDocument("d", "", [0, 3], None)])
    )


def _nugget_labels() -> Disagreement | None:
    from kinds.nuggets.report import NuggetsNugget, NuggetsTopicReport, topic_disagreement

    return topic_disagreement(NuggetsTopicReport([NuggetsNugget("n", "", None, 1, 0.0)], ["a", "b"]))


LABEL_REPORTS = {"relevance_grades": _relevance_grades, "nugget_labels": _nugget_labels}


def test_graded_relevance_counts_how_far_apart_the_grades_are():
    """Grades one step apart are less disputed than grades at both ends (vote entropy would
    score them alike)."""
    from kinds.relevance.report import RelevanceAgreement, RelevanceDocument, RelevanceTopicReport, topic_disagreement

    fields = {f.name: None for f in dataclasses.fields(RelevanceAgreement)}

    def of(*grades):
        document = RelevanceDocument("d", "", list(grades), None)
        return topic_disagreement(
            RelevanceTopicReport(**fields, scale=["0", "1", "2", "3"], threshold=1, documents=[document])
        )

    assert of(0, 3).value == 1.0 > of(0, 2).value > of(1, 2).value > of(1, 1).value == 0.0
    assert of(1, None) is None  # one grade: nothing to measure


def test_the_assignments_page_filters_and_sorts_by_disagreement_and_flags(
    client, campaign, people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        vote(campaign, people, "q1", "alice", [True, True, False, False])
        vote(campaign, people, "q1", "bob", [False, False, True, True])  # all split: 1.0
        vote(campaign, people, "q2", "alice", [True, True, False, False])
        vote(campaign, people, "q2", "bob", [True, False, False, False])  # 0.25
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/assignments/"

    def ids(**query) -> list[str]:
        """The topic ids of the list, in the order shown."""
        page = client.get(url, query)
        assert page.status_code == 200, page.content[:300]
        rows = page.content.decode().split("<tbody>")[1].split("</tbody>")[0]
        return re.findall(r"/topics/(q\d)/report/", rows)

    assert ids(sort="-disagreement") == ["q1", "q2", "q3"]  # most first; not yet measured last
    assert ids(sort="disagreement") == ["q2", "q1", "q3"]
    assert ids(disagreement="0.5") == ["q1"]
    assert ids(disagreement="0") == ["q1", "q2"]
    page = client.get(url).content.decode()
    assert "<td>1.000</td>" in page and "<td>0.250</td>" in page and "Vote entropy" in page
    for bad in ("-1", "3", "lots", "nan"):
        response = client.get(url, {"disagreement": bad})
        assert response.status_code == 400 and "disagreement:" in response.content.decode()
    assert client.get(url, {"flagged": "yes"}).status_code == 400

    Flag.objects.create(topic=campaign.topics.get(external_id="q3"), author=people["alice"], comment="c2 is a typo")
    assert ids(flagged="1") == ["q3"]
    Flag.objects.filter(topic__external_id="q3").update(resolved_at="2026-01-01T00:00:00Z")
    assert ids(flagged="1") == []
