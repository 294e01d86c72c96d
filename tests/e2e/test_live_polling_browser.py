"""The organiser page polls the report with If-None-Match (static/annotate/live.js): while the
report is unchanged every poll is a 304 and the fragment on the page stays as it was (the very
same nodes); a new report comes in as a 200 and is shown, and its ETag is sent from then on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Topic
from annotate.services.judgments import save_judgment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def test_polling_an_unchanged_report_keeps_the_fragment_and_a_new_one_replaces_it(
    new_page, live_server, login, people, campaign
):
    for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people["bob"]):
        save_judgment(topic=topic, assessor=people["bob"], payload=FULL, status="submitted", version=0)
    polls: list[tuple[int, str | None, str | None]] = []

    organiser = new_page()
    login(organiser, "organiser")
    organiser.on(
        "response",
        lambda r: (
            polls.append((r.status, r.request.headers.get("if-none-match"), r.headers.get("etag")))
            if r.url.endswith(f"/campaigns/{campaign.pk}/report/")
            else None
        ),
    )
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(organiser.locator("#report-meta")).to_contain_text("from 3 submitted")
    tag = organiser.locator("#report").get_attribute("data-etag")
    assert tag and tag.startswith('"r')
    organiser.evaluate("document.getElementById('report-meta').dataset.marker = 'first'")
    organiser.wait_for_timeout(2_000)  # about 4 polls at CONCORD_REFRESH_MS = 500
    assert len(polls) >= 2 and all(p == (304, tag, tag) for p in polls), polls
    # Nothing was swapped: the very node marked above is still on the page, with its text.
    assert organiser.evaluate("document.getElementById('report-meta').dataset.marker") == "first"
    expect(organiser.locator("#report-meta")).to_contain_text("from 3 submitted")

    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    save_judgment(topic=topic, assessor=people["alice"], payload=FULL, status="submitted", version=0)
    expect(organiser.locator("#report-meta")).to_contain_text("from 4 submitted", timeout=15_000)
    fresh = [p for p in polls if p[0] == 200]
    assert len(fresh) == 1 and fresh[0][1] == tag and fresh[0][2] != tag, polls
    new_tag = fresh[0][2]
    assert organiser.locator("#report").get_attribute("data-etag") == new_tag
    count = len(polls)
    organiser.wait_for_timeout(1_500)
    later = polls[count:]
    assert later and all(p == (304, new_tag, new_tag) for p in later), later
    expect(organiser.locator("#report-meta")).to_contain_text("from 4 submitted")
