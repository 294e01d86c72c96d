"""The judging page when the network goes, the server is busy, the session
ends or someone else signs in, and when two tabs edit the same judgment:
every change is kept in the browser (per campaign, topic and user) until the
server acknowledges it, sent later with the version check, offered back when
the topic is opened again, and never sent under another user's session; a
newer saved version is shown as a merge prompt and is overwritten only when
the user says so. (Chromium, as in tests/e2e.)"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from annotate.models import Curation, Judgment, JudgmentRevision, Topic
from annotate.services.judgments import save_judgment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
#: Waiting for a retry: the page asks again after 2, 4, 8 ... s.
RETRIED = 30_000


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("pw-" + username)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))


@pytest.fixture
def context(browser, live_server, people):
    """One browser (context) with alice logged in; its pages are her tabs."""
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    sign_in(page, "alice")
    page.close()
    yield context
    context.close()


@pytest.fixture
def topic(campaign, people) -> Topic:
    return Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()


def judge_path(topic) -> str:
    return f"/campaigns/{topic.campaign_id}/topics/{topic.external_id}/judge/"


def judge(context, topic):
    page = context.new_page()
    page.goto(judge_path(topic))
    expect(page.locator("#remaining")).to_contain_text("candidates left")  # the page script is ready
    return page


def choose(page, index: int, label: str) -> None:
    page.locator(".candidate").nth(index).get_by_role("button", name=re.compile(f"^{label}")).click()


def pressed(page, index: int, label: str):
    return page.locator(".candidate").nth(index).get_by_role("button", name=re.compile(f"^{label}"))


def kept(page, key: str | None = None) -> dict | None:
    return page.evaluate(
        "key => JSON.parse(localStorage.getItem(key))", key or page.locator("#judge").get_attribute("data-storage-key")
    )


def stored(topic, user) -> Judgment | None:
    return Judgment.objects.filter(topic=topic, assessor=user).first()


def problem(page):
    """The banner that says why nothing is saved (role=alert), not the status line."""
    return page.locator("#save-problem")


def restore_offer(page):
    return page.get_by_role("dialog", name="Restore your unsaved changes?")


def put_statuses(page) -> list[int]:
    """The statuses the page's judgment saves get, in order."""
    statuses: list[int] = []
    page.on(
        "response",
        lambda r: statuses.append(r.status) if r.request.method == "PUT" and r.url.endswith("/judgment/") else None,
    )
    return statuses


def test_offline_work_is_kept_across_a_reload_and_sent_when_the_connection_returns(context, topic, people):
    alice = people["alice"]
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 0, "Match")
    choose(page, 1, "No match")
    expect(problem(page)).to_be_visible()
    expect(problem(page)).to_have_attribute("role", "alert")
    expect(problem(page)).to_contain_text("Offline: 2 changes waiting, kept in this browser")
    expect(page.locator("#save-status")).to_have_text("Offline: not saved yet.")
    copy = kept(page)
    assert {key: copy[key] for key in ("user", "payload", "status", "version", "edits")} == {
        "user": str(alice.pk),
        "payload": {"matches": {"c1": True, "c2": False}},
        "status": "draft",
        "version": 0,
        "edits": 2,
    }
    assert stored(topic, alice) is None

    # Still unreachable, and the page is reloaded: the work is offered back, and restored by keyboard.
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))
    context.set_offline(False)
    page.reload()
    offer = restore_offer(page)
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("2 changes made in this browser")
    expect(offer.locator("#restore-rows tr")).to_have_count(2)  # c1 and c2, against the saved (empty) version
    expect(offer.locator("#restore-keep")).to_be_focused()
    page.keyboard.press("Escape")  # not a choice: the offer stays
    expect(offer).to_be_visible()
    page.keyboard.press("Enter")
    expect(offer).to_be_hidden()
    expect(pressed(page, 0, "Match")).to_have_attribute("aria-pressed", "true")
    expect(pressed(page, 1, "No match")).to_have_attribute("aria-pressed", "true")
    expect(problem(page)).to_contain_text("Offline: 2 changes waiting")
    assert stored(topic, alice) is None

    page.unroute("**/judgment/")
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the connection returns
    expect(page.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    expect(problem(page)).to_be_hidden()
    judgment = stored(topic, alice)
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True, "c2": False}})
    assert kept(page) is None
    expect(page.locator("#conflict")).to_be_hidden()


