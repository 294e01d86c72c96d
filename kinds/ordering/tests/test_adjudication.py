"""Adjudicating orderings: the comparison, the consensus, the fragment and truth=adjudicated."""

from __future__ import annotations

import doctest
import json

import pytest
from django.template.loader import render_to_string

from annotate.imports.write import import_topics
from annotate.models import Curation
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.ordering import adjudication
from kinds.ordering import report as ordering_report
from kinds.registry import get_kind

VIEW = {"items": [{"id": i, "text": f"Item {i.upper()}"} for i in "abcd"]}
# Positions: a 1,2,2 (sum 5); b 2,1,3 (6); c 3,3,4 (10); d 4,4,1 (9): consensus a b d c.
JUDGMENTS = [
    ("alice", {"order": ["a", "b", "c", "d"]}),
    ("bob", {"order": ["b", "a", "c", "d"]}),
    ("carol", {"order": ["d", "a", "b", "c"]}),
]


def test_the_module_examples_hold():
    result = doctest.testmod(adjudication)
    assert result.attempted and not result.failed


def test_compare_gives_positions_rank_ranges_and_the_most_disputed_item():
    c = adjudication.compare(VIEW, JUDGMENTS)
    assert c.assessors == ("alice", "bob", "carol")
    rows = {r.id: r for r in c.rows}
    assert [r.id for r in c.rows] == ["a", "b", "d", "c"]  # consensus order
    assert [(r.positions, r.consensus, r.lowest, r.highest, r.spread) for r in c.rows] == [
        ((1, 2, 2), 1, 1, 2, 1),
        ((2, 1, 3), 2, 1, 3, 2),
        ((4, 4, 1), 3, 1, 4, 3),
        ((3, 3, 4), 4, 3, 4, 1),
    ]
    assert c.max_spread == 3 and [r.id for r in c.disputed] == ["d"]
    assert rows["d"].most_disputed and not rows["b"].most_disputed and rows["a"].text == "Item A"


def test_compare_gives_kendall_tau_and_the_discordant_pairs_of_every_two_assessors():
    c = adjudication.compare(VIEW, JUDGMENTS)
    pairs = {(p.first, p.second): p for p in c.pairs}
    assert list(pairs) == [("alice", "bob"), ("alice", "carol"), ("bob", "carol")]
    # tau = 1 - 2 S / 6 with S discordant pairs of 4 items
    assert pairs["alice", "bob"].tau == pytest.approx(2 / 3)
    assert pairs["alice", "carol"].tau == pytest.approx(0.0)
    assert pairs["bob", "carol"].tau == pytest.approx(-1 / 3)
    assert [(d.first, d.second) for d in pairs["alice", "bob"].discordant] == [("a", "b")]
    assert [(d.first, d.second) for d in pairs["alice", "carol"].discordant] == [("a", "d"), ("b", "d"), ("c", "d")]
    assert [(d.first, d.second) for d in pairs["bob", "carol"].discordant] == [
        ("b", "a"),
        ("b", "d"),
        ("a", "d"),
        ("c", "d"),
    ]
    assert pairs["alice", "bob"].discordant[0].first_text == "Item A"


def test_identical_orderings_mark_nothing():
    c = adjudication.compare(VIEW, [("alice", JUDGMENTS[0][1]), ("bob", JUDGMENTS[0][1])])
    assert c.max_spread == 0 and c.disputed == () and c.pairs[0].tau == 1.0 and c.pairs[0].discordant == ()


def test_consensus_is_the_exports_rank_consensus_with_ties_as_in_the_first_ordering():
    payloads = [p for _, p in JUDGMENTS]
    assert adjudication.consensus(VIEW, payloads) == {"order": ["a", "b", "d", "c"]}
    assert adjudication.consensus(VIEW, payloads)["order"] == ordering_report.consensus_order(
        [p["order"] for p in payloads]
    )
    # b and c tie (summed ranks 5 and 5): the first ordering puts c first.
    tie = [{"order": ["a", "c", "b", "d"]}, {"order": ["a", "b", "c", "d"]}]
    assert adjudication.consensus(VIEW, tie) == {"order": ["a", "c", "b", "d"]}
    with pytest.raises(InvalidInput):
        adjudication.consensus(VIEW, [])


