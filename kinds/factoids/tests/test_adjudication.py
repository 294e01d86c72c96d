"""Adjudicating factoid annotations: the comparison, no automatic consensus, the fragment,
and who adjudicated the consensus export when."""

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
from kinds.factoids import adjudication
from kinds.factoids import report as factoid_report
from kinds.factoids import stats as m
from kinds.registry import get_kind

TOPIC = {
    "summaries": [
        {
            "id": "M1",
            "author": "writer-1",
            "sentences": [
                {"id": "m1", "text": "Iraq invaded Kuwait."},
                {"id": "m2", "text": "Kuwait was invaded by Iraq."},
                {"id": "m3", "text": "Oil prices rose."},
            ],
        },
        {"id": "S1", "run": "sys-1", "sentences": [{"id": "x1", "text": "Iraq moved into Kuwait."}]},
    ]
}
VIEW = get_kind("factoids").data.assessor_view(TOPIC)
ANN = {
    "factoids": [{"id": "A1", "text": "Iraq invaded Kuwait"}, {"id": "A2", "text": "Oil rose"}],
    "marks": {"m1": ["A1"], "m2": ["A1"], "m3": ["A2"], "x1": ["A1"]},
}
BOB = {
    "factoids": [{"id": "B1", "text": "invasion"}, {"id": "B2", "text": "oil price up"}],
    "marks": {"m1": ["B1"], "m2": ["B1"], "m3": ["B2"]},
}
JUDGMENTS = [("ann", ANN), ("bob", BOB)]


def test_the_module_examples_hold():
    result = doctest.testmod(adjudication)
    assert result.attempted and not result.failed


def test_compare_shows_inventories_and_marks_side_by_side():
    c = adjudication.compare(VIEW, JUDGMENTS)
    assert c.annotators == ("ann", "bob")
    ann, bob = c.inventories
    assert [(f.id, f.text, f.sentences) for f in ann.factoids] == [
        ("A1", "Iraq invaded Kuwait", ("m1", "m2", "x1")),
        ("A2", "Oil rose", ("m3",)),
    ]
    assert [(f.id, f.sentences) for f in bob.factoids] == [("B1", ("m1", "m2")), ("B2", ("m3",))]
    rows = {r.id: r for r in c.sentences}
    assert [(r.summary, r.model, r.id) for r in c.sentences] == [
        ("M1", True, "m1"),
        ("M1", True, "m2"),
        ("M1", True, "m3"),
        ("S1", False, "x1"),
    ]
    assert [[(f.id, f.text) for f in marks] for marks in rows["x1"].marks] == [[("A1", "Iraq invaded Kuwait")], []]
    assert [r.id for r in c.disputed] == ["x1"]


def test_compare_pairs_factoids_by_the_suggested_relations_and_lists_the_discrepancies():
    (pair,) = adjudication.compare(VIEW, JUDGMENTS).pairs
    assert (pair.first, pair.second) == ("ann", "bob")
    # A1 on m1, m2, x1 and B1 on m1, m2: Jaccard 2/3 >= 0.6; A2 and B2 on m3: 1.
    assert [(r.kind, r.first, r.second) for r in pair.relations] == [
        ("identity", ("A1",), ("B1",)),
        ("identity", ("A2",), ("B2",)),
    ]
    assert [(d.sentence, d.first_factoid, d.second_factoid, d.marked_by) for d in pair.discrepancies] == [
        ("x1", "A1", "B1", "ann")
    ]
    # The report's definition kappa on the same relations (section 3.2).
    relations = [{"first": ["A1"], "second": ["B1"]}, {"first": ["A2"], "second": ["B2"]}]
    summaries = [
        {"id": "M1", "model": True, "sentences": ["m1", "m2", "m3"]},
        {"id": "S1", "model": False, "sentences": ["x1"]},
    ]
    assert pair.definition_kappa == pytest.approx(m.definition_kappa(relations, ANN, BOB, summaries).kappa)
    assert pair.definition_kappa == pytest.approx(7 / 15)
    # The same pairing as the Phase 2 list the annotator reads (kinds/factoids/pages.py).
    assert factoid_report.suggested_relations(ANN, BOB, summaries) == relations