def test_the_connection_drops_and_returns_without_a_reload(context, topic, people):
    page = judge(context, topic)
    choose(page, 0, "Match")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    context.set_offline(True)
    choose(page, 1, "Match")
    choose(page, 2, "No match")
    choose(page, 3, "Match")
    expect(problem(page)).to_contain_text("Offline: 3 changes waiting, kept in this browser")
    assert stored(topic, people["alice"]).version == 1
    context.set_offline(False)  # the browser's "online" event: sent at once
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).", timeout=RETRIED)
    expect(problem(page)).to_be_hidden()
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": True, "c2": True, "c3": False, "c4": True}})
    assert kept(page) is None


def test_an_expired_session_keeps_the_work_and_sends_it_after_a_sign_in_in_a_new_tab(context, topic, people):
    alice = people["alice"]
    page = judge(context, topic)
    choose(page, 0, "Match")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    context.clear_cookies()  # the session expires
    choose(page, 1, "No match")
    choose(page, 2, "Match")
    choose(page, 3, "No match")
    banner = problem(page)
    expect(banner).to_contain_text(
        "You are signed out (your session has ended): 3 changes kept in this browser, not sent."
    )
    expect(page.locator("#save-status")).to_have_text("Signed out: not saved.")  # no pretending to save
    assert kept(page)["payload"] == {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
    judgment = stored(topic, alice)
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})

    # The banner's sign-in opens a new tab, which ends on a page saying where to go on.
    with context.expect_page() as opened:
        banner.get_by_role("link", name="Sign in again (opens a new tab)").click()
    tab = opened.value
    tab.get_by_label("Username").fill("alice")
    tab.get_by_label("Password").fill("pw-alice")
    tab.get_by_role("button", name="Log in").click()
    expect(tab.locator("#signed-in")).to_contain_text("You are signed in as alice.")
    expect(tab.get_by_role("link", name="Open the topic again")).to_have_attribute("href", judge_path(topic))

    # The judging tab notices, takes the new session's CSRF token and sends the kept change.
    page.bring_to_front()
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).", timeout=RETRIED)
    expect(banner).to_be_hidden()
    judgment = stored(topic, alice)
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}})
    assert kept(page) is None


def copies_kept(page) -> list[str]:
    """The keys of every unsaved-work copy this browser keeps, whoever's."""
    return page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('concord:')).sort()")


def test_signing_out_deletes_the_users_unsaved_copies_once_they_agree(context, topic, people):
    alice, bob = people["alice"], people["bob"]
    page = judge(context, topic)
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))  # never reaches the server
    choose(page, 0, "No match")
    expect(problem(page)).to_contain_text("1 change waiting")
    mine = page.locator("#judge").get_attribute("data-storage-key")
    theirs = f"concord:{topic.campaign_id}:q9:{people['carol'].pk}"  # another user's copy in this browser
    page.evaluate("key => localStorage.setItem(key, JSON.stringify({payload: {}, version: 0}))", theirs)
    assert copies_kept(page) == sorted([mine, theirs])

    # Asked first: staying signed in keeps the copy.
    questions: list[str] = []

    def answer(dialog, accept: bool) -> None:
        questions.append(dialog.message)
        if accept:
            dialog.accept()
        else:
            dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("#judge")).to_be_visible()
    assert copies_kept(page) == sorted([mine, theirs])
    assert questions == [
        "Unsaved changes to one topic are kept in this browser only: they never reached the server. "
        "Signing out deletes them. Sign out anyway?"
    ]

    page.once("dialog", lambda dialog: answer(dialog, True))
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert copies_kept(page) == [theirs]  # alice's gone; nobody else's touched
    assert stored(topic, alice) is None

    # Someone else signs in on this browser: nothing of alice's is there to find.
    page.unroute("**/judgment/")
    sign_in(page, "bob")
    page.goto(judge_path(topic))
    expect(page.locator("#remaining")).to_contain_text("candidates left")
    assert page.locator("#judge").get_attribute("data-user-id") == str(bob.pk)
    assert copies_kept(page) == [theirs]
    expect(restore_offer(page)).to_be_hidden()


