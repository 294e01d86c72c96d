"""Nugget pyramids in the browser: an assessor labels nuggets vital or okay
with the keyboard only and the organiser's pyramid follows without a reload;
an assessor marks which nuggets each (anonymous) response contains."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Judgment, JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Table 1 of the paper (target "AARP") and question 71.7 of TREC 2005 ("F16"),
# with the original assessor's label on some nuggets only.
QUESTIONS = [
    {
        "external_id": "q1",
        "title": "Question 1",
        "data": {
            "target": "AARP",
            "nuggets": [
                {"id": "n1", "text": "Largest seniors organization", "label": "vital"},
                {"id": "n2", "text": "Members must be 50 years or older", "label": "vital"},
                {"id": "n3", "text": "Most of its work done by volunteers", "label": "okay"},
                {"id": "n4", "text": "Spends heavily on research & education"},
                {"id": "n5", "text": "Receives millions for product endorsements", "label": "okay"},
            ],
        },
    },
    {
        "external_id": "q2",
        "title": "Question 2",
        "data": {
            "target": "F16",
            "nuggets": [
                {"id": "a", "text": "First F16s built in 1974", "label": "vital"},
                {"id": "b", "text": "Built by General Dynamics", "label": "okay"},
                {"id": "c", "text": "Single-engine fighter"},
                {"id": "d", "text": "Used by more than 20 air forces", "label": "okay"},
                {"id": "e", "text": "Nicknamed the Viper"},
            ],
        },
    },
]
BOB = {
    "q1": {"n1": "vital", "n2": "vital", "n3": "okay", "n4": "vital", "n5": "okay"},
    "q2": {"a": "vital", "b": "okay", "c": "vital", "d": "okay", "e": "okay"},
}
ALICE_Q1 = {"n1": "vital", "n2": "okay", "n3": "okay", "n4": "vital", "n5": "vital"}


def pyramid(*label_sets: dict[str, str]) -> dict[str, tuple[int, float]]:
    """Votes and weights by hand (section 4): vital votes over the question's maximum."""
    votes = {n: sum(labels[n] == "vital" for labels in label_sets) for n in label_sets[0]}
    top = max(votes.values())
    return {n: (v, v / top if top else 0.0) for n, v in votes.items()}


@pytest.fixture
def nuggets_campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="nuggets", name="Pyramids", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(campaign=campaign, topics=QUESTIONS)
    for topic in topics:
        save_judgment(
            topic=topic,
            assessor=people["bob"],
            payload={"labels": BOB[topic.external_id]},
            status="submitted",
            version=0,
        )
    return campaign


def expect_focused(page, nugget: str) -> None:
    expect(page.locator("#label-list .nugget.focused")).to_have_attribute("data-id", nugget)


