"""A Prolific study link in Chromium (annotate/study_views.py, dashboard/study.py): two
participants in two browsers each get an account and topics of their own, judge them by
keyboard and are shown the completion code; a browser signed in as someone else is asked
to sign out first; an altered token, a bad id and a full study are refused; the
organiser downloads each worker's time."""

from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.models import Assignment, Judgment, StudyWorker
from annotate.services.campaigns import create_campaign
from annotate.services.study import make_link, withdraw_link
from tests.campaigns import pairs_topics

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PID_A = "5f3c1a2b4d5e6f7a8b9c0d1e"
PID_B = "60aa11bb22cc33dd44ee55ff"


def visit(page, live_server, link, pid: str) -> None:
    page.goto(f"{live_server.url}/study/{link.token}/?PROLIFIC_PID={pid}&STUDY_ID=study1&SESSION_ID=s-{pid[:4]}")


def judge_every_topic(page) -> None:
    """From the next-topic page: ask for work, then mark the one candidate a match and submit,
    topic after topic, until the completion page."""
    page.get_by_role("button", name="Next topic").click()
    for _ in range(10):  # a bound, not a count: the page says when it is done
        if page.locator("#study-done").count():
            return
        expect(page.locator("#key-help dt").first).to_be_visible()  # the judging page's script is ready
        judging = page.url
        page.keyboard.press("y")
        page.keyboard.press("Enter")  # the confirm step
        expect(page.locator("#confirm-ok")).to_be_visible()
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url, judging=judging: url != judging)  # the next topic, or the next-topic page
    raise AssertionError("no completion page after 10 topics")


def test_two_participants_judge_their_own_topics_and_get_the_completion_code(new_page, live_server, login, people):
    crowd = create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="Crowd names",
        overlap=1,
        params={"study": {"topics_per_worker": 2, "max_workers": 2}},
    )
    import_topics(campaign=crowd, topics=pairs_topics(4, candidates=1))
    link = make_link(campaign=crowd, organiser=people["organiser"], platform="prolific", completion_code="C0DE1234")

    first = new_page()
    visit(first, live_server, link, PID_A)
    first.wait_for_url(f"{live_server.url}/campaigns/{crowd.pk}/next/")
    expect(first.locator(".who")).to_have_text(f"prolific-{crowd.pk}-{PID_A}")
    judge_every_topic(first)
    expect(first.locator("#completion-code")).to_have_text("C0DE1234")
    expect(first.get_by_role("link", name="Return to Prolific")).to_have_attribute(
        "href", "https://app.prolific.com/submissions/complete?cc=C0DE1234"
    )

    second = new_page()
    visit(second, live_server, link, PID_B)
    second.wait_for_url(f"{live_server.url}/campaigns/{crowd.pk}/next/")
    judge_every_topic(second)
    expect(second.locator("#completion-code")).to_have_text("C0DE1234")

    a = StudyWorker.objects.get(worker_id=PID_A)
    b = StudyWorker.objects.get(worker_id=PID_B)
    topics = lambda w: set(Assignment.objects.filter(assessor=w.user).values_list("topic__external_id", flat=True))  # noqa: E731
    assert topics(a) == {"q1", "q2"} and topics(b) == {"q3", "q4"}
    assert Judgment.objects.filter(assessor=a.user, status="submitted").count() == 2
    assert a.completed_at is not None and b.completed_at is not None

    # The first browser opening the second participant's link: asked to sign out first, nothing switched.
    visit(first, live_server, link, PID_B)
    expect(first.get_by_role("heading", name="Sign out first")).to_be_visible()
    expect(first.locator(".who")).to_have_text(f"prolific-{crowd.pk}-{PID_A}")
    first.get_by_role("button", name="Sign out and open the study").click()
    first.wait_for_url(f"{live_server.url}/campaigns/{crowd.pk}/next/")
    expect(first.locator(".who")).to_have_text(f"prolific-{crowd.pk}-{PID_B}")  # the same account as before
    assert StudyWorker.objects.count() == 2

    # A third participant: the study is full (max_workers 2).
    third = new_page()
    visit(third, live_server, link, "0" * 24)
    expect(third.locator("main")).to_contain_text("This study is full")
    # An altered token, a bad id.
    third.goto(f"{live_server.url}/study/{link.token[:-2]}xx/?PROLIFIC_PID={PID_A}")
    expect(third.locator("main")).to_contain_text("There is no such study link")
    third.goto(f"{live_server.url}/study/{link.token}/?PROLIFIC_PID=nobody")
    expect(third.locator("main")).to_contain_text("PROLIFIC_PID: not a Prolific id")
    assert StudyWorker.objects.count() == 2

    # The organiser, signed in, is not switched to a participant either; then downloads the time.
    organiser = new_page()
    login(organiser, "organiser")
    visit(organiser, live_server, link, PID_A)
    expect(organiser.get_by_role("heading", name="Sign out first")).to_be_visible()
    organiser.goto(f"{live_server.url}/campaigns/{crowd.pk}/study/")
    expect(organiser.locator("#study-workers")).to_have_text("2")
    answer = organiser.request.get(f"{live_server.url}/campaigns/{crowd.pk}/study/time.csv")
    rows = list(csv.DictReader(io.StringIO(answer.text())))
    assert [(r["worker_id"], r["topics_submitted"]) for r in rows] == [(PID_A, "2"), (PID_B, "2")]
    # Active time is the page's own measure; it is whatever the judgments add up to.
    assert int(rows[0]["active_ms"]) == sum(
        Judgment.objects.filter(assessor=a.user).values_list("active_ms", flat=True)
    )


def test_an_mturk_hit_previews_opens_and_submits_to_mturk(new_page, live_server, people):
    crowd = create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="Turk names",
        guidelines="Say whether the **candidate** names the person.",
        overlap=1,
        params={"study": {"topics_per_worker": 1}},
    )
    import_topics(campaign=crowd, topics=pairs_topics(2, candidates=1))
    link = make_link(campaign=crowd, organiser=people["organiser"], platform="mturk", completion_code="MT-DONE")
    base = f"{live_server.url}/study/{link.token}/"
    page = new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )

    # The preview: what the task is, nothing to do, no account.
    page.goto(base + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=3HIT0EXAMPLE")
    expect(page.locator("#study-preview")).to_contain_text("Say whether the candidate names the person.")
    assert StudyWorker.objects.count() == 0

    # A turkSubmitTo other than MTurk's: refused, naming it.
    accepted = "?assignmentId=3ASSIGN0EXAMPLE&hitId=3HIT0EXAMPLE&workerId=A1WORKER2EXAMPLE&turkSubmitTo="
    page.goto(base + accepted + "https%3A%2F%2Fevil.example")
    expect(page.locator("main")).to_contain_text("turkSubmitTo: expected https://www.mturk.com")
    assert StudyWorker.objects.count() == 0

    # Accepted: the worker judges their one topic, then the page posts the assignment to MTurk.
    page.goto(base + accepted + "https%3A%2F%2Fworkersandbox.mturk.com")
    judge_every_topic(page)
    form = page.locator("#mturk-submit")
    expect(form).to_have_attribute("action", "https://workersandbox.mturk.com/mturk/externalSubmit")
    expect(form.locator("input[name=assignmentId]")).to_have_value("3ASSIGN0EXAMPLE")
    assert violations == []

    # Withdrawn: the same address lets nobody in, the worker already in neither.
    withdraw_link(campaign=crowd)
    other = new_page()
    other.goto(base + accepted + "https%3A%2F%2Fworkersandbox.mturk.com")
    expect(other.locator("main")).to_contain_text("This study link was withdrawn")
