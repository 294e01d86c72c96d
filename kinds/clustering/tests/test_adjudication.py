"""Adjudicating clusterings: the comparison, the consensus, the fragment and truth=adjudicated."""

from __future__ import annotations

import doctest
import json

import pytest
from django.template.loader import render_to_string
from sklearn.metrics import v_measure_score

from annotate.imports.write import import_topics
from annotate.models import Curation
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.clustering import adjudication
from kinds.registry import get_kind

TOPIC = {
    "documents": [{"id": "d1", "title": "One"}, {"id": "d2", "title": "Two"}],
    "sentences": [
        {"id": "s1", "document": "d1", "position": 0, "text": "The volcano erupted."},
        {"id": "s2", "document": "d1", "position": 1, "text": "Ash fell on the town."},
        {"id": "s3", "document": "d2", "position": 0, "text": "An eruption began on Monday."},
        {"id": "s4", "document": "d2", "position": 1, "text": "Roofs collapsed under the ash."},
        {"id": "s5", "document": "d2", "position": 2, "text": "Flights were cancelled."},
    ],
}
VIEW = get_kind("clustering").data.assessor_view(TOPIC)
JUDGMENTS = [
    ("ann", {"clusters": [["s1", "s3"], ["s2", "s4"]], "descriptions": ["eruption", "effects"]}),
    ("bob", {"clusters": [["s1", "s3"], ["s2", "s4", "s5"]], "descriptions": ["the eruption", "damage"]}),
    ("cat", {"clusters": [["s3", "s1"], ["s5", "s4"]], "descriptions": ["", "flights"]}),
]


def test_the_module_examples_hold():
    result = doctest.testmod(adjudication)
    assert result.attempted and not result.failed


def test_compare_puts_every_sentence_in_each_judges_cluster_and_marks_where_they_differ():
    c = adjudication.compare(VIEW, JUDGMENTS)
    assert c.assessors == ("ann", "bob", "cat")
    assert [(r.id, r.clusters, r.consensus, r.differs) for r in c.sentences] == [
        ("s1", (1, 1, 1), 1, False),
        ("s2", (2, 2, None), 2, True),
        ("s3", (1, 1, 1), 1, False),
        ("s4", (2, 2, 2), 2, True),  # companions s2 / s2, s5 / s5
        ("s5", (None, 2, 2), 2, True),
    ]
    assert [r.id for r in c.disputed] == ["s2", "s4", "s5"]
    cat = c.judges[2]
    assert [(k.number, k.description, [s.id for s in k.sentences]) for k in cat.clusters] == [
        (1, "", ["s3", "s1"]),
        (2, "flights", ["s5", "s4"]),
    ]
    assert cat.unclustered == ("s2",) and c.judges[1].unclustered == ()
    assert (
        cat.clusters[1].sentences[0].text == "Flights were cancelled." and cat.clusters[1].sentences[0].document == "d2"
    )


def test_compare_gives_the_edit_summary_and_v_measure_of_every_two_judges():
    c = adjudication.compare(VIEW, JUDGMENTS)
    edits = {(p.first, p.second): p.edits for p in c.pairs}
    assert [(e.identical, e.delete, e.add, e.split, e.merge, e.move) for e in edits.values()] == [
        (1, [], ["s5"], 0, 0, 0),  # ann -> bob
        (1, ["s2"], ["s5"], 0, 0, 0),  # ann -> cat
        (1, ["s2"], [], 0, 0, 0),  # bob -> cat
    ]
    # V (beta = 1) with irrelevant sentences as singletons, against scikit-learn
    ann, bob, cat = [0, 1, 0, 1, 2], [0, 1, 0, 1, 1], [0, 2, 0, 1, 1]
    first = c.pairs[0]
    assert first.v_measure == pytest.approx(v_measure_score(ann, bob)) == pytest.approx(0.778979, abs=1e-6)
    assert c.pairs[1].v_measure == pytest.approx(v_measure_score(ann, cat))
    assert c.pairs[2].v_measure == pytest.approx(v_measure_score(bob, cat))
    assert first.v_beta == pytest.approx(0.746003, abs=1e-6)


def test_consensus_is_the_exports_and_takes_the_description_of_an_identical_cluster():
    payloads = [p for _, p in JUDGMENTS]
    # s1-s3: 3 judges, s2-s4: 2, s4-s5: 2 of 3 (at least half): {s1, s3} and {s2, s4, s5}
    assert adjudication.consensus(VIEW, payloads) == {
        "clusters": [["s1", "s3"], ["s2", "s4", "s5"]],
        "descriptions": ["eruption", "damage"],
    }
    assert adjudication.consensus(VIEW, []) == {"clusters": [], "descriptions": []}
    # the consensus is a valid draft of the kind (what "Accept the consensus" saves)
    kind = get_kind("clustering").data
    assert kind.clean_payload(adjudication.consensus(VIEW, payloads), TOPIC, complete=False)["clusters"] == [
        ["s1", "s3"],
        ["s2", "s4", "s5"],
    ]


