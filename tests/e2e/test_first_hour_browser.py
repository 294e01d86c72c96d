"""An organiser's first hour, one walk in Chromium from an
instance with accounts only, without any API, CLI or admin step: sign in; a campaign
from each real-world file (a flat worker,item,label CSV on an empty campaign, after a
mistaken one fixed from its error message; an Excel-style CSV with a byte-order mark and
semicolons; an .xlsx workbook; TREC topics and a run), each preview read before
confirming; two assessors invited at once and their links copied; the assessors set
their passwords and submit in their own browsers while the organiser's dashboard
updates in place; a "?" opens the right help section; axe-core finds no serious or
critical violation on the wizard's preview, the members page with links, the help page
and the dashboard summary, at 1280 and 390 px.

Other tests check each step's detail (test_import_wizard_browser.py,
test_dashboard_browser.py, test_set_password_browser.py, test_help_browser.py); this
one checks that the steps hold together, in the order a person takes them."""

from __future__ import annotations

import codecs
import json

import pytest
from playwright.sync_api import expect

from annotate.models import Campaign, Judgment, Topic
from kinds.relevance.tests.test_report import RUN_FILE, TOPICS_FILE
from tests.annotate.test_detect import xlsx
from tests.e2e.axe import AXE
from tests.e2e.test_import_wizard_browser import choose, serious_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def real_world_files(folder) -> dict:
    files = {
        "mistaken": ("crowd.csv", b"worker,item,answer\nw1,i1,yes\nw2,i1,no\nw1,i2,no\n"),
        "flat": ("crowd-fixed.csv", b"worker,item,label\nw1,i1,yes\nw2,i1,no\nw1,i2,no\n"),
        "excel": ("excel.csv", codecs.BOM_UTF8 + b"worker;item;label\r\nw3;i1;1\r\nw3;i3;0\r\n"),
        "xlsx": ("Book1.xlsx", xlsx([["worker", "item", "label"], ["w4", "i2", "yes"], ["w4", "i4", "no"]])),
        "trec-topics": ("topics.json", json.dumps(TOPICS_FILE).encode()),
        "trec-run": ("run.txt", RUN_FILE.encode()),
    }
    paths = {}
    for key, (name, content) in files.items():
        paths[key] = folder / name
        paths[key].write_bytes(content)
    return paths


