"""Uploads in the browser: a topics file goes in through the progress-bar
upload (XMLHttpRequest); a bad file shows the importer's error with its line
number at the form, and nothing is imported. Then the assignments page moves
a topic from one assessor to another."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from annotate.models import Assignment, Topic
from tests.campaigns import pairs_topics

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_upload_topics_and_a_bad_file(new_page, live_server, login, campaign, tmp_path):
    good = tmp_path / "topics.json"
    good.write_text(json.dumps(pairs_topics(5)[3:]))
    bad = tmp_path / "crowd.csv"
    bad.write_text("worker,item,label\nw1,q1,yes\nw2,q1,perhaps\n")

    page = new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Uploads").first.click()
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")

    topics = page.locator("#upload-topics")
    expect(topics.locator("progress.upload-progress")).to_be_attached()
    expect(topics.locator("progress.upload-progress")).to_be_hidden()
    topics.get_by_label("Topics file").set_input_files(str(good))
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/uploads/")) as sent:
        topics.get_by_role("button", name="Upload topics").click()
    # Sent by the page's script (XMLHttpRequest, for the progress bar), which asks for JSON.
    assert sent.value.headers["content-type"] == "application/json"
    expect(page.locator("#upload-done")).to_have_text("Imported 2 topics.")
    assert list(Topic.objects.filter(campaign=campaign).values_list("external_id", flat=True)) == [
        "q1", "q2", "q3", "q4", "q5"
    ]  # fmt: skip

    judgments = page.locator("#upload-judgments")
    judgments.get_by_label("Judgments file").set_input_files(str(bad))
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/uploads/")) as sent:
        judgments.get_by_role("button", name="Upload existing judgments").click()
    assert sent.value.status == 400 and sent.value.json()["field"] == "line 3: label"
    error = judgments.locator(".upload-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(
        "Nothing imported: line 3: label: 'perhaps' is not a match label; say which value means a match"
    )
    expect(judgments.locator("progress.upload-progress")).to_be_hidden()
    assert page.url == f"{live_server.url}/campaigns/{campaign.pk}/uploads/"  # the page stayed, nothing imported
    assert not campaign.topics.get(external_id="q1").judgments.exists()
    # The 400 itself is logged by the browser; nothing else (no CSP violation, no script error).
    assert [e for e in errors if "status of 400" not in e] == []


def test_move_a_topic_on_the_assignments_page(new_page, live_server, login, campaign):
    from annotate.services.members import add_member

    add_member(campaign=campaign, username="carol", role="assessor")
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/assignments/?q=q1")
    page.get_by_label("Take topic q1 from").select_option("alice")
    page.get_by_label("Give topic q1 to").select_option("carol")
    page.get_by_role("button", name="Move").click()
    expect(page.get_by_role("status")).to_have_text("Topic q1 moved from alice to carol.")
    expect(page.locator("#assignments-table")).to_contain_text("carol (no judgment)")
    assert sorted(
        Assignment.objects.filter(topic__campaign=campaign, topic__external_id="q1").values_list(
            "assessor__username", flat=True
        )
    ) == ["bob", "carol"]
