"""Adjudication: the queue, the adjudication page's actions, the
adjudicator role's permissions (docs/pages.md, "Adjudication")."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate.imports.write import import_topics
from annotate.models import Curation, CurationRevision, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.flags import create_flag
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring import services as scoring_services

pytestmark = pytest.mark.django_db

#: (alice's, bob's) matches of c1..c4 per topic: q1 splits on 2 of 4 candidates, q2 on 1, q3 on none.
VOTES = {
    "q1": ([True, True, False, False], [True, False, True, False]),
    "q2": ([True, False, False, False], [True, True, False, False]),
    "q3": ([True, False, True, False], [True, False, True, False]),
}


def matches(values: list[bool]) -> dict:
    return {"matches": {f"c{i}": v for i, v in enumerate(values, 1)}}


@pytest.fixture
def disputed(people, make_user):
    """A pairs campaign: alice and bob submitted q1-q3, only alice q4; carol (a third assessor) q1;
    dana adjudicates; reports computed."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Disputed", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = [
        {
            "external_id": f"q{t}",
            "title": f"Query {t}",
            "data": {
                "query": f"Name {t}",
                "candidates": [{"id": f"c{c}", "text": f"Cand {t}.{c}"} for c in range(1, 5)],
            },
        }
        for t in range(1, 5)
    ]
    import_topics(campaign=campaign, topics=topics)
    add_member(campaign=campaign, username="carol", role="assessor")
    by_id = {t.external_id: t for t in Topic.objects.filter(campaign=campaign)}
    for topic_id, (mine, theirs) in VOTES.items():
        for name, values in (("alice", mine), ("bob", theirs)):
            save_judgment(
                topic=by_id[topic_id], assessor=people[name], payload=matches(values), status="submitted", version=0
            )
    save_judgment(
        topic=by_id["q4"], assessor=people["alice"], payload=matches([True] * 4), status="submitted", version=0
    )
    by_id["q1"].assignments.get_or_create(assessor=people["carol"])
    save_judgment(
        topic=by_id["q1"], assessor=people["carol"], payload=matches([False] * 4), status="submitted", version=0
    )
    people["dana"] = make_user("dana")
    add_member(campaign=campaign, username="dana", role="adjudicator")
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def queue_ids(response) -> list[str]:
    return [row.topic.external_id for row in response.context["queue"].rows]


def test_the_queue_lists_topics_two_judged_most_disputed_first(disputed, people):
    response = login(people["organiser"]).get(f"/campaigns/{disputed.pk}/adjudication/")
    assert response.status_code == 200
    # q1: alice, bob and carol split 2-1 on c1, c2 and c3 (entropy 0.918 each, 3 of 4); q2: 1-1 on c2
    # (1 of 4); q3: none; q4 has one judgment.
    assert queue_ids(response) == ["q1", "q2", "q3"]
    rows = response.context["queue"].rows
    assert [round(row.disagreement, 4) for row in rows] == [round(3 * 0.9182958340544896 / 4, 4), 0.25, 0.0]
    assert [row.reason for row in rows] == [
        "3 of 4 candidates split; most: c1 (2 match / 1 no match)",
        "1 of 4 candidates split; most: c2 (1 match / 1 no match)",
        "unanimous on all 4 candidates",
    ]
    assert [row.submissions for row in response.context["queue"].rows] == [3, 2, 2]
    assert response.context["next_topic"].external_id == "q1"


