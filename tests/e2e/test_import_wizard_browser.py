"""The import wizard in a browser, with the files a new organiser
really has: a PNG dropped by mistake, a crowd CSV whose label column is named
`answer` (mapped on the page), an Excel-style CSV (byte-order mark,
semicolons, CRLF), an .xlsx workbook, on a new campaign with no topics; and
TREC topics dropped on the generic Topics form. Each file is previewed (what
was detected, the counts, the first rows), confirmed, and read back from the
database."""

from __future__ import annotations

import codecs
import json

import pytest
from playwright.sync_api import expect

from annotate.models import Judgment, Topic
from annotate.services.campaigns import create_campaign
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
        "Imported 2 topics, 3 judgments, 2 new imported workers from crowd.csv."
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
