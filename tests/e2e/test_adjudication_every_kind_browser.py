"""Adjudication for every kind, in Chromium: on each kind's demo campaign an
organiser opens the adjudication queue, opens the most disputed topic, sees every
assessor's judgment side by side (by name) and sets the gold with the keyboard: the
consensus where the kind has one, else the first assessor's judgment. The adjudication
page of every kind passes axe-core (its comparison fragment is the kind's own)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from test_adjudication_browser import axe_problems, tab_to

from annotate.demo import seed
from annotate.models import Curation
from annotate.services.curations import submitted
from dashboard import queue
from kinds.registry import KINDS
from scoring import services as scoring_services
from tests.e2e.axe import AXE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_organiser_adjudicates_the_most_disputed_topic(
    kind, people, replace_spec, django_capture_on_commit_callbacks, browser, live_server, login
):
    for other in KINDS:
        if other != kind:
            replace_spec(other, demo=None)
    with django_capture_on_commit_callbacks(execute=True):
        _, campaigns = seed(reset_passwords=False)
    for campaign in campaigns:
        scoring_services.recompute_reports(campaign.pk, everything=True)
    queues = [(queue.disputed(c, queue.Filters()).rows, c) for c in campaigns if c.kind == kind]
    rows, campaign = max(queues, key=lambda q: sum(1 for row in q[0] if row.disagreement))
    assert rows and rows[0].disagreement, f"the {kind} demo has a disputed topic"
    topic = rows[0].topic
    spec = KINDS[kind]
    judged = submitted(topic)
    assert len(judged) >= 2

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    try:
        login(page, "organiser")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/adjudication/")
        expect(page.locator("#adjudication-queue tbody tr").first).to_have_attribute("data-topic", topic.external_id)
        tab_to(page, topic.external_id)  # the first row's link (the demo may have adjudicated it already)
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/topics/{topic.external_id}/adjudicate/")
        before = Curation.objects.filter(topic=topic, name="consensus").first()
        version = before.version + 1 if before else 1
        if before is None:
            expect(page.locator("#gold-state")).to_have_text("Open: no gold saved yet.")
        comparison = page.locator("#adjudication-comparison")
        for assessor, _ in judged:
            expect(comparison).to_contain_text(assessor)
        problems = axe_problems(page)

        if spec.adjudication.consensus is not None:
            tab_to(page, "accept-consensus")
            expected = spec.adjudication.consensus(
                spec.data.assessor_view(topic.data), [payload for _, payload in judged]
            )
        else:
            tab_to(page, f"Accept {judged[0][0]}'s judgment")
            expected = judged[0][1]
        page.keyboard.press("Enter")
        expect(page.locator("#gold-state")).to_contain_text(f"Adjudicated: version {version}, saved by organiser")
        gold = Curation.objects.get(topic=topic, name="consensus")
        cleaned = spec.data.clean_payload(expected, topic.data, complete=False, params=campaign.params)
        assert (gold.version, gold.data) == (version, cleaned)
        assert gold.revisions.count() == version
        assert problems == [], "\n".join(problems)
    finally:
        context.close()