def test_signing_out_with_nothing_kept_asks_nothing(context, topic, people):
    page = judge(context, topic)
    choose(page, 0, "Match")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    page.on("dialog", lambda dialog: pytest.fail(f"asked: {dialog.message}"))
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert copies_kept(page) == []


def test_signing_out_of_the_admin_deletes_the_users_copies_too(browser, live_server, people):
    context = browser.new_context(base_url=live_server.url)
    try:
        page = context.new_page()
        sign_in(page, "admin")
        page.goto("/admin/")
        mine = f"concord:1:q1:{people['admin'].pk}"
        page.evaluate("key => localStorage.setItem(key, JSON.stringify({payload: {}, version: 0}))", mine)
        questions: list[str] = []
        page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url(re.compile(r"/accounts/login/"))
        assert len(questions) == 1 and "Signing out deletes them" in questions[0]
        assert copies_kept(page) == []
    finally:
        context.close()


def test_a_sign_in_in_another_tab_rotates_the_csrf_token_and_the_save_still_goes_through(context, topic, people):
    page = judge(context, topic)
    statuses = put_statuses(page)
    sign_in(context.new_page(), "alice")  # the same user again, in another tab: a new CSRF token
    choose(page, 0, "No match")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    assert statuses == [403, 200]  # "CSRF Failed", then the same save with the session's new token
    expect(problem(page)).to_be_hidden()
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": False}})


def test_nothing_is_sent_under_another_users_session(context, topic, people):
    alice, bob = people["alice"], people["bob"]
    page = judge(context, topic)
    other = context.new_page()
    sign_in(other, "bob")  # bob signs in in this browser, in another tab
    choose(page, 0, "Match")
    choose(page, 1, "Match")
    banner = problem(page)
    expect(banner).to_contain_text(
        "This browser is now signed in as bob, not alice: alice's 2 changes stay kept in this browser "
        "and are not sent under bob's name."
    )
    expect(banner.get_by_role("link", name="Sign in as alice (opens a new tab)")).to_be_visible()
    assert stored(topic, alice) is None and stored(topic, bob) is None

    # Meanwhile alice saves from another device: her page, once she is back, still obeys the version check.
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c3": True}}, status="draft", version=0)
    sign_in(other, "alice")
    expect(page.locator("#conflict")).to_be_visible(timeout=RETRIED)
    expect(page.locator("#merge-saved-head")).to_contain_text("Saved version 1 by alice")
    expect(banner).to_be_hidden()
    assert stored(topic, alice).payload == {"matches": {"c3": True}}
    page.get_by_role("button", name="Keep mine").click()
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).")
    judgment = stored(topic, alice)
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": True, "c2": True}})
    assert stored(topic, bob) is None


