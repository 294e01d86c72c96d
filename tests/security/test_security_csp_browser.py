"""The Content-Security-Policy in a real browser: the judging page of every
kind, while an assessor works on it, and the organiser's live page while it
refreshes itself, raise no CSP violation (Debian's chromium via Playwright,
against the live server, on the demo data)."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from annotate.models import Campaign
from kinds.registry import KINDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Every violation, whatever the console says: the browser's own event.
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", e => window.cspViolations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


@pytest.fixture
def demo(live_server):
    call_command("seed_demo", stdout=io.StringIO())
    for user in get_user_model().objects.filter(username__in=["alice", "organiser"]):
        user.set_password(f"pw-{user.username}")
        user.save()
    return Campaign.objects.filter(params__demo=True).order_by("pk")


@pytest.fixture
def watched(browser, live_server):
    """A logged-in page whose CSP complaints (console and violation events) are kept."""
    contexts, pages = [], []

    def open_as(username: str):
        context = browser.new_context()
        contexts.append(context)
        page = context.new_page()
        page.add_init_script(RECORD_VIOLATIONS)
        page.complaints = []
        page.on(
            "console",
            lambda message: page.complaints.append(message.text) if "Content Security Policy" in message.text else None,
        )
        page.on("pageerror", lambda error: page.complaints.append(f"page error: {error}"))
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(f"pw-{username}")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        pages.append(page)
        return page

    yield open_as
    for context in contexts:
        context.close()


def violations(page) -> list[str]:
    return page.complaints + page.evaluate("window.cspViolations || []")


def work_on(page, kind: str) -> None:
    """A little real work with the page's own script: enough to save a draft."""
    if kind == "pairs":
        page.keyboard.press("y")
    elif kind == "labels":
        page.keyboard.press("2")
    elif kind == "nuggets":
        page.keyboard.press("v")
    elif kind == "ordering":
        items = page.locator("#items .item")
        items.nth(1).drag_to(items.nth(0), target_position={"x": 20, "y": 5})
    elif kind == "clustering":
        page.get_by_role("button", name="New cluster").click()
        page.keyboard.type("A first cluster")
        target = page.locator("#clusters .cluster").first.locator(".cluster-sentences")
        page.locator(".sentence").first.hover()
        page.mouse.down()
        box = target.bounding_box()
        page.mouse.move(box["x"] + 40, box["y"] + box["height"] - 6, steps=8)
        page.wait_for_timeout(100)
        page.mouse.move(box["x"] + 40, box["y"] + box["height"] - 5)
        page.mouse.up()
    elif kind == "relevance":
        page.keyboard.press("2")
    elif kind == "factoids":
        page.keyboard.press("n")
        page.keyboard.type("A first factoid")
        page.keyboard.press("Enter")
    elif kind == "preference":
        page.keyboard.press("ArrowLeft")  # A (left) is better
    else:
        raise AssertionError(f"add a little work on a {kind} judging page to work_on()")
    expect(page.locator("#save-status")).to_contain_text(re.compile("Draft saved|Saved"), timeout=10_000)


def test_judging_and_live_pages_of_every_kind_raise_no_csp_violation(demo, watched, live_server):
    """One demo seed (the slow part) for both: alice judges, then the organiser watches."""
    alice = watched("alice")
    kinds = set()
    for campaign in demo:
        topic = campaign.topics.filter(assignments__assessor__username="alice").order_by("position").first()
        if topic is None or campaign.kind in kinds:
            continue
        alice.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/{topic.external_id}/judge/")
        expect(alice.locator("#save-status")).to_be_attached()
        alice.wait_for_load_state("networkidle")
        work_on(alice, campaign.kind)
        assert violations(alice) == [], (campaign.kind, violations(alice))
        kinds.add(campaign.kind)
    assert kinds == set(KINDS)

    organiser = watched("organiser")
    for campaign in demo:
        organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
        organiser.wait_for_timeout(1200)  # a couple of htmx refreshes (CONCORD_REFRESH_MS=500 in tests)
        assert violations(organiser) == [], (campaign.kind, violations(organiser))


def test_the_watch_sees_a_violation(people, watched):
    """The detector itself: an inline script and a style attribute added by hand are reported."""
    page = watched("alice")
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.ran = true";
        document.body.append(script);
        document.body.setAttribute("style", "color: red");
    }""")
    page.wait_for_timeout(200)
    found = violations(page)
    assert any("script-src" in v for v in found) and any("style-src" in v for v in found), found
    assert page.evaluate("window.ran") is None
