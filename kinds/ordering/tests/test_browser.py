"""An assessor orders one topic by drag and drop and one by keyboard only;
the organiser's page then shows the new consensus without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.ordering.stats import rank_consensus

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ITEMS = ["a", "b", "c", "d", "e"]


@pytest.fixture
def ordering_campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="Steps", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": t,
                "title": f"Topic {t}",
                "data": {"items": [{"id": i, "text": f"Step {i.upper()}"} for i in ITEMS]},
            }
            for t in ("t1", "t2")
        ],
    )
    for topic in campaign.topics.all():
        save_judgment(topic=topic, assessor=people["bob"], payload={"order": ITEMS}, status="submitted", version=0)
    return campaign


def shown_order(page) -> list[str]:
    return page.locator("#items .item").evaluate_all("items => items.map(li => li.dataset.id)")


def test_drag_and_drop_then_keyboard_then_live_consensus(new_page, live_server, login, people, ordering_campaign):
    campaign = ordering_campaign
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(organiser.locator("#report-meta")).to_contain_text("from 2 submitted")
    organiser.evaluate("window.stillTheSamePage = true")

    alice = new_page()
    login(alice, "alice")
    # Topic 1 by drag and drop: the last item to the top.
    alice.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/t1/judge/")
    expect(alice.locator("#remaining")).to_contain_text("5 items")
    start = shown_order(alice)
    items = alice.locator("#items .item")
    items.nth(4).drag_to(items.nth(0), target_position={"x": 20, "y": 5})
    expected = [start[4], *start[:4]]
    expect(alice.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    assert shown_order(alice) == expected
    alice.get_by_role("button", name="Submit").click()
    alice.locator("#confirm-dialog").get_by_role("button", name="Submit").click()
    alice.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/topics/t2/judge/")
    assert Judgment.objects.get(topic__external_id="t1", assessor=people["alice"]).payload == {"order": expected}

    # Topic 2 by keyboard only: the fourth item up to the top.
    expect(alice.locator("#remaining")).to_contain_text("5 items")
    start = shown_order(alice)
    for key in ("j", "j", "ArrowDown", " ", "k", "ArrowUp", "k", " "):
        alice.keyboard.press(key)
    keyboard_order = [start[3], *start[:3], start[4]]
    expect(alice.locator("#save-status")).to_contain_text("Draft saved")
    assert shown_order(alice) == keyboard_order
    alice.keyboard.press("Enter")
    expect(alice.locator("#confirm-summary")).to_have_text(
        f"5 items in your order: first “Step {keyboard_order[0].upper()}”, last “Step {keyboard_order[-1].upper()}”."
    )
    alice.keyboard.press("Enter")
    alice.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    assert Judgment.objects.get(topic__external_id="t2", assessor=people["alice"]).payload == {"order": keyboard_order}

    consensus = " › ".join(rank_consensus([keyboard_order, ITEMS]))
    expect(organiser.locator('.consensus[data-topic="t2"]')).to_have_text(consensus, timeout=15_000)
    expect(organiser.locator("#report-meta")).to_contain_text("from 4 submitted")
    assert organiser.evaluate("window.stillTheSamePage") is True