def test_the_spec_names_the_fragment_and_its_functions():
    spec = get_kind("ordering").adjudication
    assert spec.template == "ordering/adjudicate.html"
    assert spec.compare is adjudication.compare and spec.consensus is adjudication.consensus


def test_the_fragment_shows_names_positions_and_the_differences_in_words():
    html = render_to_string("ordering/adjudicate.html", {"comparison": adjudication.compare(VIEW, JUDGMENTS)})
    for name in ("alice", "bob", "carol"):
        assert f'<th scope="col">{name}</th>' in html
    assert "<caption" in html and html.count("differs most") == 2  # the caption and item d's row
    assert '<tr data-item="d" class="differs">' in html and "1–4" in html
    assert "alice · carol</th><td>0.000</td><td>3</td>" in html
    assert 'Item A <span class="muted">a</span> before Item B <span class="muted">b</span>' in html


@pytest.fixture
def campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign, topics=[{"external_id": t, "data": {"items": VIEW["items"]}} for t in ("t1", "t2", "t3")]
    )
    for topic in topics[:2]:
        for name, payload in JUDGMENTS:
            save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    return campaign


def export(api, people, campaign, format):
    response = api(people["admin"]).get(
        f"/api/campaigns/{campaign.pk}/export/", {"format": format, "truth": "adjudicated"}
    )
    assert response.status_code == 200, response.content
    return response.content.decode()


@pytest.mark.django_db
def test_export_adjudicated_takes_the_gold_where_there_is_one_else_the_consensus(api, people, campaign):
    assert "adjudicated" in get_kind("ordering").exports.truths([])
    t1 = campaign.topics.get(external_id="t1")
    save_curation(topic=t1, name="consensus", data={"order": ["d", "c", "b", "a"]}, version=0, user=people["organiser"])
    gold = Curation.objects.get(topic=t1, name="consensus")
    rows = json.loads(export(api, people, campaign, "json"))
    # t3 has neither a gold nor a judgment: left out.
    assert rows == [
        {
            "topic": "t1",
            "source": "adjudicated",
            "adjudicated_by": "organiser",
            "adjudicated_at": gold.updated_at.isoformat(),
            "orderings": 3,
            "order": ["d", "c", "b", "a"],
        },
        {
            "topic": "t2",
            "source": "consensus",
            "adjudicated_by": "",
            "adjudicated_at": "",
            "orderings": 3,
            "order": ["a", "b", "d", "c"],
        },
    ]
    lines = export(api, people, campaign, "csv").splitlines()
    assert lines[0] == "topic,source,adjudicated_by,adjudicated_at,orderings,rank,item"
    assert lines[1] == f"t1,adjudicated,organiser,{gold.updated_at.isoformat()},3,1,d"
    assert lines[5] == "t2,consensus,,,3,1,a" and len(lines) == 1 + 2 * 4


@pytest.mark.django_db
def test_export_adjudicated_of_a_topic_with_a_gold_and_no_judgment(api, people, campaign):
    t3 = campaign.topics.get(external_id="t3")
    save_curation(topic=t3, name="consensus", data={"order": ["a", "b", "c", "d"]}, version=0, user=people["organiser"])
    rows = json.loads(export(api, people, campaign, "json"))
    assert [(r["topic"], r["source"], r["orderings"]) for r in rows] == [
        ("t1", "consensus", 3),
        ("t2", "consensus", 3),
        ("t3", "adjudicated", 0),
    ]


@pytest.mark.django_db
def test_the_adjudication_page_shows_the_fragment_and_accepting_the_consensus_exports_it(client, api, people, campaign):
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/topics/t1/adjudicate/"
    page = client.get(url).content.decode()
    assert 'id="ordering-positions"' in page and '<tr data-item="d" class="differs">' in page
    assert client.post(url, {"action": "consensus", "version": "0"}).status_code == 302
    gold = Curation.objects.get(topic__external_id="t1", name="consensus")
    assert gold.data == {"order": ["a", "b", "d", "c"]} and gold.updated_by == people["organiser"]
    first = json.loads(export(api, people, campaign, "json"))[0]
    assert (first["topic"], first["source"], first["adjudicated_by"]) == ("t1", "adjudicated", "organiser")
