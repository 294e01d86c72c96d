"""Starting Phase 2 and applying an analysis's result ask for
confirmation on a page of their own, by keyboard alone, and can be reverted;
axe finds no serious or critical violation on the confirm pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotate.models import Campaign
from annotate.services.campaigns import create_campaign
from scoring.models import Job

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"
AXE_RUN = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id)"""
TUNED = {"min_sup": 0.5, "w_len": 2.0, "w_sup": 1.0, "min_len_ratio": 0.0, "max_len_ratio": 0.0}


def no_serious_violations(page) -> None:
    assert page.evaluate(AXE_RUN) == []  # axe is loaded into every page (organiser_page)


def organiser_page(new_page, login):
    page = new_page()
    page.context.add_init_script(path=str(AXE))  # under the page's CSP: as an init script, not a tag
    login(page, "organiser")
    return page


def press_until_focused(page, selector: str, limit: int = 40) -> None:
    """Tab through the page until ``selector`` has the focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got the focus by Tab")


def test_phase_two_by_keyboard_and_back(people, new_page, login, live_server):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="Tram", overlap=2)
    page = organiser_page(new_page, login)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    press_until_focused(page, "#start-phase-two")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Start Phase 2")
    expect(page.locator("#confirm-button")).to_be_focused()  # autofocus: Enter confirms, Tab reaches Cancel
    no_serious_violations(page)
    assert "phase" not in Campaign.objects.get(pk=campaign.pk).params
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    assert Campaign.objects.get(pk=campaign.pk).params["phase"] == 2
    press_until_focused(page, "#revert-phase-two")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Back to Phase 1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    assert "phase" not in Campaign.objects.get(pk=campaign.pk).params
    expect(page.locator("#start-phase-two")).to_be_visible()


def test_apply_a_tune_by_keyboard_and_revert_it(people, new_page, login, live_server):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="Steps", overlap=2)
    job = Job.objects.create(
        campaign=campaign,
        analysis="frespa-tune",
        status=Job.Status.DONE,
        progress=1.0,
        result={"setting": TUNED, "ed": 0.25, "settings_tried": 54},
        finished_at=timezone.now(),
    )
    page = organiser_page(new_page, login)
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    expect(page.locator("#job-proposal")).to_contain_text("frespa.max_len_ratio")
    press_until_focused(page, "#apply-job")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Apply frespa-tune to the campaign")
    no_serious_violations(page)
    page.keyboard.press("Tab")
    expect(page.locator("#confirm-cancel")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/?section=analyses#applied-changes")
    assert Campaign.objects.get(pk=campaign.pk).params["frespa"] == TUNED
    expect(page.locator(f"#applied-{job.pk}")).to_contain_text("frespa.min_sup")
    no_serious_violations(page)
    press_until_focused(page, f"#applied-{job.pk} button")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/?section=analyses")
    assert "frespa" not in Campaign.objects.get(pk=campaign.pk).params
    expect(page.locator(f"#applied-{job.pk}")).to_have_count(0)