def test_the_queue_filters_by_assessor_pair_flags_and_state(disputed, people):
    client = login(people["organiser"])
    base = f"/campaigns/{disputed.pk}/adjudication/"
    assert queue_ids(client.get(base, {"assessor": "alice", "other": "carol"})) == ["q1"]
    assert queue_ids(client.get(base, {"assessor": "bob"})) == ["q1", "q2", "q3"]
    create_flag(topic=disputed.topics.get(external_id="q3"), author=people["bob"], comment="c1 twice?")
    assert queue_ids(client.get(base, {"flagged": "yes"})) == ["q3"]
    assert queue_ids(client.get(base, {"flagged": "no"})) == ["q1", "q2"]
    q2 = disputed.topics.get(external_id="q2")
    save_curation(topic=q2, name="consensus", data=matches([True] * 4), version=0, user=people["organiser"])
    adjudicated = client.get(base, {"state": "adjudicated"})
    assert queue_ids(adjudicated) == ["q2"]
    gold = adjudicated.context["queue"].rows[0].gold
    assert (gold.version, gold.by, gold.revisions) == (1, "organiser", 1)
    assert b"adjudicated: version 1 by organiser" in adjudicated.content
    assert queue_ids(client.get(base, {"state": "open"})) == ["q1", "q3"]
    # The most disputed open topic skips the adjudicated q2.
    assert client.get(base).context["next_topic"].external_id == "q1"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"state": "done"}, "state"),
        ({"flagged": "maybe"}, "flagged"),
        ({"assessor": "nobody"}, "assessor"),
        ({"other": "bob"}, "assessor"),
        ({"assessor": "bob", "other": "bob"}, "other"),
        ({"page": "0"}, "page"),
        ({"page": "9"}, "page"),
    ],
)
def test_a_bad_query_string_is_a_400_naming_the_field(disputed, people, query, field):
    response = login(people["organiser"]).get(f"/campaigns/{disputed.pk}/adjudication/", query)
    assert response.status_code == 400
    assert response.context["error"].field == field
    assert f"{field}: ".encode() in response.content


def test_the_page_shows_the_votes_with_names_and_the_actions(disputed, people):
    response = login(people["organiser"]).get(f"/campaigns/{disputed.pk}/topics/q2/adjudicate/")
    assert response.status_code == 200
    comparison = response.context["comparison"]
    assert comparison.assessors == ("alice", "bob")
    assert [(r.id, r.voted_match, r.voted_no_match, r.split) for r in comparison.rows] == [
        ("c1", ["alice", "bob"], [], False),
        ("c2", ["bob"], ["alice"], True),
        ("c3", [], ["alice", "bob"], False),
        ("c4", [], ["alice", "bob"], False),
    ]
    body = response.content.decode()
    assert "Accept alice's judgment" in body and "Accept bob's judgment" in body and "Accept the consensus" in body
    assert 'name="csrfmiddlewaretoken"' in body and 'name="version" value="0"' in body
    assert "Open: no gold saved yet." in body
    assert "/topics/q2/consensus/?from=alice" in body
    # The next most disputed open topic, not this one.
    assert response.context["page"].next_topic.external_id == "q1"


def test_accepting_saves_versioned_curations_and_a_stale_version_overwrites_nothing(disputed, people):
    client = login(people["dana"])
    url = f"/campaigns/{disputed.pk}/topics/q2/adjudicate/"
    q2 = disputed.topics.get(external_id="q2")
    first = client.post(url, {"action": "consensus", "version": "0"})
    assert first.status_code == 302 and first.url == url
    gold = Curation.objects.get(topic=q2, name="consensus")
    # A 1-1 tie on c2 is a match (AWM type 1).
    assert (gold.version, gold.data, gold.updated_by.username) == (1, matches([True, True, False, False]), "dana")
    second = client.post(url, {"action": "assessor", "assessor": "alice", "version": "1"})
    assert second.status_code == 302
    gold.refresh_from_db()
    assert (gold.version, gold.data) == (2, matches(VOTES["q2"][0]))
    # bob's page was read at version 1: someone saved meanwhile.
    stale = client.post(url, {"action": "assessor", "assessor": "bob", "version": "1"})
    assert stale.status_code == 409
    assert b"Someone else saved this topic's gold meanwhile: nothing was overwritten" in stale.content
    gold.refresh_from_db()
    assert (gold.version, gold.data) == (2, matches(VOTES["q2"][0]))
    assert list(CurationRevision.objects.filter(curation=gold).values_list("version", "author__username")) == [
        (1, "dana"),
        (2, "dana"),
    ]
    shown = client.get(url)
    assert b"Adjudicated: version 2, saved by dana" in shown.content
    assert b"(2 saves kept)" in shown.content


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"action": "assessor", "assessor": "carol", "version": "0"}, "assessor"),
        ({"action": "publish", "version": "0"}, "action"),
        ({"action": "consensus", "version": "one"}, "version"),
    ],
)
def test_a_bad_action_is_a_400_and_writes_nothing(disputed, people, data, field):
    response = login(people["organiser"]).post(f"/campaigns/{disputed.pk}/topics/q2/adjudicate/", data)
    assert response.status_code == 400
    assert response.context["error"].field == field
    assert not Curation.objects.filter(topic__campaign=disputed).exists()