def test_a_subsumption_is_listed_and_leaves_nothing_to_compare():
    split = {
        "factoids": [{"id": "B1", "text": "Iraq"}, {"id": "B2", "text": "invaded Kuwait"}],
        "marks": {"m1": ["B1"], "m2": ["B1", "B2"], "x1": ["B2"]},
    }
    one = {"factoids": [ANN["factoids"][0]], "marks": {"m1": ["A1"], "m2": ["A1"], "x1": ["A1"]}}
    (pair,) = adjudication.compare(VIEW, [("ann", one), ("bob", split)]).pairs
    assert [(r.kind, r.first, r.second) for r in pair.relations] == [("subsumption", ("A1",), ("B1", "B2"))]
    assert pair.discrepancies == ()


def test_no_automatic_consensus_and_the_spec_names_the_fragment():
    spec = get_kind("factoids").adjudication
    assert spec.template == "factoids/adjudicate.html" and spec.compare is adjudication.compare
    assert spec.consensus is None


def test_the_fragment_shows_names_marks_and_the_differences_in_words():
    html = render_to_string("factoids/adjudicate.html", {"comparison": adjudication.compare(VIEW, JUDGMENTS)})
    for name in ("ann", "bob"):
        assert f'<th scope="col">{name}</th>' in html and f"{name}'s inventory: 2 factoids" in html
    assert '<tr data-sentence="x1" class="differs">' in html and html.count("<strong>differs</strong>") == 1
    assert "factoid definition κ 0.467" in html and "2 suggested relations" in html and "1 discrepancy" in html
    assert '<th scope="row">x1</th><td>A1</td><td>B1</td><td>ann only</td>' in html
    assert "identity: ann A1 = bob B1" in html
    assert "writer-1" not in html and "sys-1" not in html  # who wrote a summary stays hidden


@pytest.mark.django_db
def test_the_consensus_export_says_who_adjudicated_it_and_when(api, people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    topic, other = import_topics(
        campaign=campaign, topics=[{"external_id": t, "data": TOPIC} for t in ("kuwait", "oil")]
    )
    save_judgment(topic=topic, assessor=people["alice"], payload=ANN, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    save_curation(topic=topic, name="consensus", data=ANN, version=0, user=people["organiser"])
    at = Curation.objects.get(topic=topic, name="consensus").updated_at.isoformat()
    admin = api(people["admin"])
    url = f"/api/campaigns/{campaign.pk}/export/"
    rows = json.loads(admin.get(url, {"format": "json", "truth": "consensus"}).content)
    # the topic without a consensus ("oil") has no rows
    assert [(r["topic"], r["factoid"], r["weight"], r["adjudicated_by"], r["adjudicated_at"]) for r in rows] == [
        ("kuwait", "A1", 1, "organiser", at),
        ("kuwait", "A2", 1, "organiser", at),
    ]
    lines = admin.get(url, {"format": "csv", "truth": "consensus"}).content.decode().splitlines()
    assert lines[0] == "topic,factoid,text,weight,sentences,adjudicated_by,adjudicated_at"
    assert lines[1] == f"kuwait,A1,Iraq invaded Kuwait,1,m1 m2 x1,organiser,{at}"


@pytest.mark.django_db
def test_the_adjudication_page_shows_the_fragment_and_accepts_an_inventory(client, people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "kuwait", "data": TOPIC}])
    save_judgment(topic=topic, assessor=people["alice"], payload=ANN, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/topics/kuwait/adjudicate/"
    page = client.get(url).content.decode()
    assert 'id="factoids-marks"' in page and '<tr data-sentence="x1" class="differs">' in page
    assert client.post(url, {"action": "consensus", "version": "0"}).status_code == 400  # no automatic consensus
    assert client.post(url, {"action": "assessor", "assessor": "bob", "version": "0"}).status_code == 302
    assert Curation.objects.get(topic=topic, name="consensus").data == BOB
