"""Agreement over time in a browser (scoring/history.py, templates/scoring/over_time.html): on a
campaign rebuilt several times, the Summary and the Report draw the line and its band as an SVG
under the strict CSP, pass axe in light and dark mode at 1280 and 390 px, fit 390 px with the
Data table open, and the Summary's chart takes a new point live, its Data table kept open."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring import history
from scoring import services as scoring_services
from tests.campaigns import pairs_topics
from tests.e2e.axe import DESKTOP, NEXT_FRAMES, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AGREE = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
DIFFER = {"matches": {"c1": True, "c2": True, "c3": True, "c4": False}}

#: Every <details> opened, then (two frames later) how wide the page is.
OPEN_AND_MEASURE = """async () => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return document.documentElement.scrollWidth;
}"""


def judge(campaign, people, topics) -> None:
    """alice and bob submit ``topics`` (bob differing on every third), and the reports are rebuilt."""
    for topic in topics:
        save_judgment(topic=topic, assessor=people["alice"], payload=AGREE, status="submitted", version=0)
        payload = DIFFER if topic.position % 3 == 0 else AGREE
        save_judgment(topic=topic, assessor=people["bob"], payload=payload, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk)


def test_agreement_over_time_draws_fits_passes_axe_and_follows_new_judgments(
    new_page, live_server, login, people, browser, findings
):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Over time", overlap=2)
    add_member(campaign=campaign, username="alice", role="assessor")
    add_member(campaign=campaign, username="bob", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(16))
    topics = list(Topic.objects.filter(campaign=campaign).order_by("position"))
    for start in (0, 4, 8):
        judge(campaign, people, topics[start : start + 4])
    # the live server's immediate tasks rebuild after each submission too: a point each
    stored = history.read(campaign).points
    points, drawn = len(stored), sum(p.value is not None for p in stored)
    assert drawn >= 3
    summary, report = f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/?section=report"

    for label, path in (("summary", summary), ("report", report)):
        findings.check(browser, live_server, login, "organiser", f"agreement over time: {label}", path)
    assert findings.problems == [], "\n" + "\n".join(findings.problems)

    page = new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    login(page, "organiser")
    for path in (summary, report):
        page.set_viewport_size(PHONE)
        page.goto(f"{live_server.url}{path}")
        chart = page.locator("#over-time svg.over-time-chart")
        expect(chart).to_be_visible()
        box = chart.bounding_box()
        assert 300 <= box["width"] <= PHONE["width"] and box["height"] > 100, box
        assert page.evaluate(OPEN_AND_MEASURE) <= PHONE["width"], path
        expect(page.locator("#over-time .over-time-dot")).to_have_count(drawn)  # a dot per defined figure
        expect(page.locator("#over-time-table tbody tr")).to_have_count(points)

    # The Summary's polled fragment: a new rebuild is a new point, and the open Data table stays open.
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}{summary}")
    page.locator("#over-time-data summary").click()
    expect(page.locator("#over-time-data")).to_have_attribute("open", "")
    judge(campaign, people, topics[12:16])
    grown = len(history.read(campaign).points)
    assert grown > points
    expect(page.locator("#over-time-table tbody tr")).to_have_count(grown, timeout=15_000)
    expect(page.locator("#over-time-table tbody tr").last.locator("th")).to_have_text("32")
    expect(page.locator("#over-time-data")).to_have_attribute("open", "")
    page.evaluate(NEXT_FRAMES)
    assert errors == []  # no CSP violation, no script error
