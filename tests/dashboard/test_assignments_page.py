"""The assignments page: who has which topic in which
state, a filterable, sortable, paginated list; reassigning a topic (never
one with a judgment); topping up to the overlap."""

from __future__ import annotations

import re

import pytest

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Assignment, Campaign
from annotate.services.assignments import reassign_topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from tests.campaigns import imported_crowd, pairs_topics

pytestmark = pytest.mark.django_db


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/assignments/"


def holders(campaign, topic: str) -> list[str]:
    return sorted(
        Assignment.objects.filter(topic__campaign=campaign, topic__external_id=topic).values_list(
            "assessor__username", flat=True
        )
    )


def judge(campaign, topic: str, who, status: str = "submitted") -> None:
    target = campaign.topics.get(external_id=topic)
    save_judgment(
        topic=target,
        assessor=who,
        payload={"matches": {c["id"]: True for c in target.data["candidates"]} if status == "submitted" else {}},
        status=status,
        version=0,
    )


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def test_reassign_moves_a_topic_without_a_judgment(organiser, campaign):
    add_member(campaign=campaign, username="carol", role="assessor")
    assert holders(campaign, "q1") == ["alice", "bob"]
    response = organiser.post(
        url(campaign), {"action": "reassign", "topic": "q1", "from_assessor": "alice", "to_assessor": "carol"}
    )
    assert response.status_code == 302
    assert holders(campaign, "q1") == ["bob", "carol"]
    assert "Topic q1 moved from alice to carol." in organiser.get(url(campaign)).content.decode()


def test_a_topic_with_a_judgment_stays_with_its_assessor(organiser, campaign, people):
    add_member(campaign=campaign, username="carol", role="assessor")
    judge(campaign, "q1", people["alice"], status="draft")
    response = organiser.post(
        url(campaign), {"action": "reassign", "topic": "q1", "from_assessor": "alice", "to_assessor": "carol"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing changed: from_assessor: &#x27;alice&#x27; has a draft judgment of topic &#x27;q1&#x27;" in page
    assert holders(campaign, "q1") == ["alice", "bob"]


@pytest.mark.parametrize(
    ("form", "field", "message"),
    [
        ({"topic": "q9", "from_assessor": "alice", "to_assessor": "carol"}, "topic", "no topic 'q9' in this campaign"),
        ({"topic": "q1", "from_assessor": "carol", "to_assessor": "alice"}, "from_assessor", "'carol' is not assigned topic 'q1'"),
        ({"topic": "q1", "from_assessor": "alice", "to_assessor": "bob"}, "to_assessor", "'bob' is already assigned topic 'q1'"),
        ({"topic": "q1", "from_assessor": "alice", "to_assessor": "alice"}, "to_assessor", "choose another assessor than the one the topic is taken from"),
        ({"topic": "q1", "from_assessor": "alice", "to_assessor": "organiser"}, "to_assessor", "'organiser' is not an assessor of this campaign"),
        ({"topic": "q1", "from_assessor": "alice", "to_assessor": ""}, "to_assessor", "required"),
    ],
)  # fmt: skip
def test_reassign_refusals_name_the_field_and_change_nothing(campaign, form, field, message):
    before = sorted(Assignment.objects.values_list("topic_id", "assessor_id"))
    with pytest.raises(InvalidInput) as refused:
        reassign_topic(campaign=campaign, **form)
    assert (refused.value.field, refused.value.message) == (field, message)
    assert sorted(Assignment.objects.values_list("topic_id", "assessor_id")) == before


def test_an_imported_worker_gets_no_topic(campaign):
    import_judgments(
        campaign=campaign,
        entries=[{"assessor": "w1", "topic": "q2", "payload": {"matches": {f"c{i}": True for i in range(1, 5)}}}],
    )
    with pytest.raises(InvalidInput) as refused:
        reassign_topic(campaign=campaign, topic="q1", from_assessor="alice", to_assessor="w1")
    assert refused.value.field == "to_assessor" and "imported assessor" in refused.value.message


def test_top_up_to_the_overlap(organiser, campaign):
    add_member(campaign=campaign, username="carol", role="assessor")
    assert Assignment.objects.filter(topic__campaign=campaign).count() == 6
    Campaign.objects.filter(pk=campaign.pk).update(overlap=3)
    response = organiser.post(url(campaign), {"action": "topup"})
    assert response.status_code == 302
    assert holders(campaign, "q2") == ["alice", "bob", "carol"]
    assert "Topped up to the overlap: 3 new assignments." in organiser.get(url(campaign)).content.decode()
    assert organiser.post(url(campaign), {"action": "shuffle"}).status_code == 400


def rows(response) -> list[str]:
    """The topic ids listed, in order."""
    return re.findall(r'/topics/([^/]+)/report/">', response.content.decode())


def test_the_list_filters_by_search_state_and_assessor(organiser, campaign, people):
    import_topics(campaign=campaign, topics=pairs_topics(5)[3:])
    judge(campaign, "q1", people["alice"])
    judge(campaign, "q1", people["bob"])
    judge(campaign, "q2", people["bob"], status="draft")
    judge(campaign, "q3", people["alice"])
    reopen_judgment(topic=campaign.topics.get(external_id="q3"), assessor=people["alice"], version=1)
    assert rows(organiser.get(url(campaign))) == ["q1", "q2", "q3", "q4", "q5"]
    assert rows(organiser.get(url(campaign), {"q": "query 4"})) == ["q4"]
    assert rows(organiser.get(url(campaign), {"state": "submitted"})) == ["q1"]
    assert rows(organiser.get(url(campaign), {"state": "draft"})) == ["q2"]
    assert rows(organiser.get(url(campaign), {"state": "reopened"})) == ["q3"]
    assert rows(organiser.get(url(campaign), {"state": "new"})) == ["q2", "q3", "q4", "q5"]
    assert rows(organiser.get(url(campaign), {"state": "new", "assessor": "bob"})) == ["q3", "q4", "q5"]
    assert rows(organiser.get(url(campaign), {"sort": "-submissions"})) == ["q1", "q3", "q2", "q4", "q5"]
    assert rows(organiser.get(url(campaign), {"sort": "-id"})) == ["q5", "q4", "q3", "q2", "q1"]
    page = organiser.get(url(campaign), {"q": "q2"}).content.decode()
    assert "alice (no judgment)" in page and "bob (draft)" in page
    # Only alice, who has no judgment of q2, is offered to take it from.
    form = re.search(r'name="topic" value="q2">(.*?)</form>', page, re.S).group(1)
    assert re.findall(r'<option value="(\w+)">', form.split("to_assessor")[0]) == ["alice"]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"state": "lost"}, "state"), ({"sort": "colour"}, "sort"), ({"page": "0"}, "page"), ({"page": "9"}, "page"),
     ({"assessor": "nobody"}, "assessor")],
)  # fmt: skip
def test_bad_filters_are_400_naming_the_field(organiser, campaign, query, field):
    response = organiser.get(url(campaign), query)
    assert response.status_code == 400
    assert f"Nothing changed: {field}:" in response.content.decode()


