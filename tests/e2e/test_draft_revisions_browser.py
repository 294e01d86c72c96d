"""Draft revisions from the judging page (docs/api.md, "Judgment states"): drafts saved in a
row from one page share a revision; another tab of the same browser is another page,
so the version its 409 merge prompt shows stays in the history after "Keep mine"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import REVISION_PAYLOAD, Judgment, JudgmentRevision, Topic

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def saved(page, version: int) -> None:
    expect(page.locator("#save-status")).to_have_text(f"Draft saved (version {version}).")


def test_drafts_from_one_page_share_a_revision_and_another_tabs_stays(new_page, live_server, login, people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()
    url = f"{live_server.url}/campaigns/{campaign.pk}/topics/{topic.external_id}/judge/"
    first = new_page()
    login(first, "alice")
    first.goto(url)
    for version, key in enumerate("yny", start=1):  # three drafts, each saved before the next key
        first.keyboard.press(key)
        saved(first, version)
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    rows = lambda: list(
        JudgmentRevision.objects.filter(judgment=judgment)
        .annotate(payload_of=REVISION_PAYLOAD)
        .values_list("version", "saves", "payload_of")
    )  # noqa: E731
    assert [(v, n) for v, n, _ in rows()] == [(3, 3)]
    assert rows()[0][2] == {"matches": {"c1": True, "c2": False, "c3": True}}

    second = first.context.new_page()  # the same browser session, another tab
    second.goto(url)
    second.keyboard.press("n")  # c4, the first candidate left: no match
    saved(second, 4)
    assert [(v, n) for v, n, _ in rows()] == [(3, 3), (4, 1)]

    first.keyboard.press("y")  # c4: a match, made on version 3 while the server is at 4
    expect(first.locator("#merge")).to_be_visible()
    first.get_by_role("button", name="Keep mine").click()
    saved(first, 5)
    history = rows()
    assert [(v, n) for v, n, _ in history] == [(3, 3), (4, 1), (5, 1)]
    assert history[1][2]["matches"]["c4"] is False  # the other tab's version, shown in the prompt, is kept
    assert history[2][2]["matches"] == {"c1": True, "c2": False, "c3": True, "c4": True}
