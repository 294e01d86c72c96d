"""The adaptive design in the browser: two assessors judge by keyboard; each "Next topic"
hands out only the items whose truth is still uncertain (annotate/adaptive.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Assignment, Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_second_assessor_receives_exactly_the_uncertain_item(new_page, live_server, login, people):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="Adaptive names",
        params={"design": "adaptive", "adaptive_by": "margin", "margin": 2},
    )
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "q1",
                "data": {
                    "query": "Ann Lee",
                    "candidates": [{"id": f"c{i}", "text": f"Candidate {i}"} for i in (1, 2, 3, 4)],
                },
            }
        ],
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    # Three earlier opinions: c1 settled (3 to 0), c2, c3 and c4 at a margin of 1.
    votes = {"c1": (True, True, True), "c2": (True, True, False), "c3": (False, False, True), "c4": (True, True, False)}
    import_judgments(
        campaign=campaign,
        entries=[
            {"assessor": f"w{w + 1}", "topic": "q1", "payload": {"matches": {c: v[w] for c, v in votes.items()}}}
            for w in range(3)
        ],
    )
    assert not Assignment.objects.filter(topic__campaign=campaign, assessor__username__in=["alice", "bob"]).exists()

    alice = new_page()
    login(alice, "alice")
    alice.get_by_role("button", name="Next topic").click()
    expect(alice.locator("h1.query")).to_contain_text("Ann Lee")
    expect(alice.locator("#remaining")).to_contain_text("3 of 3 candidates left")
    expect(alice.locator(".candidate")).to_have_count(3)
    expect(alice.locator(".candidate").first).to_contain_text("Candidate 2")
    alice.keyboard.press("y")  # c2: 3 to 1, settled
    expect(alice.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    alice.keyboard.press("n")  # c3: 3 to 1, settled
    alice.keyboard.press("n")  # c4: 2 to 2, a tie
    expect(alice.locator("#remaining")).to_contain_text("Every candidate is judged")
    alice.keyboard.press("Enter")
    expect(alice.locator("#confirm-summary")).to_have_text("3 of 3 candidates judged: 1 match, 2 no match.")
    alice.keyboard.press("Enter")
    # After a submission the page asks for the next work as the button does (a POST: a GET
    # allocates nothing). Nothing more for alice (she judged every uncertain item): back to
    # the campaign page, saying so, with no extra key press.
    alice.wait_for_url(re.compile(rf"/campaigns/{campaign.pk}/$"))
    expect(alice.locator("p.notice")).to_contain_text("No topic for you now")

    bob = new_page()
    login(bob, "bob")
    bob.get_by_role("button", name="Next topic").click()
    expect(bob.locator("#remaining")).to_contain_text("1 of 1 candidates left")
    expect(bob.locator(".candidate")).to_have_count(1)
    expect(bob.locator(".candidate")).to_contain_text("Candidate 4")
    bob.keyboard.press("y")  # c4: 3 to 2
    expect(bob.locator("#remaining")).to_contain_text("Every candidate is judged")
    bob.keyboard.press("Enter")
    expect(bob.locator("#confirm-summary")).to_have_text("1 of 1 candidates judged: 1 match, 0 no match.")
    bob.keyboard.press("Enter")
    bob.wait_for_url(re.compile(rf"/campaigns/{campaign.pk}/$"))
    expect(bob.locator("p.notice")).to_contain_text("No topic for you now")

    shares = dict(
        Assignment.objects.filter(topic__campaign=campaign, assessor__username__in=["alice", "bob"]).values_list(
            "assessor__username", "items"
        )
    )
    assert shares == {"alice": ["c2", "c3", "c4"], "bob": ["c4"]}
    judged = dict(
        Judgment.objects.filter(topic__campaign=campaign, status="submitted").values_list(
            "assessor__username", "payload"
        )
    )
    assert judged["alice"] == {"matches": {"c2": True, "c3": False, "c4": False}}
    assert judged["bob"] == {"matches": {"c4": True}}
