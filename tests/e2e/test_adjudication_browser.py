"""Adjudication in Chromium, keyboard only (docs/pages.md, "Adjudication"): the organiser opens
the queue of the pairs demo campaign, opens the most disputed topic, accepts the
consensus, goes on to the next most disputed topic and accepts one assessor's
judgment, with Tab and Enter alone; both pages pass axe-core (as
tests/e2e/test_accessibility_browser.py checks every page)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.demo import seed
from annotate.models import Curation
from annotate.services.curations import submitted
from dashboard import queue
from kinds.registry import KINDS
from scoring import services as scoring_services
from tests.e2e.axe import AXE, AXE_RUN, FAILING

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FOCUSED = "() => { const el = document.activeElement; return el ? (el.id || el.textContent.trim()) : ''; }"


def tab_to(page, target: str, limit: int = 80) -> None:
    """Press Tab until the focused element's id or text is ``target`` (a bounded number of times)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED) == target:
            return
    raise AssertionError(f"Tab never reached {target!r} on {page.url}")


def axe_problems(page) -> list[str]:
    problems = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for v in page.evaluate(AXE_RUN):
            if v["impact"] in FAILING:
                problems.append(f"{page.url} {scheme}: {v['impact']} {v['id']}: {v['help']} {v['nodes'][:3]}")
    return problems


@pytest.fixture
def pairs_demo(people, replace_spec, django_capture_on_commit_callbacks):
    """The pairs demo campaign whose queue has the most disputed topics, reports computed."""
    for other in KINDS:
        if other != "pairs":
            replace_spec(other, demo=None)
    with django_capture_on_commit_callbacks(execute=True):
        _, campaigns = seed(reset_passwords=False)
    for campaign in campaigns:
        scoring_services.recompute_reports(campaign.pk, everything=True)

    def disputed(campaign) -> int:
        rows = queue.disputed(campaign, queue.Filters()).rows
        return sum(1 for row in rows if row.disagreement)

    return max((c for c in campaigns if c.kind == "pairs"), key=disputed)


def test_an_organiser_adjudicates_two_topics_by_keyboard(pairs_demo, browser, live_server, login):
    campaign = pairs_demo
    rows = queue.disputed(campaign, queue.Filters()).rows
    first, second = rows[0].topic, rows[1].topic
    assert rows[0].disagreement and rows[1].disagreement, "the demo has two disputed topics"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    try:
        login(page, "organiser")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
        tab_to(page, "Adjudication")
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/adjudication/")
        expect(page.locator("#adjudication-queue tbody tr").first).to_have_attribute("data-topic", first.external_id)
        problems = axe_problems(page)

        tab_to(page, "most-disputed")
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/topics/{first.external_id}/adjudicate/")
        expect(page.locator("#gold-state")).to_have_text("Open: no gold saved yet.")
        expect(page.locator("#adjudication-comparison table tr.split").first).to_be_visible()
        problems += axe_problems(page)

        tab_to(page, "accept-consensus")
        page.keyboard.press("Enter")
        expect(page.locator("#gold-state")).to_contain_text("Adjudicated: version 1, saved by organiser")
        gold = Curation.objects.get(topic=first, name="consensus")
        views = KINDS["pairs"].data.assessor_view(first.data)
        payloads = [p for _, p in submitted(first)]
        assert (gold.version, gold.data) == (1, KINDS["pairs"].adjudication.consensus(views, payloads))

        tab_to(page, "next-disputed")
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/topics/{second.external_id}/adjudicate/")
        chosen = submitted(second)[0]
        tab_to(page, f"Accept {chosen[0]}'s judgment")
        page.keyboard.press("Enter")
        expect(page.locator("#gold-state")).to_contain_text("Adjudicated: version 1, saved by organiser")
        gold = Curation.objects.get(topic=second, name="consensus")
        assert gold.data == chosen[1]
        assert problems == [], "\n".join(problems)
    finally:
        context.close()