def test_the_spec_names_the_fragment_and_its_functions():
    spec = get_kind("clustering").adjudication
    assert spec.template == "clustering/adjudicate.html"
    assert spec.compare is adjudication.compare and spec.consensus is adjudication.consensus


def test_the_fragment_shows_names_clusters_edits_and_the_differences_in_words():
    html = render_to_string("clustering/adjudicate.html", {"comparison": adjudication.compare(VIEW, JUDGMENTS)})
    for name in ("ann", "bob", "cat"):
        assert f'<th scope="col">{name}</th>' in html and f'data-assessor="{name}"' in html
    assert html.count("<caption>") == 2
    assert '<tr data-sentence="s2" class="differs">' in html and '<tr data-sentence="s1">' in html
    assert html.count("<strong>differs</strong>") == 3
    assert "ann → cat</th><td>0.737</td>" in html
    assert "1 sentence left out by cat (s2)" in html and "1 clustered only by cat (s5)" in html
    assert "<strong>flights</strong>" in html and "Left out: s2" in html


@pytest.fixture
def campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="C", overlap=3)
    people_of = {"ann": people["alice"], "bob": people["bob"], "cat": people["carol"]}
    for user in people_of.values():
        add_member(campaign=campaign, username=user.username, role="assessor")
    topics = import_topics(campaign=campaign, topics=[{"external_id": t, "data": TOPIC} for t in ("t1", "t2")])
    for topic in topics:
        for name, payload in JUDGMENTS:
            save_judgment(topic=topic, assessor=people_of[name], payload=payload, status="submitted", version=0)
    return campaign


def export(api, people, campaign, format):
    response = api(people["admin"]).get(
        f"/api/campaigns/{campaign.pk}/export/", {"format": format, "truth": "adjudicated"}
    )
    assert response.status_code == 200, response.content
    return response.content.decode()


@pytest.mark.django_db
def test_export_adjudicated_takes_the_gold_where_there_is_one_else_the_consensus(api, people, campaign):
    assert "adjudicated" in get_kind("clustering").exports.truths([])
    t2 = campaign.topics.get(external_id="t2")
    gold = {"clusters": [["s1", "s3", "s5"]], "descriptions": ["the eruption and the flights"]}
    save_curation(topic=t2, name="consensus", data=gold, version=0, user=people["organiser"])
    at = Curation.objects.get(topic=t2, name="consensus").updated_at.isoformat()
    rows = json.loads(export(api, people, campaign, "json"))
    assert len(rows) == 10
    t1 = [r for r in rows if r["topic"] == "t1"]
    assert {(r["source"], r["adjudicated_by"], r["adjudicated_at"]) for r in t1} == {("consensus", "", "")}
    assert [(r["sentence"], r["cluster"], r["description"]) for r in t1] == [
        ("s1", 1, ""),
        ("s2", 2, ""),
        ("s3", 1, ""),
        ("s4", 2, ""),
        ("s5", 2, ""),
    ]
    assert rows[5] == {
        "topic": "t2",
        "source": "adjudicated",
        "adjudicated_by": "organiser",
        "adjudicated_at": at,
        "sentence": "s1",
        "cluster": 1,
        "description": "the eruption and the flights",
        "judges_clustered": 3,
        "judges": ["alice", "bob", "carol"],
        "of_judges": 3,
    }
    assert [(r["sentence"], r["cluster"]) for r in rows[5:]] == [
        ("s1", 1),
        ("s2", None),
        ("s3", 1),
        ("s4", None),
        ("s5", 1),
    ]
    lines = export(api, people, campaign, "csv").splitlines()
    assert lines[0] == (
        "topic,source,adjudicated_by,adjudicated_at,sentence,cluster,description,judges_clustered,of_judges,judges"
    )
    assert lines[1] == "t1,consensus,,,s1,1,,3,3,alice bob carol"
    assert lines[7] == f"t2,adjudicated,organiser,{at},s2,,,2,3,alice bob"


@pytest.mark.django_db
def test_the_adjudication_page_shows_the_fragment(client, people, campaign):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/t1/adjudicate/").content.decode()
    assert 'id="clustering-sentences"' in page and '<tr data-sentence="s5" class="differs">' in page
    assert "alice → carol" in page
