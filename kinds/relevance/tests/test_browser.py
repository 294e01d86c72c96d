"""An assessor grades documents with the keyboard only: number keys, j/k, Enter."""

from __future__ import annotations

import copy
import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Judgment, JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from kinds.relevance.examples import TOPIC

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def trec(people):
    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="TREC", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": "t1", "title": "reefs", "data": copy.deepcopy(TOPIC)},
            {"external_id": "t2", "title": "more reefs", "data": copy.deepcopy(TOPIC)},
        ],
    )
    return campaign


def test_keyboard_grading_one_document_at_a_time(new_page, live_server, login, people, trec):
    page = new_page()
    login(page, "alice")
    page.get_by_role("link", name="Next topic").click()
    expect(page.locator("h1.query")).to_contain_text("coral reef bleaching")
    expect(page.locator(".relevance-narrative")).to_contain_text("Relevant documents name a cause")
    expect(page.locator("#remaining")).to_contain_text("4 of 4 documents left")  # the page script is ready
    expect(page.locator(".keys")).to_contain_text("highly relevant")
    # One document at a time, and never the systems that retrieved it.
    expect(page.locator(".relevance-doc:visible")).to_have_count(1)
    expect(page.locator("#doc-position")).to_have_text("Document 1 of 4")
    assert "bm25" not in page.content()

    page.keyboard.press("3")  # d1 highly relevant, moves to d2
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    expect(page.locator("#doc-position")).to_have_text("Document 2 of 4")
    page.keyboard.press("1")  # d2 related
    page.keyboard.press("k")  # back to d2
    expect(page.locator(".relevance-grade[data-grade='1']")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("2")  # d2 becomes relevant, moves to d3
    page.keyboard.press("7")  # not on the scale: nothing happens
    expect(page.locator("#doc-position")).to_have_text("Document 3 of 4")
    page.keyboard.press("0")  # d3
    expect(page.locator("#submit-judgment")).to_be_disabled()
    page.keyboard.press("Enter")  # not every document graded: no submit, but why
    expect(page.locator("#key-notice")).to_have_text("3 of 4 documents graded: grade the other 1 first.")
    expect(page.locator("#confirm-dialog")).to_have_count(0)
    page.keyboard.press("j")  # stays on the last document
    page.keyboard.press("2")  # d4
    expect(page.locator("#remaining")).to_contain_text("Every document is graded")
    first = page.url
    page.keyboard.press("Enter")  # asks first, with a summary
    expect(page.locator("#confirm-summary")).to_have_text(
        "4 of 4 documents graded: 1 non-relevant, 0 related, 2 relevant, 1 highly relevant."
    )
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first and not re.search(r"/topics/t1/", url))

    judgment = Judgment.objects.get(topic__external_id="t1", assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {"grades": {"d1": 3, "d2": 2, "d3": 0, "d4": 2}}
    # The page saved drafts before the submission (version 1 on), and the submission
    # took the drafts' revision over (docs/api.md, "What the history keeps").
    assert judgment.version >= 2
    newest = JudgmentRevision.objects.filter(judgment=judgment).latest("pk")
    assert (newest.status, newest.payload) == ("submitted", judgment.payload)


def test_mouse_grading_and_the_document_strip(new_page, live_server, login, people, trec):
    page = new_page()
    login(page, "alice")
    page.get_by_role("link", name="Next topic").click()
    expect(page.locator("#remaining")).to_contain_text("4 of 4 documents left")
    page.locator(".relevance-dot").nth(2).click()
    expect(page.locator("#doc-position")).to_have_text("Document 3 of 4")
    page.get_by_role("button", name=re.compile("non-relevant")).click()
    expect(page.locator("#remaining")).to_contain_text("3 of 4 documents left")
    expect(page.locator(".relevance-dot").nth(2)).to_have_class(re.compile("is-graded"))
