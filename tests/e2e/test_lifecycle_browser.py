"""The whole campaign in the browser, from an empty instance to an exported
gold standard: the organiser creates a campaign of
every kind and uploads its topics; on the name-search one they add two
assessors, who get set-password links and judge by keyboard; one reopens and
resubmits and the organiser sees agreement move; the organiser uploads two
systems' runs, runs the evaluation with parameters and cancels another
analysis; an admin exports the gold standard. No step uses the API, the
command line or the Django admin."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from annotate.models import Campaign, Judgment
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring import tasks
from scoring.models import Job

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The pairs kind's example topic (kinds/pairs/examples.py): four candidates c1-c4.
RUNS = [
    {
        "name": "sys-a",
        "data": {"results": {"t1": [{"id": "c1", "text": "Jon Smith"}, {"id": "c2", "text": "J. Smyth"}]}},
    },
    {"name": "sys-b", "data": {"results": {"t1": [{"id": "c3", "text": "Joan Smit"}]}}},
]


def create(page, base: str, kind: str, name: str) -> str:
    page.goto(f"{base}/")
    page.get_by_role("link", name="New campaign").click()
    page.get_by_role("link", name=KINDS[kind].label).click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Assessors per topic").fill("2")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(re.compile(r"/campaigns/\d+/$"))
    return page.url


def upload(page, campaign_url: str, section: str, label: str, button: str, path) -> None:
    page.goto(campaign_url + "uploads/")
    form = page.locator(f"#upload-{section}")
    form.get_by_label(label).set_input_files(str(path))
    form.get_by_role("button", name=button).click()
    expect(page.locator("#upload-done")).to_contain_text("Imported")


def set_password(browser, link: str, username: str, password: str):
    page = browser.new_context().new_page()
    page.goto(link)
    page.get_by_label(re.compile(r"^New password:?$")).fill(password)
    page.get_by_label("New password confirmation").fill(password)
    page.get_by_role("button", name="Set my password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()
    page.get_by_role("link", name="log in").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    return page


def judge_by_keyboard(page, keys: str) -> None:
    page.get_by_role("link", name="Next topic").first.click()
    page.wait_for_url(re.compile(r"/judge/$"))
    expect(page.locator("#remaining")).to_contain_text("4 of 4 candidates left")
    for key in keys:
        page.keyboard.press(key)
    page.keyboard.press("Enter")  # the confirm step, with its summary
    expect(page.locator("#confirm-ok")).to_be_focused()
    page.keyboard.press("Enter")


def test_from_an_empty_instance_to_an_exported_gold_standard(
    browser, new_page, live_server, login, people, tmp_path, monkeypatch
):
    base = live_server.url
    assert not Campaign.objects.exists()
    organiser = new_page()
    login(organiser, "organiser")

    # A campaign of every kind, each with its example topic uploaded through the page.
    urls = {}
    for kind, spec in KINDS.items():
        urls[kind] = create(organiser, base, kind, f"{spec.label} lifecycle")
        topics = tmp_path / f"{kind}-topics.json"
        topics.write_text(json.dumps([{"external_id": "t1", "title": "Example", "data": spec.examples.topic}]))
        upload(organiser, urls[kind], "topics", "Topics file", "Upload topics", topics)
    assert {c.kind: c.topics.count() for c in Campaign.objects.all()} == {kind: 1 for kind in KINDS}
    pairs_url = urls["pairs"]
    campaign = Campaign.objects.get(kind="pairs")

    # Two new assessors, each with a one-time set-password link.
    organiser.goto(pairs_url + "members/")
    organiser.get_by_label("User names").fill("ann\nben")
    organiser.locator("#f-role").select_option("assessor")
    organiser.get_by_role("button", name="Add", exact=True).click()
    assessors = {}
    for name in ("ann", "ben"):
        organiser.goto(pairs_url + "members/")
        organiser.locator("tr", has_text=name).get_by_role("button", name="Set-password link").click()
        link = organiser.get_by_label(f"Set-password link for {name}").input_value()
        assessors[name] = set_password(browser, link, name, f"a long passphrase for {name}")

    # Both judge by keyboard: ann y y n n, ben y n n n (they differ on c2: kappa 0.5).
    organiser.goto(pairs_url + "?section=report")
    kappa = organiser.locator("#pairs-table tr", has_text="ann · ben").locator("td.kappa")
    judge_by_keyboard(assessors["ann"], "yynn")
    judge_by_keyboard(assessors["ben"], "ynnn")
    expect(kappa).to_have_text("0.500", timeout=15_000)

    # ben reopens, changes c2 to a match and resubmits: they agree, and the organiser sees it.
    ben = assessors["ben"]
    ben.goto(f"{pairs_url}topics/t1/judge/")
    ben.get_by_role("button", name="Reopen to edit").click()
    expect(ben.locator("#judgment-state-line")).to_contain_text("Editing a draft on top of submitted version")
    ben.keyboard.press("j")
    ben.keyboard.press("y")
    expect(ben.locator("#save-status")).to_contain_text("on top of submitted version")
    ben.keyboard.press("Enter")
    expect(ben.locator("#confirm-ok")).to_be_focused()
    ben.keyboard.press("Enter")
    expect(kappa).to_have_text("1.000", timeout=15_000)
    assert Judgment.objects.get(topic__campaign=campaign, assessor__username="ben").payload["matches"]["c2"] is True

    # Systems' runs, then the evaluation with parameters typed into its form.
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps(RUNS))
    upload(organiser, pairs_url, "runs", "Runs file", "Upload runs", runs)
    organiser.goto(pairs_url + "?section=analyses")
    evaluation = organiser.locator("details.analysis", has_text="evaluation")
    evaluation.locator("summary").click()
    evaluation.get_by_label("n random").fill("20")
    evaluation.get_by_label("n resamples").fill("50")
    evaluation.get_by_label("resample", exact=True).select_option("items")  # one query: resample its items
    evaluation.get_by_role("button", name="Run evaluation").click()
    organiser.wait_for_url(re.compile(r"/jobs/\d+/$"))
    expect(organiser.locator("#job-status")).to_contain_text("done", timeout=30_000)
    job = Job.objects.get(campaign=campaign, analysis="evaluation")
    assert (job.params["n_random"], job.params["n_resamples"], job.params["resample"]) == (20, 50, "items")
    assert (
        job.status == "done" and len(job.result["table2"]) == 6
    )  # consensus, union, intersection, 2 singles, random:0

    # Another analysis that a busy worker has not started yet: cancelled from its page.
    class NotStarted:  # the task module as scoring.services sees it, with no analysis ever handed to the queue
        dispatch_analyses = staticmethod(lambda campaign_id: None)

        def __getattr__(self, name):
            return getattr(tasks, name)

    monkeypatch.setattr(scoring_services, "tasks", NotStarted())
    organiser.goto(pairs_url + "?section=analyses")
    organiser.locator("details.analysis", has_text="agreement").locator("summary").click()
    organiser.get_by_role("button", name="Run agreement").click()
    organiser.wait_for_url(re.compile(r"/jobs/\d+/$"))
    expect(organiser.locator("#job-status")).to_contain_text("queued")
    organiser.get_by_role("button", name="Cancel").click()
    expect(organiser.locator("#job-status")).to_contain_text("cancelled")
    assert Job.objects.get(campaign=campaign, analysis="agreement").status == "cancelled"

    # An admin exports the consensus gold standard.
    admin = new_page()
    login(admin, "admin")
    admin.goto(pairs_url + "export/")
    gold = admin.locator("#export-gold")
    gold.get_by_label("Truth set").select_option("consensus")
    gold.get_by_label("Format").select_option("csv")
    with admin.expect_download() as download:
        gold.get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == f"campaign-{campaign.pk}-pairs-gold-consensus.csv"
    rows = open(download.value.path(), encoding="utf-8").read().splitlines()
    # Provenance columns follow the votes: a majority vote's source is "vote".
    assert rows[0] == "topic,candidate,truth,label,matches,judged,source,posterior,adjudicated_by,adjudicated_at"
    assert rows[1:] == [
        "t1,c1,consensus,1,2,2,vote,,,",
        "t1,c2,consensus,1,2,2,vote,,,",
        "t1,c3,consensus,0,0,2,vote,,,",
        "t1,c4,consensus,0,0,2,vote,,,",
    ]
