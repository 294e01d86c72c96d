"""Skip, flag, previous/next topic and active time on the judging page, in
Chromium (static/annotate/judge.js, keys.js; annotate/flags.py).

The ``campaign`` fixture (conftest.py): pairs, topics q1-q3 (four
candidates each), assigned to alice and bob."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Assignment, Flag, Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: The keys every assessor's judging page adds to its kind's table (Concord.TopicActions).
SHARED = {
    "Alt+ArrowLeft": ({"key": "ArrowLeft", "altKey": True}, "previous topic in your queue"),
    "Alt+ArrowRight": ({"key": "ArrowRight", "altKey": True}, "next topic in your queue"),
    "Shift+S": ({"key": "S", "shiftKey": True}, "skip this topic"),
    "Shift+F": ({"key": "F", "shiftKey": True}, "flag this topic"),
}


def judge_url(live_server, campaign, external_id: str) -> str:
    return f"{live_server.url}/campaigns/{campaign.pk}/topics/{external_id}/judge/"


def open_topic(new_page, login, live_server, campaign, external_id: str, user: str = "alice"):
    page = new_page()
    login(page, user)
    page.goto(judge_url(live_server, campaign, external_id))
    expect(page.locator("#key-help dt").first).to_be_visible()  # the page's script is ready
    return page


def judgment(people, campaign, external_id: str, user: str = "alice") -> Judgment | None:
    return Judgment.objects.filter(
        topic__campaign=campaign, topic__external_id=external_id, assessor=people[user]
    ).first()


def wait_until(page, check, tries: int = 100):
    """Poll the database a bounded number of times (the page writes asynchronously)."""
    for _ in range(tries):
        if check():
            return
        page.wait_for_timeout(100)
    assert check()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_shared_keys_clash_with_no_kinds_key(new_page, live_server, login, people, kind):
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"Keys {kind}", overlap=1, params=dict(examples.params) or None
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[{"external_id": t, "title": t, "data": examples.topic} for t in ("t1", "t2", "t3")],
    )
    page = open_topic(new_page, login, live_server, campaign, "t2")
    for spec, (event, does) in SHARED.items():
        # Every entry of the page's table (its `when` aside) that this key would run.
        runs = page.evaluate(
            """(event) => {
              const table = Concord.JudgePage.current.table;
              const pressed = new KeyboardEvent("keydown", event);
              return table.filter((entry) => Concord.Keys.find([{ ...entry, when: null }], pressed)).map((e) => e.does);
            }""",
            event,
        )
        assert len(runs) == 1 and runs[0].startswith(does), (kind, spec, runs)
    help_text = page.locator("#key-help").inner_text()
    assert "Alt + ←" in help_text and "Shift + S" in help_text and "Shift + F" in help_text


def test_previous_and_next_keys_save_the_draft_first(new_page, live_server, login, people, campaign):
    page = open_topic(new_page, login, live_server, campaign, "q2")
    page.keyboard.press("y")  # c1: match; the draft save waits 500 ms
    page.keyboard.press("Alt+ArrowRight")
    page.wait_for_url(judge_url(live_server, campaign, "q3"))
    saved = judgment(people, campaign, "q2")
    assert (saved.status, saved.payload) == ("draft", {"matches": {"c1": True}})

    page.keyboard.press("Alt+ArrowLeft")
    page.wait_for_url(judge_url(live_server, campaign, "q2"))
    expect(page.locator("#candidates .candidate").first).to_have_class(re.compile(r"\bis-match\b"))
    page.get_by_role("link", name="← Previous topic").click()  # the link saves first too
    page.wait_for_url(judge_url(live_server, campaign, "q1"))
    expect(page.locator("#previous-topic")).to_have_count(0)
    page.keyboard.press("Alt+ArrowLeft")
    expect(page.locator("#key-notice")).to_have_text("This is the first topic in your queue.")
    assert page.url == judge_url(live_server, campaign, "q1")


def test_skip_by_keyboard_then_unskip_on_the_campaign_page(new_page, live_server, login, people, campaign):
    save_judgment(
        topic=campaign.topics.get(external_id="q1"),
        assessor=people["alice"],
        payload={"matches": {"c1": True, "c2": True, "c3": False, "c4": False}},
        status="submitted",
        version=0,
    )
    page = open_topic(new_page, login, live_server, campaign, "q2")
    page.keyboard.press("y")
    page.keyboard.press("Shift+S")
    dialog = page.locator("#skip-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#skip-reason")).to_be_focused()
    page.keyboard.type("I know this person")  # keys are the text field's: "y" or "n" judge nothing
    page.keyboard.press("Control+Enter")
    page.wait_for_url(judge_url(live_server, campaign, "q3"))  # q1 counts, q2 is skipped

    assignment = Assignment.objects.get(topic__campaign=campaign, topic__external_id="q2", assessor=people["alice"])
    assert assignment.skipped_at is not None and assignment.skip_reason == "I know this person"
    draft = judgment(people, campaign, "q2")  # saved before skipping, and kept
    assert (draft.status, draft.payload) == ("draft", {"matches": {"c1": True}})
    assert judgment(people, campaign, "q1").status == "submitted"

    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    expect(page.get_by_text("1 of 3 submitted · 1 skipped")).to_be_visible()
    page.get_by_role("button", name="Unskip Query 2").click()
    expect(page.get_by_text("Query 2 is back in your queue.")).to_be_visible()
    assignment.refresh_from_db()
    assert (assignment.skipped_at, assignment.skip_reason) == (None, "")


def test_flag_an_item_the_organiser_resolves_it_the_assessor_reads_the_answer(
    new_page, live_server, login, people, campaign
):
    page = open_topic(new_page, login, live_server, campaign, "q1")
    page.keyboard.press("Shift+F")
    expect(page.locator("#flag-dialog")).to_be_visible()
    # The comment has the focus: what is typed at once is kept (it went to the "About" list before).
    expect(page.locator("#flag-comment")).to_be_focused()
    page.keyboard.type("c3 is the same person as c1")
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#flag-item")).to_be_focused()
    page.locator("#flag-item").select_option("c3")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#flag-dialog")).to_be_hidden()
    expect(page.locator("#topic-flag-list li")).to_have_text("Item c3: “c3 is the same person as c1” (open)")
    flag = Flag.objects.get()
    assert (flag.author, flag.item, flag.comment, flag.is_open) == (
        people["alice"],
        "c3",
        "c3 is the same person as c1",
        True,
    )

    page.keyboard.press("Shift+F")
    page.get_by_role("button", name="Send").click()  # no comment
    expect(page.locator("#flag-dialog .dialog-error")).to_have_text("Not sent: comment: must not be empty")
    page.keyboard.press("Escape")

    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=flags")
    inbox = organiser.locator("#flags")
    expect(inbox).to_contain_text("alice on Query 1, item c3")
    inbox.get_by_label("Answer").fill("Merged: judge them the same.")
    inbox.get_by_role("button", name="Resolve").click()
    expect(organiser.locator("#flags")).to_contain_text("No open flags.")
    flag.refresh_from_db()
    assert (flag.is_open, flag.answer, flag.resolved_by) == (False, "Merged: judge them the same.", people["organiser"])

    page.reload()
    expect(page.locator("#topic-flag-list li")).to_contain_text("(resolved)")
    expect(page.locator("#topic-flag-list .flag-answer")).to_have_text("Answer: Merged: judge them the same.")


def test_active_time_is_recorded_and_not_counted_while_hidden(new_page, live_server, login, people, campaign):
    page = open_topic(new_page, login, live_server, campaign, "q1")
    page.keyboard.press("j")
    page.keyboard.press("y")
    wait_until(page, lambda: judgment(people, campaign, "q1") is not None)
    first = judgment(people, campaign, "q1").active_ms
    assert 0 < first < 10 * 60 * 1000  # more than nothing, less than one request may add

    # The counting itself on a fake clock: 5 s active, 95 s hidden (keys pressed meanwhile
    # count nothing), then 2 s after coming back; then nothing done: the spell ends 60 s after
    # the last key (t = 160 s), so of the 198 s up to t = 300 s only 58 s more count.
    counted = page.evaluate(
        """() => {
          const time = Concord.JudgePage.current.judgment.activeTime;
          let now = 0;
          time.now = () => now;
          time.take(); time.banked = 0; time.since = null; time.last = -Infinity;
          const setVisibility = (state) => {
            Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
            document.dispatchEvent(new Event("visibilitychange"));
          };
          const press = () => document.dispatchEvent(new KeyboardEvent("keydown", { key: "Shift" }));
          press();                       // t = 0: a spell starts
          now = 5000; setVisibility("hidden");
          now = 50000; press();          // hidden: not counted
          now = 100000; setVisibility("visible");
          press();                       // t = 100 s: counting again
          now = 102000;
          const afterHidden = time.take();
          now = 300000;                  // nothing done since t = 100 s: counted up to t = 160 s
          const afterPause = time.take();
          return [afterHidden, afterPause];
        }"""
    )
    assert counted == [7000, 58000]

    # What the next save sends is what was counted: 1.5 s on the fake clock.
    page.evaluate(
        """() => {
          const time = Concord.JudgePage.current.judgment.activeTime;
          time.banked = 1500; time.since = null;
        }"""
    )
    page.keyboard.press("n")  # c2: no match, a draft save follows
    wait_until(page, lambda: judgment(people, campaign, "q1").version == 2)
    assert judgment(people, campaign, "q1").active_ms == first + 1500