def test_fifty_topics_a_page(organiser, campaign):
    import_topics(
        campaign=campaign,
        topics=[{**t, "external_id": f"x{n:03d}"} for n, t in enumerate(pairs_topics(120)[3:], start=4)],
    )
    first = organiser.get(url(campaign))
    assert len(rows(first)) == 50 and "120 topics · page 1 of 3" in first.content.decode()
    last = organiser.get(url(campaign), {"page": "3"})
    assert rows(last) == [f"x{n:03d}" for n in range(101, 121)]
    assert 'rel="prev"' in last.content.decode() and 'rel="next"' not in last.content.decode()
    assert "page=2" in first.content.decode()


def test_only_organisers_see_it(client, campaign, people):
    client.force_login(people["alice"])
    assert client.get(url(campaign)).status_code == 403
    client.force_login(people["other_organiser"])
    assert client.get(url(campaign)).status_code == 404
    client.force_login(people["admin"])
    assert client.get(url(campaign)).status_code == 200


def test_an_imported_crowd_campaign_says_its_observed_raters_not_the_overlap(client, people):
    """Ten imported workers per item: the header and the top-up said "2 assessors per topic"."""
    crowd = imported_crowd(people["organiser"])
    client.force_login(people["organiser"])
    header = client.get(f"/campaigns/{crowd.pk}/").content.decode()
    assert "9–10 assessors per topic (imported)" in header and "2 assessors per topic" not in header
    page = client.get(url(crowd)).content.decode()
    assert "Give topics with fewer than 2 assessors more of your assessors" in page
    assert "Top up to 2" not in page and "Imported topics have 9–10 assessors per topic (imported)" in page
    # A campaign of its own assessors keeps the overlap's words.
    plain = create_campaign(creator=people["organiser"], kind="pairs", name="Own", overlap=2)
    assert "Top up to 2 assessors per topic" in client.get(url(plain)).content.decode()
