"""The adjudication page shows what the stored gold contains, item by item, beside the
assessors' judgments, and, where the organiser allows it (``show_reference``), the
campaign's reference labelling (docs/pages.md, "Adjudication")."""

from __future__ import annotations

import copy

import pytest
from test_adjudication import disputed, login, matches  # noqa: F401  (the fixture, shared)

from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db


def _show_reference(campaign, value=True):
    campaign.params = {**campaign.params, "show_reference": value}
    campaign.save(update_fields=["params"])


def test_the_page_shows_the_gold_of_every_candidate_with_who_when_and_version(disputed, people):  # noqa: F811
    q2 = disputed.topics.get(external_id="q2")
    # Not what anyone voted: c3 is a match only in the gold, c1 no match only in the gold.
    gold = matches([False, True, True, False])
    save_curation(topic=q2, name="consensus", data=gold, version=0, user=people["organiser"])
    response = login(people["dana"]).get(f"/campaigns/{disputed.pk}/topics/q2/adjudicate/")
    comparison = response.context["comparison"]
    assert comparison.beside == ("gold v1",)
    assert [(r.id, r.consensus, r.beside[0].match) for r in comparison.rows] == [
        ("c1", True, False),
        ("c2", True, True),
        ("c3", False, True),
        ("c4", False, False),
    ]
    # The votes and the consensus are the assessors' alone.
    assert [(r.matches, r.judged) for r in comparison.rows] == [(2, 2), (1, 2), (0, 2), (0, 2)]
    body = response.content.decode()
    assert '<th scope="col" class="beside">gold v1</th>' in body
    assert "Adjudicated: version 1, saved by organiser on" in body
    row = body.split('data-candidate="c3"')[1].split("</tr>")[0]
    assert row.count("no match") == 3 and row.endswith('<td class="beside">match</td>\n    ')


def test_without_a_gold_no_column_is_shown(disputed, people):  # noqa: F811
    response = login(people["organiser"]).get(f"/campaigns/{disputed.pk}/topics/q2/adjudicate/")
    assert response.context["comparison"].beside == ()
    assert b'class="beside"' not in response.content


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_shows_the_gold_beside_the_judgments(people, name):
    spec = KINDS[name]
    campaign = create_campaign(
        creator=people["organiser"], kind=name, name=name, overlap=2, params=dict(spec.examples.params)
    )
    for assessor in ("alice", "bob"):
        add_member(campaign=campaign, username=assessor, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(spec.examples.topic)}])
    topic = Topic.objects.get(campaign=campaign)
    for assessor, payload in zip(("alice", "bob"), spec.examples.payloads, strict=True):
        save_judgment(
            topic=topic, assessor=people[assessor], payload=copy.deepcopy(payload), status="submitted", version=0
        )
    gold = copy.deepcopy(spec.examples.payloads[1])
    save_curation(topic=topic, name="consensus", data=gold, version=0, user=people["organiser"])
    save_curation(topic=topic, name="consensus", data=gold, version=1, user=people["organiser"])
    response = login(people["organiser"]).get(f"/campaigns/{campaign.pk}/topics/t1/adjudicate/")
    page = response.context["page"]
    assert page.beside == [
        ("gold v2", spec.data.clean_payload(gold, topic.data, complete=False, params=campaign.params))
    ]
    # The kind renders the gold as one more column (or inventory, or clustering) after the assessors'.
    assert b'class="beside">gold v2<' in response.content or b'data-assessor="gold v2"' in response.content


REFERENCE = {"name": "gold", "data": {"reference": True, "labels": {"q2": {"c1": False, "c2": True}}}}


def test_the_reference_is_shown_only_where_the_organiser_allows_it(disputed, people):  # noqa: F811
    import_runs(campaign=disputed, runs=[REFERENCE])
    url = f"/campaigns/{disputed.pk}/topics/q2/adjudicate/"
    hidden = login(people["dana"]).get(url)
    assert hidden.context["comparison"].beside == ()
    assert b"reference" not in hidden.content
    _show_reference(disputed)
    shown = login(people["dana"]).get(url)
    comparison = shown.context["comparison"]
    assert comparison.beside == ("reference",)
    assert [r.beside[0].match for r in comparison.rows] == [False, True, None, None]
    assert b'<th scope="col" class="beside">reference</th>' in shown.content
    assert b'id="reference-shown"' in shown.content and b'id="reference-shown"' not in hidden.content
    # A topic the reference does not label shows no reference column.
    assert (
        login(people["dana"]).get(f"/campaigns/{disputed.pk}/topics/q1/adjudicate/").context["comparison"].beside == ()
    )


def test_several_references_are_named_and_follow_the_gold(disputed, people):  # noqa: F811
    other = {"name": "expert", "data": {"reference": True, "labels": {"q2": {"c4": True}}}}
    import_runs(campaign=disputed, runs=[REFERENCE, other])
    _show_reference(disputed)
    q2 = disputed.topics.get(external_id="q2")
    save_curation(topic=q2, name="consensus", data=matches([True] * 4), version=0, user=people["dana"])
    comparison = login(people["dana"]).get(f"/campaigns/{disputed.pk}/topics/q2/adjudicate/").context["comparison"]
    assert comparison.beside == ("gold v1", "reference: expert", "reference: gold")
    assert [tuple(v.match for v in r.beside) for r in comparison.rows][3] == (True, True, None)


@pytest.mark.parametrize("value", ["yes", 1, None, []])
def test_a_bad_show_reference_is_a_400_naming_it_and_creates_nothing(people, api, value):
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "R", "params": {"show_reference": value}}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["field"] == "params.show_reference"
    assert not Campaign.objects.filter(name="R").exists()


def test_the_campaign_form_offers_show_reference_off_by_default_and_stores_it(people):
    client = login(people["organiser"])
    page = client.get("/campaigns/new/?kind=pairs").content.decode()
    box = page.split('name="params.show_reference"')[1].split(">", 1)[0]
    assert 'value="1"' in box and "checked" not in box
    assert "Off by default: adjudication is often meant to be blind to it." in page
    sent = {"kind": "pairs", "name": "With reference", "overlap": "2", "params.show_reference": "1"}
    assert client.post("/campaigns/new/", sent).status_code == 302
    assert Campaign.objects.get(name="With reference").params["show_reference"] is True


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_kind_offers_show_reference_exactly_when_it_reads_reference_runs(name):
    from kinds.base import Kind

    reads = type(KINDS[name].data).reference_payload is not Kind.reference_payload
    assert ("show_reference" in {p.name for p in KINDS[name].params}) == reads


@pytest.mark.parametrize(
    "module", ["kinds.pairs.adjudication", "kinds.relevance.adjudication", "kinds.nuggets.adjudication"]
)
def test_the_worked_examples_of_the_label_kinds_comparisons_hold(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted and result.failed == 0
