"""Judgment states in the browser: a submitted judgment is read-only until
reopened; the draft on top does not move the organiser's report, the
resubmission does; a withdrawal (with its reason) takes it out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.models import Judgment, JudgmentRevision, Topic
from annotate.services.judgments import save_judgment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BOB = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def submit_on_the_page(page) -> None:
    page.keyboard.press("Enter")  # the confirm step
    expect(page.locator("#confirm-ok")).to_be_visible()
    page.keyboard.press("Enter")


def votes(page, candidate: str):
    """The topic report's row of ``candidate``: id, text, match votes, judged."""
    return page.locator("table.grid tr", has=page.locator("td", has_text=re.compile(rf"^{candidate}$")))


def test_submit_reopen_edit_resubmit_withdraw(new_page, live_server, login, people, campaign):
    for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people["bob"]):
        save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    first = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()
    judge_url = f"{live_server.url}/campaigns/{campaign.pk}/topics/{first.external_id}/judge/"
    report_url = f"{live_server.url}/campaigns/{campaign.pk}/topics/{first.external_id}/report/"

    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    kappa = organiser.locator("#pairs-table tr", has_text="alice · bob").locator("td.kappa")

    # Submit: y n n n (c3 differs from bob).
    alice = new_page()
    login(alice, "alice")
    alice.goto(judge_url)
    expect(alice.locator("#remaining")).to_contain_text("4 of 4 candidates left")
    for key in "ynnn":
        alice.keyboard.press(key)
    expect(alice.locator("#remaining")).to_contain_text("Every candidate is judged")
    submit_on_the_page(alice)
    alice.wait_for_url(re.compile(rf"/topics/(?!{re.escape(first.external_id)}/)[^/]+/judge/$"))
    submitted = Judgment.objects.get(topic=first, assessor=people["alice"])
    assert (submitted.status, submitted.submitted_version) == ("submitted", submitted.version)
    # The next topic's page confirms the submission, in its (live) status line.
    expect(alice.get_by_role("status").filter(has_text="Submitted")).to_have_text(
        f"Submitted “{first.title or first.external_id}” (version {submitted.version})."
    )
    expect(kappa).to_have_text("0.500", timeout=15_000)

    # Back on it: read-only, says which version counts, offers Reopen and Withdraw.
    alice.goto(judge_url)
    state = alice.locator("#judgment-state-line")
    expect(state).to_have_text(
        f"Submitted (version {submitted.version}) counts in the reports. To change it, press R (Reopen to edit)."
    )
    expect(alice.locator("#remaining")).to_have_text(
        "Every candidate is judged: submitted: press R to reopen it for editing."
    )
    expect(alice.get_by_role("button", name="Reopen to edit")).to_be_visible()
    expect(alice.get_by_role("button", name="Withdraw…")).to_be_visible()
    expect(alice.locator("#submit-judgment")).to_be_disabled()
    expect(alice.locator("#key-help")).to_contain_text("reopen your submitted judgment to edit it")
    alice.keyboard.press("y")  # read-only: nothing changes, nothing is saved, and the page says why
    expect(alice.locator("#key-notice")).to_have_text("Submitted: press R to reopen it for editing.")
    alice.locator("#candidates .candidate").first.locator(".no").click()
    assert Judgment.objects.get(pk=submitted.pk).version == submitted.version

    # Reopen (the key R), and edit a draft on top: c3 becomes a match.
    alice.locator("#candidates .candidate").first.focus()
    alice.keyboard.press("r")
    expect(state).to_have_text(
        f"Editing a draft on top of submitted version {submitted.version}, which counts until you resubmit."
    )
    expect(alice.get_by_role("button", name="Reopen to edit")).to_be_hidden()
    expect(alice.locator("#remaining")).to_contain_text("Every candidate is judged")
    alice.locator("#candidates .candidate").nth(2).locator(".yes").click()
    expect(alice.locator("#save-status")).to_contain_text(f"on top of submitted version {submitted.version}")
    draft = Judgment.objects.get(pk=submitted.pk)
    assert draft.status == "reopened"
    assert draft.payload == {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
    assert draft.submitted_payload == {"matches": {"c1": True, "c2": False, "c3": False, "c4": False}}

    # The organiser's reports still count the submitted version.
    organiser.goto(report_url)
    expect(votes(organiser, "c3").locator("td").nth(2)).to_have_text("1")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(kappa).to_have_text("0.500")
    expect(organiser.locator("#report-meta")).to_contain_text("from 4 submitted")

    # Resubmit (the focus is on the button just clicked: the Submit button this time).
    alice.get_by_role("button", name="Submit").click()
    alice.locator("#confirm-ok").click()
    alice.wait_for_url(re.compile(rf"/topics/(?!{re.escape(first.external_id)}/)[^/]+/judge/$"))
    resubmitted = Judgment.objects.get(pk=submitted.pk)
    assert (resubmitted.status, resubmitted.submitted_payload) == ("submitted", draft.payload)
    expect(kappa).to_have_text("1.000", timeout=15_000)
    organiser.goto(report_url)
    expect(votes(organiser, "c3").locator("td").nth(2)).to_have_text("2")

    # Withdraw, with a reason.
    alice.goto(judge_url)
    expect(state).to_have_text(
        f"Submitted (version {resubmitted.version}) counts in the reports. To change it, press R (Reopen to edit)."
    )
    alice.get_by_role("button", name="Withdraw…").click()
    dialog = alice.locator("#withdraw-dialog")
    expect(dialog).to_be_visible()
    alice.get_by_label("Reason (optional; kept in the judgment's history)").fill("I judged the wrong Jane Doe.")
    dialog.get_by_role("button", name="Withdraw", exact=True).click()
    expect(state).to_have_text(
        "Withdrawn: this judgment no longer counts in the reports. Editing it saves a new draft, to submit again."
    )
    withdrawn = Judgment.objects.get(pk=submitted.pk)
    assert (withdrawn.status, withdrawn.submitted_payload) == ("withdrawn", None)
    revision = JudgmentRevision.objects.get(judgment=withdrawn, version=withdrawn.version)
    assert (revision.status, revision.reason) == ("withdrawn", "I judged the wrong Jane Doe.")
    organiser.goto(report_url)
    expect(votes(organiser, "c3").locator("td").nth(2)).to_have_text("1")
    expect(votes(organiser, "c3").locator("td").nth(2)).to_have_text("1")
    organiser.goto(f"{live_server.url}/campaigns/{campaign.pk}/?section=report")
    expect(organiser.locator("#report-meta")).to_contain_text("from 3 submitted")
