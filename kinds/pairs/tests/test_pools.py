"""Adjudication pools from systems' results, and the one-adjudicator-per-pair design."""

from __future__ import annotations

import pytest

from annotate.imports.write import import_topics
from annotate.models import Assignment, Judgment, Run, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.pairs.pools import build_pools

pytestmark = pytest.mark.django_db

QUERIES = {"q1": "Mohamed Hammadi", "q2": "Olga Ivanova"}
RUNS = [
    {
        "name": "sysA",
        "data": {
            "results": {
                "q1": [
                    {"id": "r1", "text": "Muhammad Hamadi", "score": 0.9},
                    {"id": "r0", "text": "mohamed  HAMMADI", "score": 0.99},
                    {"id": "r2", "text": "Haji Mohamed Hammadi", "score": 0.5},
                ],
                "q2": [{"id": "r7", "text": "Olga Ivanov", "score": 0.8}],
            }
        },
    },
    {
        "name": "sysB",
        "data": {
            "results": {
                "q1": [
                    {"id": "r2", "text": "Haji Mohamed Hammadi", "score": 0.7},
                    {"id": "r3", "text": "Ahmed Hammadi", "score": 0.4},
                ]
            }
        },
    },
]


def candidates(campaign, query):
    return {c["id"]: c["runs"] for c in Topic.objects.get(campaign=campaign, external_id=query).data["candidates"]}


def test_pools_are_the_union_without_exact_matches_with_provenance(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="P", overlap=1)
    build_pools(campaign=campaign, queries=QUERIES, runs=RUNS)
    assert candidates(campaign, "q1") == {
        "r1": ["sysA"],
        "r2": ["sysA", "sysB"],
        "r3": ["sysB"],
    }  # r0 is the query itself
    assert candidates(campaign, "q2") == {"r7": ["sysA"]}
    assert sorted(Run.objects.filter(campaign=campaign).values_list("name", flat=True)) == ["sysA", "sysB"]


def test_pool_depth_cuts_each_system(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="P", overlap=1)
    build_pools(campaign=campaign, queries=QUERIES, runs=RUNS, depth=1)
    # depth 1: sysA's first result for q1 is r1 (its r0 is excluded after the cut), sysB's is r2
    assert candidates(campaign, "q1") == {"r1": ["sysA"], "r2": ["sysB"]}


@pytest.mark.parametrize(
    ("queries", "runs", "field"),
    [
        ({"q1": ""}, RUNS, "queries.q1"),
        (QUERIES, [{"name": "s", "data": {"results": {"q9": []}}}], "runs[0].data.results.q9"),
        (
            QUERIES,
            [{"name": "s", "data": {"results": {"q1": [{"id": "a", "text": "x", "score": "high"}]}}}],
            "runs[0].data.results.q1[0].score",
        ),
    ],
)
def test_bad_pool_input_builds_nothing(people, queries, runs, field):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="P", overlap=1)
    with pytest.raises(InvalidInput) as error:
        build_pools(campaign=campaign, queries=queries, runs=runs)
    assert error.value.field == field
    assert not Topic.objects.filter(campaign=campaign).exists() and not Run.objects.filter(campaign=campaign).exists()


def test_pools_through_the_api(api, people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="P", overlap=1)
    url = f"/api/campaigns/{campaign.pk}/pools/"
    assert api(people["alice"]).post(url, {"queries": QUERIES, "runs": RUNS}, format="json").status_code == 404
    response = api(people["organiser"]).post(url, {"queries": QUERIES, "runs": RUNS, "depth": 2}, format="json")
    assert response.status_code == 201 and [t["external_id"] for t in response.json()] == ["q1", "q2"]


def test_one_adjudicator_per_pair(api, people):
    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Cheap", overlap=1, params={"design": "one-per-item"}
    )
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = [
        {
            "external_id": f"t{t}",
            "data": {"query": "Q", "candidates": [{"id": f"c{c}", "text": "x"} for c in range(12)]},
        }
        for t in range(4)
    ]
    import_topics(campaign=campaign, topics=topics)
    for topic in Topic.objects.filter(campaign=campaign):
        assigned = [item for a in topic.assignments.all() for item in a.items]
        assert sorted(assigned) == sorted(f"c{c}" for c in range(12))  # every pair exactly once
    by_assessor = {a.assessor.username: a.items for a in Assignment.objects.filter(topic__external_id="t0")}
    assert len(by_assessor) >= 2  # the pairs of a query are spread over adjudicators
    name, items = next(iter(by_assessor.items()))
    topic = Topic.objects.get(external_id="t0")
    url = f"/api/campaigns/{campaign.pk}/topics/t0/judgment/"
    others = next(c for c in (f"c{i}" for i in range(12)) if c not in items)
    refused = api(people[name]).put(
        url, {"payload": {"matches": {others: True}}, "status": "draft", "version": 0}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["detail"] == "not assigned to you"
    done = api(people[name]).put(
        url, {"payload": {"matches": {i: True for i in items}}, "status": "submitted", "version": 0}, format="json"
    )
    assert done.status_code == 200
    assert Judgment.objects.get(topic=topic, assessor__username=name).payload == {
        "matches": {i: True for i in sorted(items, key=lambda c: int(c[1:]))}
    }


def test_judging_page_shows_only_the_assigned_pairs(client, people):
    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Cheap", overlap=1, params={"design": "one-per-item"}
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "t0",
                "data": {"query": "Q", "candidates": [{"id": f"c{c}", "text": f"Cand {c}"} for c in range(10)]},
            }
        ],
    )
    assignment = Assignment.objects.get(topic__external_id="t0", assessor__username="alice")
    client.force_login(people["alice"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/t0/judge/").content.decode()
    assert page.count('class="candidate"') == len(assignment.items)
