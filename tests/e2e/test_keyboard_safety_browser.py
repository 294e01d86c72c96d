"""Judging that cannot go wrong by accident, on every kind's page: Enter
submits only through a confirm step that shows what is submitted; an
untouched starting state asks twice; keys do nothing while a dialog or a
text field has the focus; Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y) undo and redo; the
key help is written from the key table the page uses. Plus the three
defects found in Chromium (clustering focus, factoids search, ordering's
shuffled start)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.base import assessor_seed
from kinds.preference.data import sides
from kinds.registry import KINDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ALL_KINDS = ["labels", "pairs", "ordering", "clustering", "nuggets", "factoids", "relevance", "preference"]

# What the confirm step says about each kind's first example payload (kinds/<kind>/examples.py).
SUMMARIES = {
    "labels": "4 of 4 items labelled: 1 positive, 1 negative, 2 neutral.",
    "pairs": "4 of 4 candidates judged: 3 matches, 1 no match.",
    "ordering": "3 items in your order: first “Boil water”, last “Pour”.",
    "clustering": "2 clusters, 0 sentences left out, 0 rule warnings.",
    "nuggets": "2 nuggets labelled (2 vital, 0 okay); 2 of 2 responses done (2 nuggets found in them).",
    "factoids": "2 factoids, marked on 2 of 3 sentences.",
    "relevance": "4 of 4 documents graded: 1 non-relevant, 1 related, 1 relevant, 1 highly relevant.",
    "preference": "3 of 3 pairs judged: 1 A better, 1 tie, 1 B better.",
}
# The first example payload as the page sends it (factoids leaves out sentences with no marks).
AS_SENT = {
    "factoids": {
        "factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}, {"id": "F2", "text": "Oil rose"}],
        "marks": {"m1s1": ["F1"], "m1s2": ["F2"]},
    },
}
# One edit by key on the page opened with that payload, and the payload it makes.
EDITS = {
    "labels": (["1"], {"labels": {"i1": "negative", "i2": "negative", "i3": "neutral", "i4": "neutral"}}),
    "pairs": (["n"], {"matches": {"c1": False, "c2": True, "c3": False, "c4": True}}),
    "ordering": ([" ", "j", " "], {"order": ["b", "a", "c"]}),
    "clustering": (["x"], {"clusters": [["s3"], ["s2", "s4"]], "descriptions": ["eruption", "effects"]}),
    "nuggets": (["o"], {"labels": {"n1": "okay", "n2": "vital"}, "matches": {"r1": ["n1"], "r2": ["n2"]}}),
    "factoids": (
        ["2"],
        {
            "factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}, {"id": "F2", "text": "Oil rose"}],
            "marks": {"m1s1": ["F1", "F2"], "m1s2": ["F2"]},
        },
    ),
    "relevance": (["0"], {"grades": {"d1": 0, "d2": 1, "d3": 0, "d4": 2}}),
    # the first pair becomes a tie (the sides alice was shown are filled in: as_stored)
    "preference": (
        ["ArrowDown"],
        {
            "verdicts": [
                {"pair": "1-2", "choice": "tie"},
                {"pair": "1-3", "choice": "tie"},
                {"pair": "2-3", "choice": "right"},
            ]
        },
    ),
}
# Enter on a page never saved: why nothing can be submitted yet, and where the page says it.
NOT_READY = {
    "labels": ("#key-notice", "0 of 4 items labelled: label the other 4 first."),
    "pairs": ("#key-notice", "0 of 4 candidates judged: judge the other 4 first."),
    "clustering": ("#cluster-status", "Submit needs at least one cluster with sentences in it."),
    "nuggets": ("#key-notice", "Still to do: 2 nuggets to label, 2 responses to mark done."),
    "factoids": ("#factoid-status", "A submission needs at least one factoid: press n to define one."),
    "relevance": ("#key-notice", "0 of 4 documents graded: grade the other 4 first."),
    "preference": ("#key-notice", "0 of 3 pairs judged: judge the other 3 first."),
}
# Every editing key of every kind: none of them may do anything while a dialog or text field has the focus.
STRAY_KEYS = [
    "j",
    "k",
    "y",
    "n",
    "v",
    "o",
    "x",
    "c",
    "e",
    "d",
    "s",
    "m",
    "g",
    "0",
    "1",
    "2",
    "3",
    "[",
    "]",
    "ArrowDown",
]


def as_stored(kind: str, payload, people):
    """A payload as alice's save stores it: a preference verdict records the sides she was
    shown on topic t1 (kinds.preference.data.sides), which the server fills in."""
    if kind != "preference":
        return payload
    seed = assessor_seed(people["alice"].pk, "t1")
    verdicts = []
    for verdict in payload["verdicts"]:
        left, right = sides(seed, verdict["pair"])
        verdicts.append({**verdict, "left": left, "right": right})
    return {"verdicts": verdicts}


def test_every_kind_is_covered():
    assert sorted(KINDS) == sorted(ALL_KINDS)


def example_campaign(people, kind: str):
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"Safe {kind}", overlap=1, params=dict(examples.params) or None
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "title": "Example", "data": examples.topic}])
    return campaign


def open_page(new_page, login, live_server, campaign):
    page = new_page()
    login(page, "alice")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/t1/judge/")
    expect(page.locator("#key-help dt").first).to_be_visible()  # the page's script is ready
    return page


def draft_of(people, campaign, payload) -> None:
    topic = campaign.topics.get()
    save_judgment(topic=topic, assessor=people["alice"], payload=payload, status="draft", version=0)


def judgment_of(people, campaign) -> Judgment | None:
    return Judgment.objects.filter(topic__campaign=campaign, assessor=people["alice"]).first()


def wait_for_saved(page, people, campaign, payload) -> None:
    """The autosave is asynchronous: wait (a bounded number of polls) for the draft to land."""
    for _ in range(100):
        judgment = judgment_of(people, campaign)
        if judgment is not None and judgment.payload == payload:
            return
        page.wait_for_timeout(100)
    assert judgment_of(people, campaign).payload == payload


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_enter_confirms_with_a_summary_escape_cancels(new_page, live_server, login, people, kind):
    campaign = example_campaign(people, kind)
    draft_of(people, campaign, KINDS[kind].examples.payloads[0])
    page = open_page(new_page, login, live_server, campaign)
    dialog = page.locator("#confirm-dialog")
    page.evaluate("window.focusedBefore = document.activeElement")

    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    expect(page.locator("#confirm-title")).to_have_text("Submit this judgment?")
    expect(page.locator("#confirm-summary")).to_have_text(SUMMARIES[kind])
    expect(page.locator("#confirm-ok")).to_be_focused()
    expect(dialog).to_have_attribute("aria-labelledby", "confirm-title")

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("document.activeElement === window.focusedBefore")  # back where it was
    assert judgment_of(people, campaign).status == "draft"

    page.get_by_role("button", name="Submit").click()  # the button asks too
    expect(dialog).to_be_visible()
    page.get_by_role("button", name="Back").click()
    expect(dialog).to_be_hidden()
    assert judgment_of(people, campaign).status == "draft"

    page.keyboard.press("Enter")
    expect(page.locator("#confirm-ok")).to_be_focused()
    judged_at = page.url
    page.keyboard.press("Enter")  # on "Submit"
    page.wait_for_url(lambda url: url != judged_at)
    judgment = judgment_of(people, campaign)
    assert judgment.status == "submitted"
    assert judgment.payload == as_stored(kind, AS_SENT.get(kind, KINDS[kind].examples.payloads[0]), people)


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_an_untouched_start_asks_twice_or_says_what_is_missing(new_page, live_server, login, people, kind):
    campaign = example_campaign(people, kind)
    page = open_page(new_page, login, live_server, campaign)
    dialog = page.locator("#confirm-dialog")
    page.keyboard.press("Enter")
    if kind in NOT_READY:
        # The starting state is incomplete: no dialog, and the page says why.
        where, text = NOT_READY[kind]
        expect(page.locator(where)).to_have_text(text)
        expect(dialog).to_have_count(0)
        assert judgment_of(people, campaign) is None
        return

    # Ordering starts from a complete (shuffled) order: the first Enter asks, then asks again.
    expect(page.locator("#confirm-title")).to_have_text("Submit this judgment?")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-title")).to_have_text("Submit it untouched?")
    expect(page.locator("#confirm-summary")).to_have_text(
        "This is the shuffled starting order: you have not moved any item."
    )
    expect(page.locator("#confirm-back")).to_be_focused()  # the safe answer first
    page.keyboard.press("Enter")  # Back
    expect(dialog).to_be_hidden()
    assert judgment_of(people, campaign) is None

    shown = page.locator("#items .item").evaluate_all("items => items.map(li => li.dataset.id)")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Submit as it is").click()
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    judgment = judgment_of(people, campaign)
    assert (judgment.status, judgment.payload) == ("submitted", {"order": shown})


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_keys_do_nothing_while_a_dialog_or_a_text_field_has_the_focus(new_page, live_server, login, people, kind):
    campaign = example_campaign(people, kind)
    draft_of(people, campaign, KINDS[kind].examples.payloads[0])
    page = open_page(new_page, login, live_server, campaign)
    status = page.locator("#save-status")
    before = status.text_content()

    # The confirm dialog: every editing key is the dialog's (none of them is), Esc closes it.
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    for key in STRAY_KEYS + ["Control+z"]:
        page.keyboard.press(key)
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.keyboard.press("Escape")

    # A text field: what is typed goes into it, Enter and Ctrl+Z are its own.
    page.evaluate(
        """() => {
            const field = document.createElement("input");
            field.id = "typing-here";
            field.setAttribute("aria-label", "A note");
            document.getElementById("judge").prepend(field);
        }"""
    )
    field = page.locator("#typing-here")
    field.focus()
    typed = "jkynvoxcedsmg0123[] /"
    page.keyboard.type(typed)
    page.keyboard.press("Enter")
    expect(field).to_have_value(typed)
    page.keyboard.press("Control+z")  # the field's own undo
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    assert status.text_content() == before  # no edit reached the page: nothing unsaved
    judgment = judgment_of(people, campaign)
    assert (judgment.status, judgment.version) == ("draft", 1)


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_ctrl_z_undoes_and_ctrl_shift_z_or_ctrl_y_redoes(new_page, live_server, login, people, kind):
    campaign = example_campaign(people, kind)
    start = KINDS[kind].examples.payloads[0]
    draft_of(people, campaign, start)
    page = open_page(new_page, login, live_server, campaign)
    keys, edited = EDITS[kind]
    edited = as_stored(kind, edited, people)
    for key in keys:
        page.keyboard.press(key)
    wait_for_saved(page, people, campaign, edited)

    page.keyboard.press("Control+z")
    wait_for_saved(page, people, campaign, as_stored(kind, AS_SENT.get(kind, start), people))
    page.keyboard.press("Control+Shift+z")
    wait_for_saved(page, people, campaign, edited)
    page.keyboard.press("Control+z")
    wait_for_saved(page, people, campaign, as_stored(kind, AS_SENT.get(kind, start), people))
    page.keyboard.press("Control+y")
    wait_for_saved(page, people, campaign, edited)

    # What is on the page is what was redone: submitting it sends the edit.
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/topics/t1/" not in url)
    judgment = judgment_of(people, campaign)
    assert (judgment.status, judgment.payload) == ("submitted", edited)


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_unsaved_work_kept_in_the_browser_is_restored_onto_the_page(new_page, live_server, login, people, kind):
    """A change this browser kept (static/annotate/judge.js) is offered when the
    topic opens; restored by keyboard, it is on the page: the kind's edit keys
    work on it, and what they make is saved."""
    campaign = example_campaign(people, kind)
    # A saved draft other than the kept change (a new ordering's shuffled start may equal the
    # kept order by chance, and a kept copy equal to the saved content is not offered).
    saved, kept = KINDS[kind].examples.payloads[1], KINDS[kind].examples.payloads[0]
    assert saved != kept
    draft_of(people, campaign, saved)
    page = open_page(new_page, login, live_server, campaign)
    keys, edited = EDITS[kind]
    edited = as_stored(kind, edited, people)
    page.evaluate(
        """([user, payload]) => localStorage.setItem(
            document.getElementById("judge").dataset.storageKey,
            JSON.stringify({user, payload, status: "draft", version: 1, edits: 1}))""",
        [str(people["alice"].pk), kept],
    )
    page.reload()
    expect(page.locator("#restore-keep")).to_be_focused()
    page.keyboard.press("Enter")  # Restore them
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).")
    assert judgment_of(people, campaign).payload == as_stored(kind, AS_SENT.get(kind, kept), people)
    # The ordering page's focus stays on the item it was on (first in the saved draft): to the top first.
    for key in (["k", "k"] if kind == "ordering" else []) + keys:
        page.keyboard.press(key)
    wait_for_saved(page, people, campaign, edited)


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_the_key_help_is_written_from_the_key_table(new_page, live_server, login, people, kind):
    campaign = example_campaign(people, kind)
    page = open_page(new_page, login, live_server, campaign)
    help_text = page.locator("#key-help").inner_text()
    assert "Ctrl + Z" in help_text and "undo the last change" in help_text
    assert "Ctrl + Shift + Z or Ctrl + Y" in help_text
    assert "submit: first a summary of what is submitted" in help_text
    if kind == "clustering":
        assert "Shift + ↑" in help_text and "move the focused sentence's cluster up" in help_text
        hint = page.locator(".clusters-hint").inner_text()
        assert "Shift + ↑ / ↓" in hint and "reorder with ↑ and ↓." not in hint


# -- the defects found in Chromium -------------------------------------------------------


def test_clustering_focus_stays_with_the_sentence_just_placed(new_page, live_server, login, people):
    campaign = example_campaign(people, "clustering")
    page = open_page(new_page, login, live_server, campaign)
    focused = page.locator(".sentence.focused")
    expect(focused).to_have_attribute("data-id", "s1")
    page.keyboard.press("c")
    page.keyboard.press("1")
    expect(focused).to_have_attribute("data-id", "s1")  # not on to the next unclustered sentence
    page.keyboard.press("e")  # describes the cluster s1 just went into
    description = page.get_by_label("Description of cluster 1")
    expect(description).to_be_focused()
    page.keyboard.type("The eruption")
    page.keyboard.press("Enter")  # back to the sentence
    expect(page.locator('.sentence[data-id="s1"]')).to_be_focused()
    page.keyboard.press("Enter")  # asks; does not submit
    expect(page.locator("#confirm-summary")).to_have_text("1 cluster, 3 sentences left out, 1 rule warning.")
    page.keyboard.press("Escape")
    wait_for_saved(page, people, campaign, {"clusters": [["s1"]], "descriptions": ["The eruption"]})
    assert judgment_of(people, campaign).status == "draft"


def test_factoids_search_then_enter_marks_clears_and_never_submits(new_page, live_server, login, people):
    campaign = example_campaign(people, "factoids")
    factoids = [{"id": f"F{n}", "text": f"Fact number {n}"} for n in range(1, 15)]
    draft_of(people, campaign, {"factoids": factoids, "marks": {}})
    page = open_page(new_page, login, live_server, campaign)
    ids = page.locator("#factoid-list .factoid-id")
    chips = page.locator('.factoid-sentence[data-id="m1s1"] .chip')
    expect(ids).to_have_count(14)

    page.keyboard.press("/")
    page.keyboard.type("F14")
    expect(ids).to_have_text(["F14"])
    expect(page.locator("#factoid-list .factoid-number")).to_have_text(["14"])  # its own number, filtered or not
    page.keyboard.press("Enter")  # marks F14 on the sentence
    expect(chips).to_have_text(["F14"])
    expect(ids).to_have_count(14)  # the filter is cleared
    expect(page.locator("#factoid-search")).to_have_value("")
    expect(page.locator('.factoid-sentence[data-id="m1s1"]')).to_be_focused()
    page.keyboard.press("Enter")  # a second Enter asks, it does not submit
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    assert judgment_of(people, campaign).status == "draft"

    # A filter left in place (Esc) keeps every factoid's number: 1 is F1, 14 is F14.
    page.keyboard.press("/")
    page.keyboard.type("F14")
    page.keyboard.press("Escape")
    expect(ids).to_have_text(["F14"])
    page.keyboard.press("1")
    page.keyboard.press("4")
    expect(chips).to_have_count(0)  # F14 taken off again
    expect(ids).to_have_count(14)  # and the filter cleared by the mark
    page.keyboard.press("1")
    page.keyboard.press("j")  # not a digit: "1" alone is F1
    expect(page.locator('.factoid-sentence[data-id="m1s1"] .chip')).to_have_text(["F1"])
    wait_for_saved(page, people, campaign, {"factoids": factoids, "marks": {"m1s1": ["F1"]}})


def test_ordering_enter_on_a_fresh_topic_does_not_submit_the_shuffled_order(new_page, live_server, login, people):
    campaign = example_campaign(people, "ordering")
    page = open_page(new_page, login, live_server, campaign)
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # the first dialog's Submit: a second dialog, focus on Back
    expect(page.locator("#confirm-title")).to_have_text("Submit it untouched?")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    assert judgment_of(people, campaign) is None  # nothing submitted, nothing saved

    # Moving an item makes it the assessor's order: one confirmation is enough.
    page.keyboard.press(" ")
    page.keyboard.press("j")
    page.keyboard.press(" ")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-title")).to_have_text("Submit this judgment?")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    assert judgment_of(people, campaign).status == "submitted"