def test_the_organisers_first_hour(new_page, live_server, login, people, tmp_path):
    files = real_world_files(tmp_path)
    page = new_page()
    page.context.add_init_script(path=str(AXE))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    login(page, "organiser")

    def create(kind: str, name: str, overlap: int = 2) -> Campaign:
        page.get_by_label("Name").fill(name)
        page.get_by_label("Assessors per topic").fill(str(overlap))
        page.get_by_role("button", name="Create the campaign").click()
        page.wait_for_url(f"{live_server.url}/campaigns/*/")
        campaign = Campaign.objects.get(name=name)
        assert campaign.kind == kind
        page.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Uploads").click()
        return campaign

    def imported(expected: str) -> None:
        page.get_by_role("button", name="Import").click()
        expect(page.locator("#upload-done")).to_have_text(expected)

    # 1. A flat worker,item,label file on an empty campaign, the first try a mistaken one.
    page.get_by_role("link", name="New campaign").click()
    page.get_by_role("link", name="Pair adjudication").click()
    crowd = create("pairs", "Crowd answers", overlap=3)  # room for two more opinions on i2, one on i1
    choose(page, files["mistaken"])
    expect(page.locator("#import-error")).to_contain_text("missing column `label` (found: worker, item, answer)")
    choose(page, files["flat"])  # "Choose another file", on the same page
    expect(page.locator("#import-counts").get_by_role("row", name="new topics 2", exact=True)).to_be_visible()
    expect(page.locator("#import-counts").get_by_role("row", name="judgments 3", exact=True)).to_be_visible()
    assert not Topic.objects.filter(campaign=crowd).exists()  # the preview wrote nothing
    imported("Imported 2 topics, 3 judgments, 2 new imported assessors from crowd-fixed.csv.")

    # 2. Excel's CSV: byte-order mark, semicolons; the preview is checked by axe-core.
    page.goto(f"{live_server.url}/campaigns/new/?kind=pairs")
    excel = create("pairs", "Excel export")
    choose(page, files["excel"])
    expect(page.locator("#import-encoding")).to_have_text("UTF-8 with a byte-order mark")
    expect(page.locator("#import-delimiter")).to_have_text("semicolon")
    expect(page.locator("#import-rows").get_by_role("row")).to_have_count(3)
    assert serious_violations(page) == [], "the import wizard's preview"
    imported("Imported 2 topics, 2 judgments, 1 new imported assessor from excel.csv.")

    # 3. An .xlsx workbook.
    page.goto(f"{live_server.url}/campaigns/new/?kind=pairs")
    book = create("pairs", "Workbook")
    choose(page, files["xlsx"])
    expect(page.locator("#import-format")).to_have_text("an Excel workbook (.xlsx)")
    imported("Imported 2 topics, 2 judgments, 1 new imported assessor from Book1.xlsx.")

    # 4. TREC: the topics file dropped on the wizard says which form takes it; that form takes both.
    page.goto(f"{live_server.url}/campaigns/new/?kind=relevance")
    robust = create("relevance", "Robust")
    choose(page, files["trec-topics"])
    expect(page.locator("#import-error")).to_contain_text("use the form 'TREC run files' further down this page")
    page.get_by_role("link", name="Uploads").first.click()
    form = page.locator("#upload-trec-runs")
    form.get_by_label("TREC run file", exact=True).set_input_files(str(files["trec-run"]))
    form.get_by_label("Topics and document texts (JSON)").set_input_files(str(files["trec-topics"]))
    form.get_by_role("button", name="Upload TREC run files").click()
    expect(page.locator("#upload-done")).to_contain_text("2 topics")

    assert crowd.overlap == 3
    assert {c.name: c.topics.count() for c in (crowd, excel, book, robust)} == {
        "Crowd answers": 2, "Excel export": 2, "Workbook": 2, "Robust": 2,
    }  # fmt: skip
    assert Judgment.objects.filter(topic__campaign__in=(crowd, excel, book)).count() == 7

    # Two assessors at once on the first campaign; all their links copied in one go.
    page.goto(f"{live_server.url}/campaigns/{crowd.pk}/members/")
    page.get_by_label("User names").fill("dana, erin")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_role("button", name="Copy all links").click()
    expect(page.locator("#copy-status")).to_have_text("Copied 2 links.")
    copied = page.evaluate("navigator.clipboard.readText()")
    links = dict(line.split("\t") for line in copied.splitlines())
    assert sorted(links) == ["dana", "erin"]
    assert serious_violations(page) == [], "the members page with its links"

    # The "?" beside "Add members" opens the organiser's guide at that task.
    page.get_by_role("link", name="Help: Add assessors").click()
    page.wait_for_url(f"{live_server.url}/help/organiser/#add-assessors")
    expect(page.get_by_role("heading", name="Add assessors", exact=True)).to_be_in_viewport()
    assert serious_violations(page) == [], "the help page"

    # The dashboard, open while the assessors work.
    page.goto(f"{live_server.url}/campaigns/{crowd.pk}/")
    judged = page.locator("#summary-judged")
    expect(judged).to_have_text("3")  # the imported workers' judgments
    assert serious_violations(page) == [], "the dashboard summary"
    page.evaluate("window.stillTheSamePage = true")

    for name, link in links.items():
        assessor = new_page()
        assessor.goto(link)
        assessor.get_by_label("New password:", exact=True).fill(f"{name}'s long passphrase")
        assessor.get_by_label("New password confirmation:").fill(f"{name}'s long passphrase")
        assessor.keyboard.press("Enter")
        assessor.get_by_role("link", name="log in").click()
        assessor.get_by_label("Username").fill(name)
        assessor.get_by_label("Password").fill(f"{name}'s long passphrase")
        assessor.get_by_role("button", name="Log in").click()
        assessor.get_by_role("link", name="Next topic").click()
        topic = assessor.url
        expect(assessor.locator("#remaining")).to_contain_text("left")  # the page script is ready
        assessor.keyboard.press("y")  # the topic's one candidate: a match
        assessor.keyboard.press("Enter")  # the confirm step
        assessor.keyboard.press("Enter")  # on "Submit"
        assessor.wait_for_url(lambda url, judged_at=topic: url != judged_at)  # on to what is next

    expect(judged).to_have_text("5", timeout=15_000)
    assert page.evaluate("window.stillTheSamePage") is True
    submitted = Judgment.objects.filter(topic__campaign=crowd, assessor__username__in=links, status="submitted")
    assert sorted(submitted.values_list("assessor__username", flat=True)) == ["dana", "erin"]
