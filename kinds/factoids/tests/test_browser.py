"""Factoid analysis in the browser: an annotator defines factoids, splits one
into finer ones, marks summary sentences with the keyboard only and submits;
in Phase 2 the page lists the discrepancies with the other annotator (and
nothing else of theirs) and leads to the sentences concerned."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotate import views
from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The Kuwait example of section 3.2, cut down: three model summaries and one
# machine summary, listed out of order (the page shows the models first).
SUMMARIES = [
    {
        "id": "M01",
        "author": "annotator-a",
        "sentences": [
            {"id": "m1s1", "text": "Iraqi troops invaded Kuwait on Thursday."},
            {
                "id": "m1s2",
                "text": "Saddam Hussein said that they will leave the country when the situation stabilizes.",
            },
        ],
    },
    {
        "id": "S17",
        "run": "system-17",
        "sentences": [
            {"id": "x1", "text": "Kuwait was invaded by Iraq."},
            {"id": "x2", "text": "Oil prices went up."},
        ],
    },
    {
        "id": "M06",
        "author": "annotator-f",
        "sentences": [
            {"id": "m6s1", "text": "Iraq invaded its neighbour Kuwait."},
            {"id": "m6s2", "text": "Iraq claims it would withdraw soon."},
            {"id": "m6s3", "text": "Oil prices rose sharply."},
        ],
    },
    {
        "id": "M09",
        "author": "annotator-i",
        "sentences": [
            {"id": "m9s1", "text": "Saddam Hussein's army overran Kuwait."},
            {"id": "m9s2", "text": "Iraq will pull out once things are stable."},
        ],
    },
]
TOPIC = {
    "external_id": "kuwait",
    "title": "Invasion of Kuwait",
    "data": {"text": "Iraq invaded Kuwait on 2 August 1990.", "summaries": SUMMARIES},
}
PAGE_ORDER = ["m1s1", "m1s2", "m6s1", "m6s2", "m6s3", "m9s1", "m9s2", "x1", "x2"]

# Bob's inventory: its ids and texts must never reach Alice's page.
BOB = {
    "factoids": [
        {"id": "bobs-P30", "text": "BOBTEXT Saddam H/Iraq will leave the country soon/when situation stabilises"},
        {"id": "bobs-P31", "text": "BOBTEXT Iraq invaded Kuwait"},
    ],
    "marks": {"m1s1": ["bobs-P31"], "m1s2": ["bobs-P30"], "m6s2": ["bobs-P30"], "m9s2": ["bobs-P30"]},
}
ALICE_PHASE1 = {
    "factoids": [
        {"id": "F1", "text": "Iraq invaded Kuwait"},
        {"id": "F2", "text": "Iraq will withdraw soon / when the situation stabilises"},
        {"id": "F3", "text": "Oil prices rose"},
    ],
    "marks": {"m1s1": ["F1"], "m1s2": ["F2"], "m6s3": ["F3"]},
}


@pytest.fixture
def factoids_campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="Kuwait factoids", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[TOPIC])
    return campaign


def open_page(new_page, login, live_server, campaign):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/kuwait/judge/")
    expect(page.locator("#factoids")).to_have_attribute("data-ready", "true")  # the script has rendered
    return page


def focused(page) -> str:
    return page.locator(".factoid-sentence.focused").get_attribute("data-id")


def chips(page, sentence: str) -> list[str]:
    return page.locator(f'.factoid-sentence[data-id="{sentence}"] .chip').all_text_contents()


def inventory(page) -> list[str]:
    return page.locator("#factoid-list .factoid-id").all_text_contents()


def test_define_split_and_mark_with_the_keyboard_then_submit(new_page, live_server, login, people, factoids_campaign):
    page = open_page(new_page, login, live_server, factoids_campaign)
    assert page.locator(".factoid-sentence").evaluate_all("els => els.map(e => e.dataset.id)") == PAGE_ORDER
    assert page.locator(".summary-title").all_text_contents() == [
        "M01 reference summary",
        "M06 reference summary",
        "M09 reference summary",
        "S17 machine summary",
    ]
    expect(page.get_by_text("system-17")).to_have_count(0)  # run and author names stay hidden
    expect(page.get_by_role("button", name="Submit")).to_be_disabled()  # no factoid yet
    assert focused(page) == "m1s1"
    dialog = page.locator("#factoid-dialog")

    # F1, marked on the focused sentence as it is defined.
    page.keyboard.press("n")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".part-id")).to_have_value("F1")
    page.keyboard.type("Iraq invaded Kuwait")
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    assert chips(page, "m1s1") == ["F1"]

    # F2 on the next sentence; a duplicate id is refused inline as it is typed.
    page.keyboard.press("j")
    page.keyboard.press("n")
    expect(dialog.locator(".part-id")).to_have_value("F2")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Control+a")
    page.keyboard.type("F1")
    expect(page.locator("#dialog-error")).to_have_text("F1 is already taken: ids must be unique.")
    page.keyboard.press("Enter")  # refused: the dialog stays
    expect(dialog).to_be_visible()
    page.keyboard.press("Control+a")
    page.keyboard.type("F2")
    expect(page.locator("#dialog-error")).to_have_text("")
    page.keyboard.press("Tab")
    page.keyboard.type("Iraq will withdraw soon / when the situation stabilises")
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    assert inventory(page) == ["F1", "F2"]
    assert (focused(page), chips(page, "m1s2")) == ("m1s2", ["F2"])
    expect(page.locator("#save-status")).to_contain_text("Draft saved")

    # A later summary holds only part of F2: split it (s, then its number).
    page.keyboard.press("s")
    expect(page.locator("#pick-prompt")).to_contain_text("Split which factoid?")
    page.keyboard.press("2")
    expect(dialog.locator(".dialog-part")).to_have_count(2)
    assert dialog.locator(".part-id").evaluate_all("els => els.map(e => e.value)") == ["F2.1", "F2.2"]
    page.keyboard.type("Iraq will withdraw when the situation stabilises")  # replaces the selected old text
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+a")
    page.keyboard.type("Iraq will withdraw soon")
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    assert inventory(page) == ["F1", "F2.1", "F2.2"]
    assert chips(page, "m1s2") == ["F2.1", "F2.2"]  # every sentence that had F2 gets both parts

    # m1s2 says "when the situation stabilizes", not "soon": take F2.2 off (its number).
    page.keyboard.press("3")
    assert chips(page, "m1s2") == ["F2.1"]

    # Marking with numbers and with the search box, across the summaries.
    page.keyboard.press("j")
    page.keyboard.press("1")
    assert (focused(page), chips(page, "m6s1")) == ("m6s1", ["F1"])
    page.keyboard.press("ArrowDown")
    page.keyboard.press("/")
    page.keyboard.type("soon")
    expect(page.locator("#factoid-list .factoid-id")).to_have_text(["F2.2"])
    page.keyboard.press("Enter")  # toggles the first match, back on the sentences
    assert (focused(page), chips(page, "m6s2")) == ("m6s2", ["F2.2"])
    assert inventory(page) == ["F1", "F2.1", "F2.2"]  # the filter is cleared
    for key in ("j", "j"):
        page.keyboard.press(key)
    page.keyboard.press("/")
    page.keyboard.type("f1")
    page.keyboard.press("Enter")
    assert chips(page, "m9s1") == ["F1"]
    page.keyboard.press("j")
    page.keyboard.press("/")
    page.keyboard.type("stabil")
    page.keyboard.press("Escape")  # back to the sentences; the filter stays, the numbers do not change
    assert focused(page) == "m9s2"
    expect(page.locator("#factoid-list .factoid-id")).to_have_text(["F2.1"])
    expect(page.locator("#factoid-list .factoid-number")).to_have_text(["2"])
    page.keyboard.press("2")
    assert chips(page, "m9s2") == ["F2.1"]
    assert inventory(page) == ["F1", "F2.1", "F2.2"]  # a mark clears the filter
    page.keyboard.press("j")
    page.keyboard.press("1")
    page.keyboard.press("3")
    page.keyboard.press("3")  # on and off again
    assert (focused(page), chips(page, "x1")) == ("x1", ["F1"])
    expect(page.locator("#factoid-list .factoid.on .factoid-id")).to_have_text(["F1"])
    expect(page.locator("#factoid-list .factoid-uses")).to_have_text(["4", "2", "1"])

    page.keyboard.press("Enter")  # asks first, with a summary
    expect(page.locator("#confirm-summary")).to_have_text("3 factoids, marked on 7 of 9 sentences.")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{factoids_campaign.pk}/")
    judgment = Judgment.objects.get(topic__campaign=factoids_campaign, assessor=people["alice"])
    assert judgment.status == "submitted"
    assert judgment.payload == {
        "factoids": [
            {"id": "F1", "text": "Iraq invaded Kuwait"},
            {"id": "F2.1", "text": "Iraq will withdraw when the situation stabilises"},
            {"id": "F2.2", "text": "Iraq will withdraw soon"},
        ],
        "marks": {
            "m1s1": ["F1"],
            "m1s2": ["F2.1"],
            "x1": ["F1"],
            "m6s1": ["F1"],
            "m6s2": ["F2.2"],
            "m9s1": ["F1"],
            "m9s2": ["F2.1"],
        },
    }


def test_merge_edit_and_delete_with_the_mouse(new_page, live_server, login, people, factoids_campaign):
    topic = factoids_campaign.topics.get()
    save_judgment(topic=topic, assessor=people["alice"], payload=ALICE_PHASE1, status="draft", version=0)
    page = open_page(new_page, login, live_server, factoids_campaign)
    assert inventory(page) == ["F1", "F2", "F3"]
    dialog = page.locator("#factoid-dialog")

    # Merge F3 into F1: F3's marks move to F1, the texts are joined (and editable).
    page.get_by_role("button", name="Actions for F1").click()
    page.get_by_role("menuitem", name="Merge").click()
    expect(page.locator("#pick-prompt")).to_contain_text("Merge which factoid into F1?")
    page.locator('#factoid-list .factoid[data-id="F3"] .factoid-toggle').click()
    expect(dialog.locator(".part-text")).to_have_value("Iraq invaded Kuwait; Oil prices rose")
    dialog.locator(".part-text").fill("Iraq invaded Kuwait, oil prices rose")
    dialog.get_by_role("button", name="Merge").click()
    assert inventory(page) == ["F1", "F2"]
    assert chips(page, "m6s3") == ["F1"]

    # Clicking a factoid toggles it on the focused sentence.
    page.locator('.factoid-sentence[data-id="x2"]').click()
    page.locator('#factoid-list .factoid[data-id="F1"] .factoid-toggle').click()
    assert chips(page, "x2") == ["F1"]

    page.get_by_role("button", name="Actions for F2").click()
    page.get_by_role("menuitem", name="Edit").click()
    dialog.locator(".part-id").fill("F9")
    dialog.get_by_role("button", name="Save").click()
    assert chips(page, "m1s2") == ["F9"]

    page.get_by_role("button", name="Actions for F9").click()
    page.get_by_role("menuitem", name="Delete").click()
    expect(dialog).to_contain_text("and its marks on 1 sentence are deleted")
    dialog.get_by_role("button", name="Cancel").click()
    assert inventory(page) == ["F1", "F9"]
    page.get_by_role("button", name="Actions for F9").click()
    page.get_by_role("menuitem", name="Delete").click()
    dialog.get_by_role("button", name="Delete").click()
    assert inventory(page) == ["F1"]
    assert chips(page, "m1s2") == []

    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#confirm-summary")).to_have_text("1 factoid, marked on 3 of 9 sentences.")
    page.locator("#confirm-dialog").get_by_role("button", name="Submit").click()
    page.wait_for_url(f"{live_server.url}/campaigns/{factoids_campaign.pk}/")
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    assert (judgment.status, judgment.payload) == (
        "submitted",
        {
            "factoids": [{"id": "F1", "text": "Iraq invaded Kuwait, oil prices rose"}],
            "marks": {"m1s1": ["F1"], "x2": ["F1"], "m6s3": ["F1"]},
        },
    )


def with_context(monkeypatch, **extra):
    """Render the factoids page with extra context, as the Phase 2 view and
    the consensus editor will (the live server runs in this process)."""
    render = views.render

    def rendering(request, template, context=None, *args, **kwargs):
        if template == "factoids/judge.html":
            context = {**(context or {}), **extra}
        return render(request, template, context, *args, **kwargs)

    monkeypatch.setattr(views, "render", rendering)


def test_phase_2_lists_the_discrepancies_and_nothing_else_of_the_other_annotator(
    new_page, live_server, login, people, factoids_campaign, monkeypatch
):
    topic = factoids_campaign.topics.get()
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["alice"], payload=ALICE_PHASE1, status="submitted", version=0)
    factoids_campaign.params = {"phase": 2, "phase2_started_at": timezone.now().isoformat()}
    factoids_campaign.save()

    # The panel, given a discrepancy list in the context.
    discrepancies = [
        {
            "sentence": "m6s2",
            "factoid": "F2",
            "kind": "other-only",
            "message": "The other annotator marked something here that corresponds to your F2.",
        },
        {
            "sentence": "m6s3",
            "factoid": "F3",
            "kind": "you-only",
            "message": "You marked F3 here; the other annotator marked nothing corresponding.",
        },
    ]
    with_context(monkeypatch, phase=2, discrepancies=discrepancies)
    page = open_page(new_page, login, live_server, factoids_campaign)
    # A submitted judgment is read-only: correcting it starts with "Reopen to edit".
    page.get_by_role("button", name="Reopen to edit").click()
    expect(page.locator("#judgment-state-line")).to_contain_text("Editing a draft on top of submitted version 1")
    expect(page.locator("#factoids")).to_have_attribute("data-ready", "true")
    expect(page.locator("#phase")).to_have_text("Phase 2: correct slips")
    panel = page.locator("#discrepancies-panel")
    expect(panel.locator("h2")).to_contain_text("Discrepancies with the other annotator(s)")
    items = panel.locator(".discrepancy")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("M06.2")
    expect(items.nth(0)).to_contain_text("corresponds to your F2")
    expect(page.locator("#discrepancy-count")).to_have_text("(2 of 2 open)")
    expect(page.locator(".factoid-sentence.has-discrepancy")).to_have_count(2)

    items.nth(1).click()
    assert focused(page) == "m6s3"
    page.keyboard.press("g")  # the next one, wrapping round
    assert focused(page) == "m6s2"
    page.keyboard.press("2")  # a slip: F2 was missing here
    assert chips(page, "m6s2") == ["F2"]
    expect(items.nth(0)).to_have_class("discrepancy addressed current")
    expect(page.locator("#discrepancy-count")).to_have_text("(1 of 2 open)")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-summary")).to_have_text("3 factoids, marked on 4 of 9 sentences.")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{factoids_campaign.pk}/")
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    assert judgment.payload["marks"]["m6s2"] == ["F2"]

    # The view itself: in Phase 2 it computes the list from the submitted judgments.
    monkeypatch.undo()
    page.goto(f"{live_server.url}/campaigns/{factoids_campaign.pk}/topics/kuwait/judge/")
    expect(page.locator("#factoids")).to_have_attribute("data-ready", "true")
    html = page.content()
    assert "BOBTEXT" not in html and "bobs-P3" not in html  # blind: nothing of Bob's inventory
    expect(page.locator("#phase")).to_have_text("Phase 2: correct slips")
    shown = page.locator(".discrepancy").evaluate_all(
        "els => els.map(e => [e.dataset.sentence, e.dataset.kind, e.dataset.factoid || null])"
    )
    # Bob's P30 (m1s2, m6s2, m9s2) corresponds to Alice's F2 (now m1s2, m6s2):
    # he marked it on m9s2, she did not.
    assert ["m9s2", "other-only", "F2"] in shown
    assert all(kind in ("you-only", "other-only") for _, kind, _ in shown)


def test_the_consensus_editor_reuses_the_page_without_the_phase_2_panel(
    new_page, live_server, login, people, factoids_campaign, monkeypatch
):
    topic = factoids_campaign.topics.get()
    save_judgment(topic=topic, assessor=people["alice"], payload=ALICE_PHASE1, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    factoids_campaign.params = {"phase": 2, "phase2_started_at": timezone.now().isoformat()}
    factoids_campaign.save()
    # Even if a discrepancy list reached the consensus editor, it is not shown.
    with_context(
        monkeypatch, discrepancies=[{"sentence": "m1s1", "factoid": None, "kind": "other-only", "message": "x"}]
    )
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/{factoids_campaign.pk}/topics/kuwait/consensus/?from=alice")
    expect(page.locator("#factoids")).to_have_attribute("data-ready", "true")
    expect(page.locator("#discrepancies-panel")).to_have_count(0)
    expect(page.locator("#discrepancies")).to_have_count(0)
    expect(page.locator(".phase-badge")).to_have_text("Consensus inventory and marking")
    expect(page.locator("#inventory h2")).to_contain_text("Consensus factoids")
    expect(page.locator("#prefill option")).to_have_text(["alice's annotation", "bob's annotation"])
    assert inventory(page) == ["F1", "F2", "F3"]  # started from Alice's annotation

    # Otherwise the same page: F2 goes on M06.2 too, then submit.
    for key in ("j", "j", "j", "2", "Enter", "Enter"):
        page.keyboard.press(key)
    page.wait_for_url(f"{live_server.url}/campaigns/{factoids_campaign.pk}/")
    assert topic.curations.get(name="consensus").data == {
        **ALICE_PHASE1,
        "marks": {**ALICE_PHASE1["marks"], "m6s2": ["F2"]},
    }