def test_a_kept_change_is_offered_to_its_user_only(context, topic, people):
    alice, bob = people["alice"], people["bob"]
    page = judge(context, topic)
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))
    choose(page, 0, "No match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    alices_copy = page.locator("#judge").get_attribute("data-storage-key")
    page.close()

    # bob signs in on the same browser and opens the same topic: he never sees or sends alice's change.
    page = context.new_page()
    sign_in(page, "bob")
    page.goto(judge_path(topic))
    expect(page.locator("#remaining")).to_contain_text("candidates left")
    expect(restore_offer(page)).to_be_hidden()
    choose(page, 1, "Match")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    assert stored(topic, bob).payload == {"matches": {"c2": True}}
    assert stored(topic, alice) is None
    assert kept(page, alices_copy)["payload"] == {"matches": {"c1": False}}

    # alice again: offered, restored, saved as hers.
    sign_in(page, "alice")
    page.goto(judge_path(topic))
    expect(restore_offer(page)).to_contain_text("1 change made in this browser")
    page.get_by_role("button", name="Restore them").click()
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    expect(pressed(page, 0, "No match")).to_have_attribute("aria-pressed", "true")
    assert stored(topic, alice).payload == {"matches": {"c1": False}}
    assert stored(topic, bob).payload == {"matches": {"c2": True}}
    assert kept(page) is None


def test_a_kept_change_can_be_discarded(context, topic, people):
    save_judgment(topic=topic, assessor=people["alice"], payload={"matches": {"c1": True}}, status="draft", version=0)
    page = judge(context, topic)
    page.route("**/judgment/", lambda route: route.abort("internetdisconnected"))
    choose(page, 0, "No match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    page.unroute("**/judgment/")
    page.reload()
    expect(restore_offer(page).locator("#restore-rows tr")).to_have_text(
        [re.compile(r"matches\.c1\s*“Candidate \d\.1”\s*false\s*true")]
    )
    page.get_by_role("button", name="Discard them").click()
    expect(restore_offer(page)).to_be_hidden()
    expect(pressed(page, 0, "Match")).to_have_attribute("aria-pressed", "true")  # the saved version
    assert kept(page) is None
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})


