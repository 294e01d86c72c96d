"""The import wizard in a browser, with the files a new organiser
really has: a PNG dropped by mistake, a crowd CSV whose label column is named
`answer` (mapped on the page), an Excel-style CSV (byte-order mark,
semicolons, CRLF), an .xlsx workbook, on a new campaign with no topics; and
TREC topics dropped on the generic Topics form. Each file is previewed (what
was detected, the counts, the first rows), confirmed, and read back from the
database. A file imported again shows its judgments already there at the
preview, not after Import; columns mapped stay mapped through an error."""

from __future__ import annotations

import codecs
import json

import pytest
from playwright.sync_api import expect

from annotate.models import Judgment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from tests.annotate.test_detect import xlsx
from tests.e2e.axe import AXE, AXE_RUN, FAILING, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def payloads(campaign) -> dict[tuple[str, str], dict]:
    return {
        (j.assessor.username, j.topic.external_id): j.payload
        for j in Judgment.objects.filter(topic__campaign=campaign).select_related("assessor", "topic")
    }


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is, at 1280 and at 390 px."""
    found = []
    for width, height in ((1280, 900), (PHONE["width"], PHONE["height"])):
        page.set_viewport_size({"width": width, "height": height})
        found += [f"{width} px: {v['id']}: {v['nodes'][:2]}" for v in page.evaluate(AXE_RUN) if v["impact"] in FAILING]
    page.set_viewport_size({"width": 1280, "height": 900})
    return found


def choose(page, path) -> None:
    page.get_by_label("A file of topics, runs or judgments").set_input_files(str(path))
    page.get_by_role("button", name="Preview", exact=True).click()


def test_a_new_campaign_from_real_world_files(new_page, live_server, login, people, tmp_path):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    png = tmp_path / "screenshot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    answer = tmp_path / "crowd.csv"
    answer.write_text("worker,item,answer\nw1,i1,yes\nw2,i1,no\nw1,i2,no\n")
    excel = tmp_path / "excel.csv"
    excel.write_bytes(codecs.BOM_UTF8 + b"worker;item;label\r\nw3;i1;1\r\nw3;i3;0\r\n")
    book = tmp_path / "Book1.xlsx"
    book.write_bytes(xlsx([["worker", "item", "label"], ["w4", "i2", "yes"], ["w4", "i4", "no"]]))

    page = new_page()
    page.context.add_init_script(path=str(AXE))
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")

    choose(page, png)
    expect(page.locator("#import-error")).to_have_text(
        "Nothing imported: file: a PNG image, not a table: choose the CSV, spreadsheet or JSON file"
    )

    choose(page, answer)
    expect(page.locator("#import-error")).to_contain_text("missing column `label` (found: worker, item, answer)")
    assert serious_violations(page) == []  # the column mapping
    page.get_by_label("label", exact=True).select_option("answer")
    page.get_by_role("button", name="Preview again").click()
    expect(page.locator("#import-counts").get_by_role("row", name="new topics 2", exact=True)).to_be_visible()
    expect(page.locator("#import-rows").get_by_role("row").nth(1)).to_have_accessible_name("2 w1 i1 item match")
    assert not Topic.objects.filter(campaign=campaign).exists()  # the preview wrote nothing
    assert serious_violations(page) == []  # the preview
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_have_text(
        "Imported 2 topics, 3 judgments, 2 new imported assessors from crowd.csv."
    )

    choose(page, excel)
    expect(page.locator("#import-encoding")).to_have_text("UTF-8 with a byte-order mark")
    expect(page.locator("#import-delimiter")).to_have_text("semicolon")
    expect(page.locator("#import-notices")).to_contain_text("semicolon-separated: detected, reading with ';'")
    # Keyboard: the Import button is reached by Tab from "Preview again" and pressed with Enter.
    page.get_by_role("button", name="Preview again").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#upload-done")).to_contain_text("Imported 1 topic, 2 judgments")

    choose(page, book)
    expect(page.locator("#import-format")).to_have_text("an Excel workbook (.xlsx)")
    expect(page.locator("#import-counts").get_by_role("row", name="judgments 2", exact=True)).to_be_visible()
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_contain_text("Imported 1 topic, 2 judgments")

    assert sorted(Topic.objects.filter(campaign=campaign).values_list("external_id", flat=True)) == [
        "i1", "i2", "i3", "i4"
    ]  # fmt: skip
    assert payloads(campaign) == {
        ("w1", "i1"): {"matches": {"item": True}},
        ("w2", "i1"): {"matches": {"item": False}},
        ("w1", "i2"): {"matches": {"item": False}},
        ("w3", "i1"): {"matches": {"item": True}},
        ("w3", "i3"): {"matches": {"item": False}},
        ("w4", "i2"): {"matches": {"item": True}},
        ("w4", "i4"): {"matches": {"item": False}},
    }


def test_trec_topics_on_the_topics_form_point_to_the_trec_form(new_page, live_server, login, people, tmp_path):
    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="Robust", overlap=1)
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps({"topics": {"401": {"title": "foreign minorities"}}, "documents": {"d1": "x"}}))
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")
    form = page.locator("#upload-topics")
    form.get_by_label("Topics file").set_input_files(str(topics))
    form.get_by_role("button", name="Upload topics").click()
    expect(form.locator(".upload-error")).to_contain_text("use the form 'TREC run files' further down this page")
    assert not Topic.objects.filter(campaign=campaign).exists()


def test_a_file_imported_again_shows_its_conflicts_at_the_preview_then_skips_them(
    new_page, live_server, login, people, tmp_path
):
    """The second import of a file: the preview, not Import, says that 30 of its 90 judgments
    are already there; Import waits for a choice; Skip imports the other 60 and leaves the 30 as
    they were."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    first = tmp_path / "first.csv"
    first.write_text("worker,item,label\n" + "".join(f"w1,item{i:02d},yes\n" for i in range(30)))
    again = tmp_path / "again.csv"
    again.write_text(
        "worker,item,label\n"
        + "".join(f"w{w},item{i:02d},{'yes' if (w + i) % 2 else 'no'}\n" for w in (1, 2, 3) for i in range(30))
    )
    page = new_page()
    page.context.add_init_script(path=str(AXE))
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")
    choose(page, first)
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_contain_text("Imported 30 topics, 30 judgments")

    choose(page, again)
    counts = page.locator("#import-counts")
    expect(counts.get_by_role("row", name="judgments 60", exact=True)).to_be_visible()
    expect(counts.get_by_role("row", name="judgments already there 30", exact=True)).to_be_visible()
    expect(page.locator("#import-problems")).to_contain_text("w1's judgment of topic item00: submitted, version 1")
    skip = page.get_by_role("radio", name="Skip them")
    expect(page.locator("#import-resolve")).to_contain_text(
        "Skip them: 90 judgments of the file: 60 new, 30 already there — skipped."
    )
    assert serious_violations(page) == []  # the preview with its conflicts and choices
    assert Judgment.objects.filter(topic__campaign=campaign).count() == 30  # the preview wrote nothing

    page.get_by_role("button", name="Import").click()  # no choice yet: refused, the page as it was
    expect(page.locator("#import-error")).to_contain_text(
        "resolve: Import would refuse the 30 rows listed: choose to skip them or to replace"
    )
    assert Judgment.objects.filter(topic__campaign=campaign).count() == 30
    skip.check()
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_have_text(
        "Imported 0 topics, 60 judgments, 2 new imported assessors, skipped 30 judgments already there from again.csv."
    )
    stored = payloads(campaign)
    assert len(stored) == 90
    assert all(stored[("w1", f"item{i:02d}")] == {"matches": {"item": True}} for i in range(30))  # as they were
    assert stored[("w2", "item00")] == {"matches": {"item": False}}
    assert stored[("w3", "item00")] == {"matches": {"item": True}}
    assert set(Judgment.objects.filter(topic__campaign=campaign).values_list("version", flat=True)) == {1}