def test_an_adjudicator_sees_the_queue_and_nothing_of_the_reports(disputed, people):
    client = login(people["dana"])
    base = f"/campaigns/{disputed.pk}"
    home = client.get("/")
    assert f'href="{base}/adjudication/"'.encode() in home.content
    page = client.get(f"{base}/")
    assert page.status_code == 200
    assert f'href="{base}/adjudication/"'.encode() in page.content
    assert b"Agreement" not in page.content and b"Progress per assessor" not in page.content
    assert client.get(f"{base}/adjudication/").status_code == 200
    assert b"alice" in client.get(f"{base}/topics/q1/adjudicate/").content
    assert client.get(f"{base}/topics/q1/consensus/").status_code == 200
    for url in (
        f"{base}/report/",
        f"{base}/topics/q1/report/",
        f"{base}/export/",
        f"{base}/export/download/?format=csv&truth=consensus",
        f"{base}/jobs/",
        f"{base}/progress/",
        f"{base}/assignments/",
        f"{base}/topics/q1/judge/",
        f"/api/campaigns/{disputed.pk}/agreement/",
        f"/api/campaigns/{disputed.pk}/export/?format=csv&truth=consensus",
        f"/api/campaigns/{disputed.pk}/judgments/",
        f"/api/campaigns/{disputed.pk}/topics/",
        f"/api/campaigns/{disputed.pk}/flags/",
    ):
        assert client.get(url).status_code == 403, url


def test_assessors_never_reach_the_adjudication_pages(disputed, people):
    client = login(people["alice"])
    assert client.get(f"/campaigns/{disputed.pk}/adjudication/").status_code == 403
    assert client.get(f"/campaigns/{disputed.pk}/topics/q1/adjudicate/").status_code == 403
    assert (
        client.post(
            f"/campaigns/{disputed.pk}/topics/q1/adjudicate/", {"action": "consensus", "version": "0"}
        ).status_code
        == 403
    )
    assert client.get(f"/campaigns/{disputed.pk}/topics/q1/consensus/").status_code == 403
    assert not Curation.objects.filter(topic__campaign=disputed).exists()


def test_the_curation_api_lets_adjudicators_write_the_consensus_only(disputed, people, api):
    client = api(people["dana"])
    url = f"/api/campaigns/{disputed.pk}/topics/q1/curations/consensus/"
    saved = client.put(url, {"data": matches([True, False, True, False]), "version": 0}, format="json")
    assert saved.status_code == 200, saved.content
    assert saved.json()["version"] == 1
    stale = client.put(url, {"data": matches([False] * 4), "version": 0}, format="json")
    assert stale.status_code == 409 and stale.json()["current_version"] == 1
    assert client.get(url).json()["data"] == matches([True, False, True, False])
    other = f"/api/campaigns/{disputed.pk}/topics/q1/curations/relations/"
    assert client.put(other, {"data": {}, "version": 0}, format="json").status_code == 403
    assert client.get(other).status_code == 403
    assert api(people["alice"]).put(url, {"data": matches([True] * 4), "version": 1}, format="json").status_code == 403


def test_adjudicator_is_a_role_on_the_members_page_and_api(disputed, people, api):
    organiser = login(people["organiser"])
    page = organiser.get(f"/campaigns/{disputed.pk}/members/")
    assert b'<option value="adjudicator">Adjudicator</option>' in page.content
    added = api(people["organiser"]).post(
        f"/api/campaigns/{disputed.pk}/members/", {"username": "erin", "role": "adjudicator"}, format="json"
    )
    assert added.status_code == 201 and added.json()["role"] == "adjudicator"
    # An adjudicator gets no topics to judge.
    assert not disputed.topics.filter(assignments__assessor__username="erin").exists()