def test_a_save_whose_answer_was_lost_is_not_offered_again(context, topic, people):
    page = judge(context, topic)

    def answer_lost(route):
        route.fetch()  # the server saves it...
        route.abort("connectionreset")  # ...and the answer never arrives

    page.route("**/judgment/", answer_lost)
    choose(page, 0, "Match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    assert stored(topic, people["alice"]).version == 1
    page.unroute("**/judgment/")
    page.reload()
    expect(pressed(page, 0, "Match")).to_have_attribute("aria-pressed", "true")  # the saved version
    page.wait_for_function(
        "key => localStorage.getItem(key) === null", arg=page.locator("#judge").get_attribute("data-storage-key")
    )
    expect(restore_offer(page)).to_be_hidden()
    assert JudgmentRevision.objects.filter(judgment__topic=topic).count() == 1


@pytest.mark.parametrize("choice", ["Keep mine", "Use the saved version"])
def test_a_change_made_elsewhere_while_offline_is_a_merge_prompt(context, topic, people, choice):
    save_judgment(topic=topic, assessor=people["alice"], payload={"matches": {"c1": True}}, status="draft", version=0)
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 1, "Match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    # Meanwhile, from another device.
    save_judgment(
        topic=topic, assessor=people["alice"], payload={"matches": {"c1": False, "c3": True}}, status="draft", version=1
    )

    context.set_offline(False)
    conflict = page.locator("#conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("changed elsewhere")
    expect(page.locator("#merge-mine-head")).to_contain_text("Your unsaved change (made on version 1)")
    expect(page.locator("#merge-saved-head")).to_contain_text("Saved version 2 by alice")
    rows = page.locator("#merge-rows tr")
    expect(rows).to_have_count(3)  # c1, c2 and c3 differ, each with its candidate's text (the page's item-labels)
    expect(rows.nth(0)).to_have_text(re.compile(r"matches\.c1\s*“Candidate \d\.1”\s*true\s*false"))
    expect(rows.nth(1)).to_have_text(re.compile(r"matches\.c2\s*“Candidate \d\.2”\s*true\s*—"))
    expect(rows.nth(2)).to_have_text(re.compile(r"matches\.c3\s*“Candidate \d\.3”\s*—\s*true"))
    expect(page.locator("#save-status")).to_contain_text("Not saved")
    # Nothing is overwritten until the user chooses, whatever else happens meanwhile.
    choose(page, 3, "No match")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(rows.nth(3)).to_have_text(re.compile(r"matches\.c4\s*“Candidate \d\.4”\s*false\s*—"))
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": False, "c3": True}})

    page.get_by_role("button", name=choice).click()
    if choice == "Keep mine":
        expect(page.locator("#save-status")).to_contain_text("Draft saved (version 3)")
        expect(conflict).to_be_hidden()
        judgment = stored(topic, people["alice"])
        assert (judgment.version, judgment.payload) == (3, {"matches": {"c1": True, "c2": True, "c4": False}})
    else:
        expect(pressed(page, 2, "Match")).to_have_attribute("aria-pressed", "true")  # the saved version, reloaded
        expect(pressed(page, 1, "Match")).to_have_attribute("aria-pressed", "false")
        expect(conflict).to_be_hidden()
        assert stored(topic, people["alice"]).version == 2
        assert kept(page) is None
    assert list(
        JudgmentRevision.objects.filter(judgment__topic=topic).values_list("version", flat=True).order_by("version")
    ) == ([1, 2, 3] if choice == "Keep mine" else [1, 2])


def test_a_draft_left_for_an_older_version_is_offered_not_dropped_or_sent(context, topic, people):
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 0, "No match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    page.close()  # the tab is closed while offline
    context.set_offline(False)
    save_judgment(topic=topic, assessor=people["alice"], payload={"matches": {"c2": True}}, status="draft", version=0)

    page = judge(context, topic)
    offer = restore_offer(page)
    expect(offer).to_contain_text("The judgment has been saved since (version 1; yours were made on version 0)")
    expect(offer.locator("#restore-saved-head")).to_have_text("Saved version 1")
    expect(offer.locator("#restore-rows tr")).to_have_count(2)  # c1 (mine) and c2 (saved)
    assert stored(topic, people["alice"]).payload == {"matches": {"c2": True}}
    page.get_by_role("button", name="Restore them").click()
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 2).")
    expect(pressed(page, 0, "No match")).to_have_attribute("aria-pressed", "true")
    expect(pressed(page, 1, "Match")).to_have_attribute("aria-pressed", "false")
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (2, {"matches": {"c1": False}})
    assert kept(page) is None


def test_a_page_being_left_starts_no_save_and_carries_on_back_from_the_cache(context, topic, people):
    """A tab being closed or left (pagehide) sends nothing it kept, whatever it hears next:
    Chromium tells a closing tab "online" when its emulated offline state ends with it, and a
    save started then may or may not get through, with no page to show what happened. Its
    change stays kept for the restore offer; back from the back-forward cache, it is sent."""
    page = judge(context, topic)
    context.set_offline(True)
    choose(page, 0, "No match")
    expect(problem(page)).to_contain_text("Offline: 1 change waiting")
    page.evaluate(
        """() => {
            window.putsSent = 0;
            const send = window.fetch;
            window.fetch = (url, options) => {
                if (options && options.method === "PUT") window.putsSent += 1;
                return send(url, options);
            };
            window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
        }"""
    )
    context.set_offline(False)
    # The connection is back (the page's own "online" event, or this one): a page being left sends nothing.
    assert page.evaluate("() => { window.dispatchEvent(new Event('online')); return window.putsSent; }") == 0
    assert kept(page)["payload"] == {"matches": {"c1": False}}
    assert stored(topic, people["alice"]) is None

    page.evaluate("() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))")
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
    assert page.evaluate("() => window.putsSent") == 1
    assert stored(topic, people["alice"]).payload == {"matches": {"c1": False}}
    assert kept(page) is None


def test_two_tabs_editing_the_same_judgment(context, topic, people):
    first, second = judge(context, topic), judge(context, topic)
    choose(first, 0, "Match")
    expect(first.locator("#save-status")).to_contain_text("Draft saved (version 1)")
    choose(second, 0, "No match")  # this tab still has version 0
    expect(second.locator("#conflict")).to_be_visible()
    expect(second.locator("#conflict")).to_contain_text("another tab or device")
    expect(second.locator("#merge-saved-head")).to_contain_text("Saved version 1")
    expect(second.locator("#merge-rows tr").first).to_have_text(
        re.compile(r"matches\.c1 “Candidate 1\.1”\s*false\s*true")
    )
    expect(second.locator("#save-status")).to_contain_text("Not saved")
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})  # the first tab's

    # The first tab goes on saving; the second still overwrites nothing.
    choose(first, 1, "Match")
    expect(first.locator("#save-status")).to_contain_text("Draft saved (version 2)")
    expect(first.locator("#conflict")).to_be_hidden()
    assert stored(topic, people["alice"]).payload == {"matches": {"c1": True, "c2": True}}

    second.get_by_role("button", name="Use the saved version").click()
    expect(pressed(second, 0, "Match")).to_have_attribute("aria-pressed", "true")
    expect(pressed(second, 1, "Match")).to_have_attribute("aria-pressed", "true")
    expect(second.locator("#conflict")).to_be_hidden()
    assert stored(topic, people["alice"]).version == 2


