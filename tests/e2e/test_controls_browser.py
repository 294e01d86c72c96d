"""Control items in a browser, the whole path: an organiser imports a labels campaign's topics
file whose last two topics carry known answers, finds them on the Controls page and sets a
qualifying quiz of two controls there; the assessor's first two topics through "Next topic" are
those controls; answered wrong, the quiz pauses them and they are told why; the organiser sees
their accuracy with its interval on the Quality page and reinstates them; their next topics are
the regular ones, in order (the quiz is not taken again)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from annotate.models import Control, Membership, PauseRecord, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from stats import quality as stats_quality
from tests.e2e.test_import_wizard_browser import choose

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CONTROLS = {"t04", "t05"}


def topics_file(path) -> None:
    topics = [
        {"external_id": f"t{k:02d}", "title": f"Reviews {k}", "data": {"items": [{"id": "a", "text": f"Review {k}"}]}}
        for k in range(6)
    ]
    for topic in topics[4:]:
        topic["controls"] = {"a": "yes"}
    path.write_text(json.dumps(topics))


def test_the_quiz_controls_come_first(new_page, live_server, login, people, tmp_path):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Reviews",
        overlap=1,
        params={"level": "nominal", "categories": ["no", "yes"]},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    upload = tmp_path / "topics.json"
    topics_file(upload)

    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")
    choose(organiser, upload)
    expect(organiser.get_by_role("button", name="Import")).to_be_visible()
    expect(organiser.locator("#import-counts")).to_contain_text("known answers (controls)")
    organiser.get_by_role("button", name="Import").click()
    expect(organiser.locator("#upload-done")).to_be_visible()
    assert (
        set(Control.objects.filter(topic__campaign=campaign).values_list("topic__external_id", flat=True)) == CONTROLS
    )
    assert "controls" not in json.dumps(list(Topic.objects.filter(campaign=campaign).values_list("data", flat=True)))

    organiser.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Controls").click()
    expect(organiser.locator("#controls-table")).to_contain_text("t04")
    expect(organiser.locator("#controls-table")).to_contain_text("t05")
    organiser.get_by_label("Qualifying quiz: controls first").fill("2")
    organiser.get_by_role("button", name="Save the rules").click()
    expect(organiser.get_by_role("status")).to_have_text("The rules of control items are saved.")
    expect(organiser.get_by_label("Qualifying quiz: controls first")).to_have_value("2")

    assessor = new_page()
    login(assessor, "alice")

    def next_topic() -> str:
        assessor.goto(f"{live_server.url}/")
        assessor.get_by_role("link", name="Next topic").first.click()
        assessor.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/topics/*/judge/")
        expect(assessor.locator("body")).not_to_contain_text("control")
        external_id = assessor.url.rstrip("/").split("/")[-2]
        # Submitted directly: the judging page's keys have their own tests; here, what Next serves next.
        topic = Topic.objects.get(campaign=campaign, external_id=external_id)
        save_judgment(
            topic=topic, assessor=people["alice"], payload={"labels": {"a": "no"}}, status="submitted", version=0
        )
        return external_id

    served = [next_topic(), next_topic()]
    assert set(served) == CONTROLS
    # Both quiz answers wrong ("no" where "yes" is known): paused at the quiz, and told why.
    assessor.goto(f"{live_server.url}/")
    expect(assessor.get_by_text("Paused: the qualifying quiz: 0 of 2 items right")).to_be_visible()
    expect(assessor.get_by_role("link", name="Next topic")).to_have_count(0)
    assessor.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/t00/judge/")
    expect(assessor.locator("#paused-notice")).to_contain_text("below the 70% needed")

    organiser.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Quality").click()
    row = organiser.locator("#quality-table tr[data-assessor='alice']")
    high = float(stats_quality.control_accuracy(0, 2, level=0.99).high)
    expect(row.locator(".accuracy")).to_have_text(f"0.00 (0.00 to {high:.2f}, Wilson)")
    expect(row.locator(".status")).to_contain_text("paused since")
    row.get_by_label("Reason to reinstate alice").fill("read the guidelines again")
    row.get_by_role("button", name="Reinstate alice").click()
    expect(organiser.get_by_text("alice is reinstated")).to_be_visible()
    assert list(PauseRecord.objects.values_list("action", flat=True)) == ["pause", "reinstate"]
    assert Membership.objects.get(campaign=campaign, user=people["alice"]).paused_at is None

    # Back at work, without the quiz again: the regular topics in order.
    assert [next_topic(), next_topic()] == ["t00", "t01"]
