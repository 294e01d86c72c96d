"""The judging page when the network goes, and when two tabs edit the same
judgment: the draft is kept in the browser and sent later with the version
check; a newer saved version is shown as a merge prompt and is overwritten
only when the user says so. (Chromium, as in tests/e2e.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate import services
from annotate.models import Judgment, JudgmentRevision, Topic

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
OFFLINE = "Offline: your work is kept in this browser"


@pytest.fixture
def context(browser, live_server, people):
    """One browser (context) with alice logged in; its pages are her tabs."""
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    page.close()
    yield context
    context.close()


@pytest.fixture
def topic(campaign, people) -> Topic:
    return Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()


def judge(context, topic):
    page = context.new_page()
    page.goto(f"/campaigns/{topic.campaign_id}/topics/{topic.external_id}/judge/")
    expect(page.locator("#remaining")).to_contain_text("candidates left")  # the page script is ready
    return page


def choose(page, index: int, label: str) -> None:
    page.locator(".candidate").nth(index).get_by_role("button", name=re.compile(f"^{label}")).click()


def pressed(page, index: int, label: str):
    return page.locator(".candidate").nth(index).get_by_role("button", name=re.compile(f"^{label}"))


def kept(page) -> dict | None:
    return page.evaluate(
        "key => JSON.parse(localStorage.getItem(key))", page.locator("#judge").get_attribute("data-storage-key")
    )


def stored(topic, people) -> Judgment | None:
    return Judgment.objects.filter(topic=topic, assessor=people["alice"]).first()


def test_offline_work_is_kept_across_a_reload_and_sent_when_the_connection_returns(context, topic, people):
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 0, "Match")
    choose(page, 1, "No match")
    expect(page.locator("#save-status")).to_contain_text(OFFLINE)
    assert kept(page) == {"payload": {"matches": {"c1": True, "c2": False}}, "status": "draft", "version": 0}
    assert stored(topic, people) is None

    # Still unreachable, and the page is reloaded: the work comes back from the browser.
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))
    context.set_offline(False)
    page.reload()
    expect(pressed(page, 0, "Match")).to_have_attribute("aria-pressed", "true")
    expect(pressed(page, 1, "No match")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#save-status")).to_contain_text(OFFLINE)
    assert stored(topic, people) is None

    page.unroute("**/judgment/")
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the connection returns
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    judgment = stored(topic, people)
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True, "c2": False}})
    assert kept(page) is None
    expect(page.locator("#conflict")).to_be_hidden()


@pytest.mark.parametrize("choice", ["Keep mine", "Use the saved version"])
def test_a_change_made_elsewhere_while_offline_is_a_merge_prompt(context, topic, people, choice):
    services.save_judgment(
        topic=topic, assessor=people["alice"], payload={"matches": {"c1": True}}, status="draft", version=0
    )
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 1, "Match")
    expect(page.locator("#save-status")).to_contain_text(OFFLINE)
    # Meanwhile, from another device.
    services.save_judgment(
        topic=topic, assessor=people["alice"], payload={"matches": {"c1": False, "c3": True}}, status="draft", version=1
    )

    context.set_offline(False)
    conflict = page.locator("#conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("changed elsewhere")
    expect(page.locator("#merge-mine-head")).to_contain_text("Your unsaved change (made on version 1)")
    expect(page.locator("#merge-saved-head")).to_contain_text("Saved version 2 by alice")
    rows = page.locator("#merge-rows tr")
    expect(rows).to_have_count(3)  # c1, c2 and c3 differ, each with its candidate's text (the page's item-labels)
    expect(rows.nth(0)).to_have_text(re.compile(r"matches\.c1\s*“Candidate \d\.1”\s*true\s*false"))
    expect(rows.nth(1)).to_have_text(re.compile(r"matches\.c2\s*“Candidate \d\.2”\s*true\s*—"))
    expect(rows.nth(2)).to_have_text(re.compile(r"matches\.c3\s*“Candidate \d\.3”\s*—\s*true"))
    expect(page.locator("#save-status")).to_contain_text("Not saved")
    # Nothing is overwritten until the user chooses, whatever else happens meanwhile.
    choose(page, 3, "No match")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(rows.nth(3)).to_have_text(re.compile(r"matches\.c4\s*“Candidate \d\.4”\s*false\s*—"))
    judgment = stored(topic, people)
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": False, "c3": True}})

    page.get_by_role("button", name=choice).click()
    if choice == "Keep mine":
        expect(page.locator("#save-status")).to_contain_text("Draft saved (version 3)")
        expect(conflict).to_be_hidden()
        judgment = stored(topic, people)
        assert (judgment.version, judgment.payload) == (3, {"matches": {"c1": True, "c2": True, "c4": False}})
    else:
        expect(pressed(page, 2, "Match")).to_have_attribute("aria-pressed", "true")  # the saved version, reloaded
        expect(pressed(page, 1, "Match")).to_have_attribute("aria-pressed", "false")
        expect(conflict).to_be_hidden()
        assert stored(topic, people).version == 2
        assert kept(page) is None
    assert list(
        JudgmentRevision.objects.filter(judgment__topic=topic).values_list("version", flat=True).order_by("version")
    ) == ([1, 2, 3] if choice == "Keep mine" else [1, 2])


def test_a_draft_left_for_an_older_version_is_offered_not_dropped_or_sent(context, topic, people):
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 0, "No match")
    expect(page.locator("#save-status")).to_contain_text(OFFLINE)
    page.close()  # the tab is closed while offline
    context.set_offline(False)
    services.save_judgment(
        topic=topic, assessor=people["alice"], payload={"matches": {"c2": True}}, status="draft", version=0
    )

    page = judge(context, topic)
    expect(page.locator("#conflict")).to_be_visible()
    expect(page.locator("#merge-saved-head")).to_contain_text("Saved version 1")
    expect(page.locator("#merge-rows")).to_contain_text("matches.c1")
    assert stored(topic, people).payload == {"matches": {"c2": True}}
    page.get_by_role("button", name="Keep mine").click()
    expect(pressed(page, 0, "No match")).to_have_attribute(
        "aria-pressed", "true"
    )  # reloaded: mine is the saved one now
    expect(page.locator("#conflict")).to_be_hidden()
    judgment = stored(topic, people)
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": False}})


def test_two_tabs_editing_the_same_judgment(context, topic, people):
    first, second = judge(context, topic), judge(context, topic)
    choose(first, 0, "Match")
    expect(first.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    choose(second, 0, "No match")  # this tab still has version 0
    expect(second.locator("#conflict")).to_be_visible()
    expect(second.locator("#conflict")).to_contain_text("another tab or device")
    expect(second.locator("#merge-saved-head")).to_contain_text("Saved version 1")
    expect(second.locator("#merge-rows tr").first).to_have_text(
        re.compile(r"matches\.c1 “Candidate 1\.1”\s*false\s*true")
    )
    expect(second.locator("#save-status")).to_contain_text("Not saved")
    judgment = stored(topic, people)
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})  # the first tab's

    # The first tab goes on saving; the second still overwrites nothing.
    choose(first, 1, "Match")
    expect(first.locator("#save-status")).to_contain_text("Draft saved (version 2)")
    expect(first.locator("#conflict")).to_be_hidden()
    assert stored(topic, people).payload == {"matches": {"c1": True, "c2": True}}

    second.get_by_role("button", name="Use the saved version").click()
    expect(pressed(second, 0, "Match")).to_have_attribute("aria-pressed", "true")
    expect(pressed(second, 1, "Match")).to_have_attribute("aria-pressed", "true")
    expect(second.locator("#conflict")).to_be_hidden()
    assert stored(topic, people).version == 2


def test_a_server_that_is_restarting_gets_the_same_save_again(context, topic, people):
    page = judge(context, topic)
    answers = iter([503])

    def restarting(route):
        status = next(answers, None)
        if status is None:
            route.continue_()
        else:
            route.fulfill(status=status, content_type="text/html", body="<h1>503 Service Unavailable</h1>")

    page.route("**/judgment/", restarting)
    choose(page, 0, "Match")
    expect(page.locator("#save-status")).to_contain_text("The server is not answering (503)")
    assert kept(page)["payload"] == {"matches": {"c1": True}}
    # Sent again by itself, a little later.
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)", timeout=30_000)
    judgment = stored(topic, people)
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})
    assert JudgmentRevision.objects.filter(judgment=judgment).count() == 1