@pytest.mark.parametrize("answer", ["restarting", "busy"])
def test_a_server_that_cannot_answer_now_gets_the_same_save_again(context, topic, people, answer):
    """503: "restarting" (a proxy's HTML page, no Retry-After: the page's own
    delay) or "busy" (a lock timeout: JSON and Retry-After: 1, waited for)."""
    page = judge(context, topic)
    calls: list[float] = []

    def once(route):
        calls.append(time.monotonic())
        if len(calls) > 1:
            route.continue_()
        elif answer == "restarting":
            route.fulfill(status=503, content_type="text/html", body="<h1>503 Service Unavailable</h1>")
        else:
            route.fulfill(
                status=503,
                headers={"Retry-After": "1"},
                content_type="application/json",
                body=json.dumps({"detail": "The database is busy: try again shortly."}),
            )

    page.route("**/judgment/", once)
    choose(page, 0, "Match")
    if answer == "restarting":
        expect(problem(page)).to_contain_text(
            "The server is not answering (503): 1 change waiting, kept in this browser"
        )
    else:
        expect(problem(page)).to_contain_text(
            "The server is busy (The database is busy: try again shortly.): 1 change waiting, "
            "kept in this browser; trying again in 1 s."
        )
    assert kept(page)["payload"] == {"matches": {"c1": True}}
    # Sent again by itself, a little later.
    expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).", timeout=RETRIED)
    expect(problem(page)).to_be_hidden()
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.9  # not before Retry-After (or the first delay, 2 s)
    judgment = stored(topic, people["alice"])
    assert (judgment.version, judgment.payload) == (1, {"matches": {"c1": True}})
    assert JudgmentRevision.objects.filter(judgment=judgment).count() == 1


def test_the_consensus_editor_keeps_and_offers_unsaved_work(browser, live_server, people, campaign):
    topic = Topic.objects.filter(campaign=campaign).order_by("position").first()
    context = browser.new_context(base_url=live_server.url)
    try:
        page = context.new_page()
        sign_in(page, "organiser")
        page.goto(f"/campaigns/{campaign.pk}/topics/{topic.external_id}/consensus/")
        expect(page.locator("#remaining")).to_contain_text("candidates left")
        page.route("**/curations/consensus/", lambda route: route.abort("internetdisconnected"))
        choose(page, 0, "Match")
        choose(page, 2, "No match")
        expect(problem(page)).to_contain_text("Offline: 2 changes waiting")
        assert kept(page)["payload"] == {"matches": {"c1": True, "c3": False}}
        page.unroute("**/curations/consensus/")
        page.reload()
        page.get_by_role("button", name="Restore them").click()
        expect(page.locator("#save-status")).to_have_text("Draft saved (version 1).")
        gold = Curation.objects.get(topic=topic, name="consensus")
        assert (gold.version, gold.data) == (1, {"matches": {"c1": True, "c3": False}})
        assert kept(page) is None
    finally:
        context.close()
