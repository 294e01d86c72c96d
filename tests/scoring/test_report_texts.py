"""Reports show text where people read text (candidate names,
document, sentence and item text beside their ids), and the judging page gives
the conflict box the texts of its items (never what the assessor's view hides)."""

from __future__ import annotations

import json
import re

import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import get_kind
from scoring import services as scoring_services

pytestmark = pytest.mark.django_db


def judged(people, kind):
    """The kind's example topic ``t1`` submitted by alice and bob (their example payloads)."""
    examples = get_kind(kind).examples
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"Texts {kind}", overlap=2, params=dict(examples.params)
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(examples.topic)}])
    for name, payload in zip(("alice", "bob"), examples.payloads):
        save_judgment(topic=topic, assessor=people[name], payload=dict(payload), status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def topic_page(client, people, campaign) -> str:
    client.force_login(people["organiser"])
    response = client.get(f"/campaigns/{campaign.pk}/topics/t1/report/")
    assert response.status_code == 200
    return response.content.decode()


def test_pairs_topic_report_names_each_candidate(client, people):
    page = topic_page(client, people, judged(people, "pairs"))
    for candidate, text in (("c1", "Jon Smith"), ("c2", "J. Smyth"), ("c3", "Joan Smit"), ("c4", "John Smithe")):
        assert re.search(
            rf'data-candidate="{candidate}"><td>{candidate}</td><td class="text">{re.escape(text)}</td>', page
        )


def test_relevance_topic_report_shows_document_text(client, people):
    page = topic_page(client, people, judged(people, "relevance"))
    assert re.search(
        r'data-document="d1"><td>d1</td><td class="text">Marine heatwaves expel the algae that live in coral tissue\.</td>',
        page,
    )


def test_clustering_consensus_lists_sentence_text(client, people):
    page = topic_page(client, people, judged(people, "clustering"))
    consensus = page.split('id="consensus"')[1].split("</ol>")[0]
    assert 'data-sentence="s1">The volcano erupted. <span class="muted">s1</span>' in consensus
    assert 'data-sentence="s3">An eruption began on Monday. <span class="muted">s3</span>' in consensus


@pytest.mark.parametrize(
    ("kind", "expected", "hidden"),
    [
        ("pairs", {"c1": "Jon Smith", "c2": "J. Smyth", "c3": "Joan Smit", "c4": "John Smithe"}, "sysA"),
        ("relevance", {"d3": "Reef fish markets in the Pacific."}, "bm25"),
        ("nuggets", {"n1": "a painkiller", "r2": "Bayer sells it."}, "sysB"),
    ],
)
def test_the_judging_page_labels_ids_for_the_conflict_box(client, people, kind, expected, hidden):
    campaign = judged(people, kind)
    client.force_login(people["alice"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/t1/judge/").content.decode()
    script = page.split('<script id="item-labels" type="application/json">')[1].split("</script>")[0]
    labels = json.loads(script)
    assert {key: labels[key] for key in expected} == expected
    assert hidden not in script  # the runs behind the items stay hidden
    if kind == "nuggets":
        assert "vital" not in script and "okay" not in script  # nor the original labels