def test_the_columns_mapped_survive_an_error(new_page, live_server, login, people, tmp_path):
    """Columns mapped and a match value typed, then refused (alice is an account): the page
    shows them as they were; ticking the box beside them reads the file with no new upload."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    crowd = tmp_path / "crowd.csv"
    crowd.write_text("who,what,answer\nalice,i1,agree\nw2,i1,disagree\n")
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/uploads/")
    choose(page, crowd)
    for wanted, column in (("worker", "who"), ("item", "what"), ("label", "answer")):
        page.get_by_label(wanted, exact=True).select_option(column)
    page.get_by_label("Value meaning a match").fill("agree")
    page.get_by_role("button", name="Preview again").click()
    expect(page.locator("#import-error")).to_contain_text("worker 'alice' is an existing account")
    for wanted, column in (("worker", "who"), ("item", "what"), ("label", "answer")):
        expect(page.get_by_label(wanted, exact=True)).to_have_value(column)
    expect(page.get_by_label("Value meaning a match")).to_have_value("agree")
    page.get_by_label("Map the file's assessors onto this campaign's assessors").check()
    page.get_by_role("button", name="Preview again").click()
    expect(page.locator("#import-counts").get_by_role("row", name="judgments 2", exact=True)).to_be_visible()
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_contain_text("Imported 1 topic, 2 judgments")
    assert payloads(campaign) == {
        ("alice", "i1"): {"matches": {"item": True}},
        ("w2", "i1"): {"matches": {"item": False}},
    }
