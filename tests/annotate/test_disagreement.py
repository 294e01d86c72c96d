"""Per-topic disagreement (KindSpec Reports.disagreement): each kind's measure
on hand-made reports, stored with the topic's report, and the assignments
page filtering and sorting topics by it (and by open flags)."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

from annotate import services
from annotate.models import Flag
from kinds.registry import KINDS
from scoring.models import Report

pytestmark = pytest.mark.django_db


def vote(campaign, people, topic_id: str, name: str, matches: list[bool]) -> None:
    topic = campaign.topics.get(external_id=topic_id)
    ids = [c["id"] for c in topic.data["candidates"]]
    services.save_judgment(
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
        for test in finder.find(measure, module=importlib.import_module(measure.__module__)):
            examples += len(test.examples)
            runner.run(test)
    assert runner.failures == 0 and examples >= 8


def test_pairs_disagreement_is_the_share_of_split_votes_and_is_stored(
    campaign, people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        vote(campaign, people, "q1", "alice", [True, True, False, False])
        vote(campaign, people, "q1", "bob", [True, False, False, True])  # split on c2 and c4
        vote(campaign, people, "q2", "alice", [True, False, False, False])
        vote(campaign, people, "q2", "bob", [True, False, False, False])  # full agreement
    stored = dict(
        Report.objects.filter(campaign=campaign, topic__isnull=False).values_list("topic__external_id", "disagreement")
    )
    assert stored["q1"] == 0.5 and stored["q2"] == 0.0
    assert "q3" not in stored or stored["q3"] is None  # fewer than two judgments


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
    assert "<td>1.000</td>" in page and "<td>0.250</td>" in page and "Share of split votes" in page
    for bad in ("-1", "3", "lots", "nan"):
        response = client.get(url, {"disagreement": bad})
        assert response.status_code == 400 and "disagreement:" in response.content.decode()
    assert client.get(url, {"flagged": "yes"}).status_code == 400

    Flag.objects.create(topic=campaign.topics.get(external_id="q3"), author=people["alice"], comment="c2 is a typo")
    assert ids(flagged="1") == ["q3"]
    Flag.objects.filter(topic__external_id="q3").update(resolved_at="2026-01-01T00:00:00Z")
    assert ids(flagged="1") == []
