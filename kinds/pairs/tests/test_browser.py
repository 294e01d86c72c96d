"""An assessor judges with the keyboard only; the organiser's page updates by itself."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.models import Judgment, JudgmentRevision, Topic
from annotate.services.judgments import save_judgment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BOB = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def test_keyboard_judging_updates_the_organisers_kappa_live(new_page, live_server, login, people, campaign):
    for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people["bob"]):
        save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    first = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()

    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(organiser.locator("#report-meta")).to_contain_text("from 3 submitted")
    organiser.evaluate("window.stillTheSamePage = true")

    alice = new_page()
    login(alice, "alice")
    alice.get_by_role("link", name="Next topic").click()
    expect(alice.locator("h1.query")).to_contain_text(first.data["query"])
    expect(alice.locator("#remaining")).to_contain_text("4 of 4 candidates left")  # the page script is ready
    alice.keyboard.press("y")  # c1 match, moves to c2
    expect(alice.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    alice.keyboard.press("n")  # c2
    alice.keyboard.press("j")
    alice.keyboard.press("k")  # back to c3 and forth: c3 is focused again
    alice.keyboard.press("n")  # c3
    alice.keyboard.press("n")  # c4
    expect(alice.locator("#remaining")).to_contain_text("Every candidate is judged")
    alice.keyboard.press("Enter")  # asks first, with a summary
    expect(alice.locator("#confirm-summary")).to_have_text("4 of 4 candidates judged: 1 match, 3 no match.")
    alice.keyboard.press("Enter")  # on "Submit"
    alice.wait_for_url(re.compile(rf"/topics/(?!{re.escape(first.external_id)}/)[^/]+/judge/$"))

    judgment = Judgment.objects.get(topic=first, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {"matches": {"c1": True, "c2": False, "c3": False, "c4": False}}
    # The page saved drafts before the submission (version 1 on), and the submission
    # took the drafts' revision over (docs/api.md, "What the history keeps").
    assert judgment.version >= 2
    newest = JudgmentRevision.objects.filter(judgment=judgment).latest("pk")
    assert (newest.status, newest.payload) == ("submitted", judgment.payload)

    # alice vs bob on 4 shared items: a=1, b=0, c=1, d=2 -> po=.75, pe=.5, kappa=.5
    row = organiser.locator("#pairs-table tr", has_text="alice · bob")
    expect(row.locator("td.kappa")).to_have_text("0.500", timeout=15_000)
    expect(organiser.locator("#report-meta")).to_contain_text("from 4 submitted")
    assert organiser.evaluate("window.stillTheSamePage") is True


def test_mouse_judging_and_an_incomplete_submit_is_not_possible(new_page, live_server, login, people, campaign):
    page = new_page()
    login(page, "alice")
    page.get_by_role("link", name="Next topic").click()
    submit = page.get_by_role("button", name=re.compile("Submit"))
    expect(page.locator("#remaining")).to_contain_text("4 of 4 candidates left")
    expect(submit).to_be_disabled()
    for index, label in enumerate(["Match", "No match", "Match"]):
        page.locator(".candidate").nth(index).get_by_role("button", name=re.compile(f"^{label}")).click()
    expect(page.locator("#remaining")).to_contain_text("1 of 4 candidates left")
    expect(submit).to_be_disabled()
    page.locator(".candidate").nth(3).get_by_role("button", name=re.compile("^No match")).click()
    expect(submit).to_be_enabled()
    judged_at = page.url
    submit.click()
    page.locator("#confirm-dialog").get_by_role("button", name="Submit").click()
    page.wait_for_url(lambda url: url != judged_at)  # on to the next topic
    assert Judgment.objects.filter(assessor=people["alice"], status="submitted").count() == 1
