"""An assessor labels items with the keyboard only (a key per label: 1-9, then letters; 0
"can't tell"; the arrows move), work the server never got comes back after a reload, and what
is submitted is what was typed; axe finds nothing on the judging page nor on the organiser's
reports of a numeric scale; an organiser declares a scale in the new-campaign form."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Campaign, Judgment, JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring.jobs import recompute_reports

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Eleven sections: keys 1-9 for the first nine, a and b for weather and crime.
SECTIONS = [
    "politics",
    "business",
    "science",
    "health",
    "sport",
    "culture",
    "travel",
    "food",
    "technology",
    "weather",
    "crime",
]
HEADLINES = [
    "Cup final goes to extra time",
    "Storm warning for the coast",
    "Local man says things",
    "New phone folds twice",
]


@pytest.fixture
def headlines(people):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="News sections",
        overlap=1,
        params={"categories": SECTIONS, "cant_tell": True},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "t1",
                "title": "Headlines",
                "data": {"items": [{"id": f"h{k + 1}", "text": text} for k, text in enumerate(HEADLINES)]},
            }
        ],
    )
    return campaign


def pressed(page, index: int):
    return page.locator(f".labels-choice[data-index='{index}']")


def test_keyboard_labelling_with_cant_tell_a_reload_and_the_submission(new_page, live_server, login, people, headlines):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{headlines.pk}/topics/t1/judge/")
    expect(page.locator("#remaining")).to_have_text("4 of 4 items left to label.")  # the page script is ready
    expect(page.locator("#item-position")).to_have_text("Item 1 of 4")
    expect(pressed(page, 9)).to_contain_text("a weather")
    expect(pressed(page, -1)).to_contain_text("0 can’t tell")

    page.keyboard.press("5")  # h1 sport, on to h2
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    expect(page.locator("#item-position")).to_have_text("Item 2 of 4")

    # From here the server gets nothing: the work is kept in this browser only.
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))
    page.keyboard.press("a")  # h2 weather, on to h3
    expect(page.locator("#item-position")).to_have_text("Item 3 of 4")
    page.keyboard.press("ArrowUp")  # back to h2: its label is shown pressed
    expect(page.locator("#item-position")).to_have_text("Item 2 of 4")
    expect(pressed(page, 9)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("b")  # h2 becomes crime, on to h3
    page.keyboard.press("x")  # not a key of this scale ("can't tell" is 0): nothing happens
    expect(page.locator("#item-position")).to_have_text("Item 3 of 4")
    page.keyboard.press("0")  # h3 can't tell, on to h4
    page.keyboard.press("ArrowLeft")  # back to h3
    expect(pressed(page, -1)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#items .labels-item").nth(2).locator(".labels-chosen")).to_have_text("can’t tell")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#remaining")).to_have_text("1 of 4 items left to label.")
    assert Judgment.objects.get(topic__campaign=headlines).payload == {"labels": {"h1": "sport"}}

    # A reload offers what the server never got; restored, it is on the page and saved.
    page.reload()
    expect(page.locator("#restore-keep")).to_be_focused()
    page.unroute("**/judgment/")
    page.keyboard.press("Enter")  # Restore them
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).")
    saved = {"h1": "sport", "h2": "crime", "h3": None}
    assert Judgment.objects.get(topic__campaign=headlines).payload == {"labels": saved}
    # the page opened on the saved version's first unlabelled item, and a restore moves nothing
    expect(page.locator("#item-position")).to_have_text("Item 2 of 4")
    expect(pressed(page, 10)).to_have_attribute("aria-pressed", "true")  # h2: crime
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#item-position")).to_have_text("Item 4 of 4")
    page.keyboard.press("9")  # h4 technology
    page.keyboard.press("j")  # stays on the last item
    expect(page.locator("#remaining")).to_contain_text("Every item is labelled")
    first = page.url
    page.keyboard.press("Enter")  # asks first, with a summary
    expect(page.locator("#confirm-summary")).to_have_text(
        "4 of 4 items labelled: 1 sport, 1 crime, 1 can’t tell, 1 technology."
    )
    page.keyboard.press("Enter")  # on "Submit"
    page.wait_for_url(lambda url: url != first)

    judgment = Judgment.objects.get(topic__campaign=headlines, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {"labels": {**saved, "h4": "technology"}}
    newest = JudgmentRevision.objects.filter(judgment=judgment).latest("pk")
    assert (newest.status, newest.payload) == ("submitted", judgment.payload)


def test_axe_on_the_judging_page_and_the_reports_of_a_numeric_scale(
    people, browser, live_server, login, findings, new_page
):
    """A 1-10 scale: the judging page's number keys, and the reports' every table (the pairs,
    the labels, the intraclass correlations)."""
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Essay marks",
        overlap=3,
        params={"level": "interval", "minimum": 1, "maximum": 10, "cant_tell": True},
    )
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": f"t{t}",
                "title": f"Essays {t}",
                "data": {"items": [{"id": f"e{t}{k}", "text": f"Essay {t}.{k}"} for k in range(1, 7)]},
            }
            for t in (1, 2)
        ],
    )
    marks = {"alice": [9, 6, 8, 7, 10, 6], "bob": [2, 1, 4, 1, 5, 2], "carol": [5, 3, 6, 2, 6, None]}
    for name, given in marks.items():
        payload = {"labels": {f"e1{k + 1}": mark for k, mark in enumerate(given)}}
        save_judgment(topic=topics[0], assessor=people[name], payload=payload, status="submitted", version=0)
    recompute_reports(campaign.pk, everything=True)
    base = f"/campaigns/{campaign.pk}"
    pages = [
        ("alice", "judging page", f"{base}/topics/t2/judge/"),
        ("organiser", "campaign report", f"{base}/?section=report"),
        ("organiser", "topic report", f"{base}/topics/t1/report/"),
    ]
    for who, label, path in pages:
        findings.check(browser, live_server, login, who, f"labels {label}", path)
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * len(pages)
    # what was checked holds the intraclass correlations: five essays every assessor marked
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}{base}/?section=report")
    rows = page.locator("#icc-table tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.first).to_contain_text("too few")
    expect(page.locator("body")).to_contain_text("Over the 5 items every one of 3 assessors labelled")


def test_an_organiser_declares_the_scale_in_the_new_campaign_form(new_page, live_server, login, people):
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/new/?kind=labels")
    page.get_by_label("Scale", exact=True).select_option("ordinal")
    page.get_by_label("Categories").fill("poor\nfair\ngood\n\nexcellent\n")
    page.get_by_label(re.compile("can.t tell")).check()
    page.get_by_label("Weights").select_option("linear")
    page.get_by_label("Items per topic").fill("25")
    page.get_by_label("Name").fill("Answer quality")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(f"{live_server.url}/campaigns/*/")
    params = Campaign.objects.get(name="Answer quality").params
    assert (params["level"], params["categories"], params["cant_tell"], params["weights"], params["batch"]) == (
        "ordinal",
        ["poor", "fair", "good", "excellent"],
        True,
        "linear",
        25,
    )


def test_a_numeric_scale_whose_step_misses_its_maximum_is_refused_in_the_form(new_page, live_server, login, people):
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/new/?kind=labels")
    page.get_by_label("Scale", exact=True).select_option("interval")
    page.get_by_label("Lowest number").fill("0")
    page.get_by_label("Highest number").fill("10")
    page.get_by_label("Step", exact=True).fill("3")
    page.get_by_label("Name").fill("Marks out of ten")
    page.get_by_role("button", name="Create the campaign").click()
    expect(page.locator("body")).to_contain_text("expected a step that goes from 0 to 10 exactly")
    assert not Campaign.objects.filter(name="Marks out of ten").exists()
    page.get_by_label("Step", exact=True).fill("0.5")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(f"{live_server.url}/campaigns/*/")
    params = Campaign.objects.get(name="Marks out of ten").params
    assert (params["level"], params["minimum"], params["maximum"], params["step"]) == ("interval", 0, 10, 0.5)