def test_keyboard_labelling_updates_the_organisers_pyramid_live(new_page, live_server, login, people, nuggets_campaign):
    campaign = nuggets_campaign
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    organiser.evaluate("window.stillTheSamePage = true")

    alice = new_page()
    login(alice, "alice")
    alice.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/q1/judge/")
    expect(alice.locator("h1.target")).to_contain_text("AARP")
    expect(alice.locator("#label-progress")).to_have_text("0 of 5 nuggets labelled")  # the page script is ready
    submit = alice.get_by_role("button", name=re.compile("Submit"))
    expect(submit).to_be_disabled()
    # The original labels are not shown: a nugget with one looks like one without.
    rows = alice.locator("#label-list .nugget")
    assert rows.evaluate_all("rs => rs.map(r => r.className)") == ["nugget focused"] + ["nugget"] * 4
    expect(alice.locator('#label-list [aria-pressed="true"]')).to_have_count(0)
    expect(alice.locator("#matching")).to_be_hidden()  # labels only: no part 2

    alice.keyboard.press("v")  # n1 vital, on to n2
    expect(alice.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    alice.keyboard.press("v")  # n2 vital (corrected below), on to n3
    alice.keyboard.press("j")  # skip n3 for now
    expect_focused(alice, "n4")
    alice.keyboard.press("v")  # n4 vital, on to n5
    alice.keyboard.press("v")  # n5 vital; the next unlabelled nugget is n3, back up the list
    expect_focused(alice, "n3")
    expect(alice.locator("#label-progress")).to_have_text("4 of 5 nuggets labelled")
    expect(submit).to_be_disabled()
    alice.keyboard.press("o")  # n3 okay: all labelled
    expect(alice.locator("#label-progress")).to_have_text("5 of 5 nuggets labelled")
    alice.keyboard.press("k")
    alice.keyboard.press("k")
    alice.keyboard.press("ArrowDown")
    alice.keyboard.press("ArrowUp")
    expect_focused(alice, "n2")
    alice.keyboard.press("o")  # correction: n2 okay
    expect(alice.locator('.nugget[data-id="n2"] .okay')).to_have_attribute("aria-pressed", "true")
    expect(alice.locator('.nugget[data-id="n2"] .vital')).to_have_attribute("aria-pressed", "false")
    expect(alice.locator("#remaining")).to_have_text("Everything is done: press Enter to submit.")
    expect(submit).to_be_enabled()
    alice.keyboard.press("Enter")  # asks first, with a summary
    expect(alice.locator("#confirm-summary")).to_have_text("5 nuggets labelled (3 vital, 2 okay).")
    alice.keyboard.press("Enter")
    alice.wait_for_url(re.compile(r"/topics/q2/judge/$"))
    expect(alice.locator("h1.target")).to_contain_text("F16")
    expect(alice.locator("#label-progress")).to_have_text("0 of 5 nuggets labelled")

    q1 = campaign.topics.get(external_id="q1")
    judgment = Judgment.objects.get(topic=q1, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {"labels": ALICE_Q1, "matches": {}}
    # The page saved drafts before the submission (version 1 on), and the submission
    # took the drafts' revision over (docs/api.md, "What the history keeps").
    assert judgment.version >= 2
    newest = JudgmentRevision.objects.filter(judgment=judgment).latest("pk")
    assert (newest.status, newest.payload) == ("submitted", judgment.payload)

    # The pyramid of q1 from alice's and bob's labels: the original labels join the pyramid only
    # when every nugget of every question has one (they do not here, see QUESTIONS).
    # votes n1 2, n2 1, n3 0, n4 2, n5 1 -> weights 1, .5, 0, 1, .5.
    expected = pyramid(ALICE_Q1, BOB["q1"])
    assert expected == {"n1": (2, 1.0), "n2": (1, 0.5), "n3": (0, 0.0), "n4": (2, 1.0), "n5": (1, 0.5)}
    table = organiser.locator('table.pyramid[data-topic="q1"]')
    for nugget, (votes, weight) in expected.items():
        row = table.locator(f'tr[data-nugget="{nugget}"]')
        expect(row.locator("td.votes")).to_have_text(str(votes), timeout=15_000)
        expect(row.locator("td.weight")).to_have_text(f"{weight:.3f}", timeout=15_000)
    assert organiser.evaluate("window.stillTheSamePage") is True


def test_labelling_with_the_mouse(new_page, live_server, login, people, nuggets_campaign):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{nuggets_campaign.pk}/topics/q2/judge/")
    expect(page.locator("#label-progress")).to_have_text("0 of 5 nuggets labelled")
    submit = page.get_by_role("button", name=re.compile("Submit"))
    rows = page.locator("#label-list .nugget")
    for index, value in enumerate(["Vital", "Okay", "Okay", "Vital"]):
        rows.nth(index).get_by_role("button", name=re.compile(f"^{value}")).click()
    expect(page.locator("#label-progress")).to_have_text("4 of 5 nuggets labelled")
    expect(submit).to_be_disabled()
    rows.nth(4).get_by_role("button", name=re.compile("^Okay")).click()
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.locator("#confirm-summary")).to_have_text("5 nuggets labelled (2 vital, 3 okay).")
    page.locator("#confirm-dialog").get_by_role("button", name="Submit").click()
    page.wait_for_url(lambda url: "/topics/q2/" not in url)
    judgment = Judgment.objects.get(topic__external_id="q2", topic__campaign=nuggets_campaign, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {
        "labels": {"a": "vital", "b": "okay", "c": "okay", "d": "vital", "e": "okay"},
        "matches": {},
    }


MATCHING = {
    "external_id": "m1",
    "title": "Matching",
    "data": {
        "target": "AARP",
        "nuggets": [{"id": n["id"], "text": n["text"]} for n in QUESTIONS[0]["data"]["nuggets"]],
        "responses": [
            {
                "id": "r1",
                "run": "runAlpha",
                "text": "AARP, the largest organisation of seniors, is run mostly by volunteers.",
            },
            {"id": "r2", "run": "runBeta", "text": "The association was founded in 1958."},
            {
                "id": "r3",
                "run": "runGamma",
                "text": "Anyone aged 50 or older may join.\nIt earns millions from endorsing products.",
            },
        ],
    },
}


@pytest.fixture
def matching_campaign(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="nuggets", name="Matching", overlap=2, params={"tasks": ["matches"]}
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[MATCHING])
    return campaign


def expect_checked(page, nuggets: list[str]) -> None:
    for nugget in (n["id"] for n in MATCHING["data"]["nuggets"]):
        box = page.locator(f'#match-list [data-id="{nugget}"]')
        expect(box).to_have_attribute("aria-checked", "true" if nugget in nuggets else "false")


def test_matching_nuggets_in_responses_with_the_keyboard(new_page, live_server, login, people, matching_campaign):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{matching_campaign.pk}/topics/m1/judge/")
    expect(page.locator("#match-progress")).to_have_text("0 of 3 responses done")  # the page script is ready
    expect(page.locator("#labelling")).to_be_hidden()  # matches only: no labelling part
    expect(page.locator("main")).not_to_contain_text(re.compile("runAlpha|runBeta|runGamma"))  # blind: no run names
    expect(page.locator("#response-heading")).to_have_text("Response 1 of 3")
    expect(page.locator(".response:visible")).to_contain_text("largest organisation of seniors")
    submit = page.get_by_role("button", name=re.compile("Submit"))
    expect(submit).to_be_disabled()

    # Response 1: n1 and n3, with a tick taken back on the way.
    page.keyboard.press("x")  # n1
    page.keyboard.press("j")
    page.keyboard.press("Space")  # n2 ...
    page.keyboard.press("Space")  # ... no
    page.keyboard.press("j")
    page.keyboard.press("x")  # n3
    expect_checked(page, ["n1", "n3"])
    page.keyboard.press("d")  # done: on to response 2
    expect(page.locator("#response-heading")).to_have_text("Response 2 of 3")
    expect(page.locator("#match-progress")).to_have_text("1 of 3 responses done")
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    expect_checked(page, [])

    # Response 2 contains none of the nuggets: done with nothing ticked.
    page.keyboard.press("d")
    expect(page.locator("#response-heading")).to_have_text("Response 3 of 3")

    # Response 3: n5 then n2 (stored in nugget order).
    for key in ("j", "j", "j", "j", "x", "k", "k", "k", "x"):
        page.keyboard.press(key)
    expect_checked(page, ["n2", "n5"])
    expect(submit).to_be_disabled()  # response 3 is not done yet
    # Back to response 1 and forth, with [ ] and PageUp/PageDown: response 1 keeps its ticks.
    page.keyboard.press("[")
    page.keyboard.press("PageUp")
    expect(page.locator("#response-heading")).to_have_text("Response 1 of 3")
    expect_checked(page, ["n1", "n3"])
    page.keyboard.press("]")
    page.keyboard.press("PageDown")
    expect(page.locator("#response-heading")).to_have_text("Response 3 of 3")
    expect_checked(page, ["n2", "n5"])
    page.keyboard.press("d")
    expect(page.locator("#match-progress")).to_have_text("3 of 3 responses done")
    expect(submit).to_be_enabled()
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-summary")).to_have_text("3 of 3 responses done (4 nuggets found in them).")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/topics/m1/" not in url)

    judgment = Judgment.objects.get(topic__campaign=matching_campaign, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {"labels": {}, "matches": {"r1": ["n1", "n3"], "r2": [], "r3": ["n2", "n5"]}}


def test_both_tasks_labels_first_then_matches(new_page, live_server, login, people):
    campaign = create_campaign(
        creator=people["organiser"], kind="nuggets", name="Both", overlap=1, params={"tasks": ["labels", "matches"]}
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(campaign=campaign, topics=[MATCHING])
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/m1/judge/")
    expect(page.locator("#label-progress")).to_have_text("0 of 5 nuggets labelled")
    page.keyboard.press("m")  # part 2 waits until every nugget is labelled (snap judgments come first)
    expect(page.locator("#matching-locked")).to_be_visible()
    expect(page.locator(".response:visible")).to_have_count(0)
    page.keyboard.press("l")
    for key in "vovoo":
        page.keyboard.press(key)
    expect(page.locator("#match-progress")).to_have_text("0 of 3 responses done")  # on to part 2 by itself
    expect(page.locator(".response:visible")).to_contain_text("largest organisation of seniors")
    for key in ("x", "d", "d", "j", "x", "d"):
        page.keyboard.press(key)
    expect(page.locator("#remaining")).to_have_text("Everything is done: press Enter to submit.")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-summary")).to_have_text(
        "5 nuggets labelled (2 vital, 3 okay); 3 of 3 responses done (2 nuggets found in them)."
    )
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/topics/m1/" not in url)
    judgment = Judgment.objects.get(topic__campaign=campaign, assessor=people["alice"])
    assert judgment.payload == {
        "labels": {"n1": "vital", "n2": "okay", "n3": "vital", "n4": "okay", "n5": "okay"},
        "matches": {"r1": ["n1"], "r2": [], "r3": ["n2"]},
    }
