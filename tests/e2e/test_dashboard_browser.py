"""The organiser's dashboard in a browser: the summary updates live while two assessors
submit, without closing what the organiser opened or losing what is typed in a form
inside it; every section is one click away and keeps its own address; axe-core finds no
serious violation on the summary at 1280 and 390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Topic
from annotate.services.judgments import save_judgment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def test_the_summary_updates_live_and_every_section_is_one_click_away(
    new_page, live_server, login, people, campaign, browser, findings
):
    organiser = new_page()
    login(organiser, "organiser")
    base = f"{live_server.url}/campaigns/{campaign.pk}/"
    organiser.goto(base)
    expect(organiser.locator("#summary-judged")).to_have_text("0")
    expect(organiser.locator("#summary-open")).to_have_text("6")
    # The organiser opens the per-assessor table by keyboard.
    organiser.locator("#summary-assessors summary").focus()
    organiser.keyboard.press("Enter")
    expect(organiser.locator("#summary-assessors")).to_have_attribute("open", "")
    organiser.evaluate("window.stillTheSamePage = true")
    # A form being filled inside the refreshed fragment. No page has one there today, so
    # one is put in, as a kind's report could: live.js must not swap it away mid-typing.
    # It is put in and focused in one script turn, as a click would: a poll that lands
    # between the two would rightly swap away a form nobody has touched yet.
    organiser.locator("#summary").evaluate(
        """el => {
            el.insertAdjacentHTML("beforeend",
                '<form><label for="note">Note</label><input id="note" name="note"></form>');
            el.querySelector("#note").focus();
        }"""
    )
    note = organiser.get_by_label("Note")
    expect(note).to_be_focused()
    note.fill("half a sent")

    for name in ("alice", "bob"):
        topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people[name]).order_by("position")[0]
        save_judgment(topic=topic, assessor=people[name], payload=FULL, status="submitted", version=0)
    # The refresh arrives and waits: the typed value, the focus and the open table stay.
    expect(organiser.locator("#summary")).to_have_attribute("data-deferred", "", timeout=15_000)
    note.press_sequentially("ence")
    expect(note).to_have_value("half a sentence")
    expect(note).to_be_focused()
    expect(organiser.locator("#summary-judged")).to_have_text("0")
    expect(organiser.locator("#summary-assessors")).to_have_attribute("open", "")
    # Once the form is left as it was, the next refresh comes in.
    note.fill("")
    note.blur()
    expect(organiser.locator("#summary-judged")).to_have_text("2", timeout=15_000)
    expect(note).to_have_count(0)
    expect(organiser.locator("#summary-open")).to_have_text("4")
    expect(organiser.locator("#summary-headline .label")).to_have_text("Fleiss' kappa", timeout=15_000)
    # Refreshed in place: the same page, the table still open and showing the new counts.
    assert organiser.evaluate("window.stillTheSamePage") is True
    expect(organiser.locator("#summary-assessors")).to_have_attribute("open", "")
    expect(organiser.locator("#progress-table tr", has_text="alice").locator("td").nth(3)).to_have_text("1")

    # Every section one click away, each at its own address, marked as the current one.
    sections = {
        "Report": ("?section=report", "Agreement report"),
        "Progress": ("?section=progress", "Progress per assessor"),
        "Flags": ("?section=flags", "Flags and comments"),
        "Analyses": ("?section=analyses", "Analyses"),
        "Adjudication": ("adjudication/", "Adjudication queue"),
        "Members": ("members/", "Members"),
        "Assignments": ("assignments/", "Assignments"),
        "Summary": ("", "Where the campaign stands"),
    }
    nav = organiser.get_by_role("navigation", name="Campaign sections")
    for label, (address, heading) in sections.items():
        nav.get_by_role("link", name=label, exact=True).click()
        organiser.wait_for_url(base + address)
        expect(nav.get_by_role("link", name=label, exact=True)).to_have_attribute("aria-current", "page")
        if heading:
            expect(organiser.get_by_role("heading", name=heading).first).to_be_visible()

    # The uploads page (its own layout) is one click away too.
    nav.get_by_role("link", name="Uploads", exact=True).click()
    organiser.wait_for_url(base + "uploads/")

    findings.check(browser, live_server, login, "organiser", "dashboard summary", f"/campaigns/{campaign.pk}/")
    assert findings.problems == [], "\n" + "\n".join(findings.problems)


def test_a_refresh_keeps_the_keyboard_where_it_was(new_page, live_server, login, people, campaign):
    """A keyboard user on the summary's "Per assessor" toggle when a refresh swaps the summary in
    has the focus on the new fragment's toggle, not on the page's body (static/annotate/live.js)."""
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    expect(organiser.locator("#summary-judged")).to_have_text("0")
    toggle = organiser.locator("#summary-assessors summary")
    toggle.focus()
    organiser.evaluate("window.theOldToggle = document.activeElement")
    for name in ("alice", "bob"):
        topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people[name]).order_by("position")[0]
        save_judgment(topic=topic, assessor=people[name], payload=FULL, status="submitted", version=0)
    expect(organiser.locator("#summary-judged")).to_have_text("2", timeout=15_000)
    # a new element (the fragment was swapped), and it has the focus
    assert organiser.evaluate("document.activeElement !== window.theOldToggle") is True
    expect(toggle).to_be_focused()
    organiser.keyboard.press("Enter")
    expect(organiser.locator("#summary-assessors")).to_have_attribute("open", "")
