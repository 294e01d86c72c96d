"""The "?" beside the judging page's keys opens the assessor's guide at "Judge by keyboard"
(concord/help.py), by keyboard; the help page passes axe-core at 1280 and 390 px, in light
and dark mode, and fits a phone without sideways scrolling."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import AXE, AXE_RUN, FAILING

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_keys_help_link_opens_its_section(campaign, live_server, browser, login):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    try:
        login(page, "alice")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/q1/judge/")
        link = page.get_by_role("link", name="Help: Judge by keyboard")
        link.focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{live_server.url}/help/assessor/#judge-by-keyboard")
        heading = page.get_by_role("heading", name="Judge by keyboard", exact=True)
        expect(heading).to_be_in_viewport()
        expect(page.get_by_role("img", name="A judging page")).to_be_visible()
        problems = []
        for size in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
            page.set_viewport_size(size)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                problems += [f"{size['width']} {scheme}: {v['id']}: {v['help']} {v['nodes'][:3]}"
                             for v in page.evaluate(AXE_RUN) if v["impact"] in FAILING]  # fmt: skip
        assert problems == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
