"""Quality control in Chromium: a careless assessor answers the control items wrong, is paused
mid-work and sees why, and a change they make in a tab still open is kept in the browser; the
organiser sees their accuracy with its interval on the quality page and reinstates them; the
assessor works again and gets the kept change back (annotate/quality.py, dashboard/quality.py,
static/annotate/judge.js on a 403)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Control, Judgment, Membership, PauseRecord
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from stats import quality as stats_quality

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reviews(people):
    """Yes/no labels, one item a topic; t00-t02 are controls whose answer is "yes". Accuracy is
    judged from 3 control items (0 right of 3: the 99% upper bound 0.69 is below 0.7)."""
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Careful reading",
        overlap=1,
        params={"categories": ["yes", "no"], "pause_minimum": 3},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": f"t{n:02d}",
                "title": f"Review {n}",
                "data": {"items": [{"id": "i1", "text": f"Is review {n} about a product?"}]},
            }
            for n in range(6)
        ],
    )
    for n in range(3):
        Control.objects.create(topic=campaign.topics.get(external_id=f"t{n:02d}"), item="i1", answer="yes")
    return campaign


def judge_url(live_server, campaign, topic: str) -> str:
    return f"{live_server.url}/campaigns/{campaign.pk}/topics/{topic}/judge/"


def answer_and_submit(page, key: str) -> None:
    expect(page.locator("#remaining")).to_have_text("1 of 1 items left to label.")  # the script is ready
    page.keyboard.press(key)
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    first = page.url
    page.keyboard.press("Enter")  # asks first
    expect(page.locator("#confirm-summary")).to_be_visible()
    page.keyboard.press("Enter")  # Submit
    page.wait_for_url(lambda url: url != first)


def test_a_careless_assessor_is_paused_told_why_and_reinstated(new_page, live_server, login, people, reviews):
    alice = new_page()
    login(alice, "alice")
    # A tab alice keeps open on a later topic, loaded while she may still work.
    later = alice.context.new_page()
    later.goto(judge_url(live_server, reviews, "t05"))
    expect(later.locator("#remaining")).to_have_text("1 of 1 items left to label.")

    # The controls one after another (the queue's order is the allocation's: tests/annotate/test_controls.py).
    alice.goto(judge_url(live_server, reviews, "t00"))
    answer_and_submit(alice, "2")  # "no": wrong
    alice.goto(judge_url(live_server, reviews, "t01"))
    answer_and_submit(alice, "2")
    assert Membership.objects.get(campaign=reviews, user=people["alice"]).paused_at is None
    alice.goto(judge_url(live_server, reviews, "t02"))
    answer_and_submit(alice, "2")  # the third wrong control: paused, and the next topic says why
    expect(alice.locator("h1")).to_have_text("Paused")
    expect(alice.locator("#paused-notice")).to_contain_text("You are paused in this campaign")
    expect(alice.locator("#paused-notice")).to_contain_text(
        "0 of 3 controls right; the 99% interval's upper bound 0.69 is below the 0.70 required"
    )
    alice.goto(f"{live_server.url}/")
    expect(alice.get_by_text("Paused: 0 of 3 controls right")).to_be_visible()
    expect(alice.get_by_role("link", name="Next topic")).to_have_count(0)

    # The tab still open: her change is refused, said why, and kept in the browser.
    later.keyboard.press("1")
    expect(later.locator("#save-problem-text")).to_contain_text("Not saved: paused: You are paused in this campaign")
    assert not Judgment.objects.filter(topic__external_id="t05", assessor=people["alice"]).exists()

    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{reviews.pk}/quality/")
    row = organiser.locator("#quality-table tr[data-assessor='alice']")
    high = float(stats_quality.control_accuracy(0, 3, level=0.99).high)
    expect(row.locator(".accuracy")).to_have_text(f"0.00 (0.00 to {high:.2f}, Wilson)")
    expect(row.locator(".status")).to_contain_text("paused since")
    expect(organiser.locator("#pause-records")).to_contain_text("the rules")
    row.get_by_label("Reason to reinstate alice").fill("explained the guidelines")
    row.get_by_role("button", name="Reinstate alice").click()
    expect(organiser.get_by_text("alice is reinstated")).to_be_visible()
    expect(row.locator(".status")).to_have_text("working")
    assert list(PauseRecord.objects.values_list("action", flat=True)) == ["pause", "reinstate"]

    # Back at work: the kept change is offered on the topic, and saves.
    later.reload()
    expect(later.locator("#restore-keep")).to_be_focused()
    later.keyboard.press("Enter")  # Restore them
    expect(later.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    assert Judgment.objects.get(topic__external_id="t05", assessor=people["alice"]).payload == {"labels": {"i1": "yes"}}
    alice.goto(judge_url(live_server, reviews, "t04"))
    answer_and_submit(alice, "1")
    assert Judgment.objects.get(topic__external_id="t04", assessor=people["alice"]).status == "submitted"


def test_the_quality_page_and_the_paused_page_pass_axe(people, browser, live_server, login, findings, reviews):
    """The quality page with a paused assessor and records, and the pages a paused assessor
    meets, through axe at both widths (tests/e2e/axe.py)."""
    for n in range(3):
        topic = reviews.topics.get(external_id=f"t{n:02d}")
        save_judgment(
            topic=topic, assessor=people["alice"], payload={"labels": {"i1": "no"}}, status="submitted", version=0
        )
    assert Membership.objects.get(campaign=reviews, user=people["alice"]).paused_at is not None
    base = f"/campaigns/{reviews.pk}"
    findings.check(browser, live_server, login, "organiser", "quality page", f"{base}/quality/")
    findings.check(
        browser, live_server, login, "alice", "paused: judging page", f"{base}/topics/t03/judge/", status=403
    )
    findings.check(browser, live_server, login, "alice", "paused: campaign page", f"{base}/")
    findings.check(browser, live_server, login, "alice", "paused: home", "/")
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
