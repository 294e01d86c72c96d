"""The gold edited for real, in Chromium, for every kind: an adjudicator
opens a topic's adjudication page, follows "Edit (from alice's judgment)" by keyboard,
changes the judgment with the kind's own keys, confirms with Enter twice, and the stored
gold is what was typed: not alice's judgment (nor bob's): an editor without the kind's
context would show no grade buttons, ignore its keys and save alice's grades as the gold.
The expected gold starts from alice's judgment as stored, which is what the editor starts
from: it holds what the server filled in on her save (a preference verdict's sides, which the
editor shows her pairs on and the gold keeps)."""

from __future__ import annotations

import copy

import pytest
from playwright.sync_api import expect
from test_adjudication_browser import tab_to

from annotate.imports.write import import_topics
from annotate.models import Curation, Judgment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _edited(name: str, alice: dict) -> dict:
    """What the keys of EDITS make of alice's judgment (the kind's first example, as stored)."""
    payload = copy.deepcopy(alice)
    if name == "labels":
        payload["labels"]["i2"] = "positive"
    elif name == "pairs":
        payload["matches"]["c3"] = True
    elif name == "relevance":
        payload["grades"] = {"d1": 3, "d2": 3, "d3": 0, "d4": 2}
    elif name == "ordering":
        payload["order"] = ["b", "c", "a"]
    elif name == "nuggets":
        payload["labels"]["n2"] = "okay"
        payload["matches"]["r1"] = ["n1", "n2"]
    elif name == "clustering":
        payload = {"clusters": [["s1", "s3", "s2", "s4"]], "descriptions": ["eruption"]}
    elif name == "factoids":
        payload["marks"]["x1"] = ["F1"]
    elif name == "preference":
        payload["verdicts"][0]["choice"] = "right"  # on the sides alice was shown
    return payload


#: Per kind, from the first item in focus: the keys that change alice's judgment into _edited's.
EDITS = {
    "labels": ["j", "3"],  # i2: positive (the third category's key)
    "pairs": ["j", "j", "y"],  # c3: match
    "relevance": ["3", "3", "0", "2"],  # d2 goes from 1 to 3
    "ordering": [" ", "j", "j", " "],  # pick up the first item, move it down twice, put it down
    "nuggets": ["j", "o", "m", "j", "x"],  # n2 okay; part 2: r1 contains n2 too
    "clustering": ["j", "j", "1", "j", "1"],  # s2, then s4, into cluster 1
    "factoids": ["j", "j", "1"],  # F1 marked on x1
    "preference": ["ArrowRight"],  # pair 1-2: B (right) is better
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_the_adjudicator_edits_the_gold_by_keyboard_and_it_is_stored(name, people, browser, live_server, login):
    spec = KINDS[name]
    campaign = create_campaign(
        creator=people["organiser"], kind=name, name=f"{name} gold", overlap=2, params=dict(spec.examples.params)
    )
    for assessor in ("alice", "bob"):
        add_member(campaign=campaign, username=assessor, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(spec.examples.topic)}])
    topic = Topic.objects.get(campaign=campaign)
    for assessor, payload in zip(("alice", "bob"), spec.examples.payloads, strict=True):
        save_judgment(
            topic=topic, assessor=people[assessor], payload=copy.deepcopy(payload), status="submitted", version=0
        )

    def clean(payload):
        return spec.data.clean_payload(payload, topic.data, complete=False, params=campaign.params)

    alice, bob = (Judgment.objects.get(topic=topic, assessor=people[who]).payload for who in ("alice", "bob"))
    expected = clean(_edited(name, alice))
    assert expected != alice and expected != bob

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        login(page, "organiser")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/t1/adjudicate/")
        expect(page.locator("#edit-gold")).to_have_text("Edit (from alice's judgment)")
        tab_to(page, "edit-gold")
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/campaigns/{campaign.pk}/topics/t1/consensus/?from=alice")
        expect(page.locator("#key-help dt").first).to_be_visible()  # the kind's script built its key table
        if name == "relevance":
            expect(page.locator(".relevance-grade")).to_have_count(4)
            expect(page.locator("#key-help")).to_contain_text(
                "0 non-relevant, 1 related, 2 relevant, 3 highly relevant"
            )
        for key in EDITS[name]:
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        expect(page.locator("#confirm-dialog")).to_be_visible()
        if name == "relevance":
            expect(page.locator("#confirm-summary")).to_have_text(
                "4 of 4 documents graded: 1 non-relevant, 0 related, 1 relevant, 2 highly relevant."
            )
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    finally:
        context.close()
    gold = Curation.objects.get(topic=topic, name="consensus")
    assert gold.data == expected
    assert gold.updated_by.username == "organiser"
