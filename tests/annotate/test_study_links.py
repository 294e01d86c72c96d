"""Study links for crowd platforms (annotate/study.py, annotate/services/study.py,
annotate/study_views.py, dashboard/study.py): one account per platform id and campaign,
each with its own share of the work, the completion code once it is done, the time per
worker for payment, and every refusal a 4xx that creates nothing."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotate.imports.write import import_topics
from annotate.models import Assignment, Judgment, Membership, StudyLink, StudyWorker
from annotate.services.assignments import top_up
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member, remove_member
from annotate.services.study import make_link, withdraw_link
from concord.errors import InvalidInput
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db
User = get_user_model()

PID_A = "5f3c1a2b4d5e6f7a8b9c0d1e"
PID_B = "60aa11bb22cc33dd44ee55ff"


@pytest.fixture
def crowd(people):
    """A pairs campaign of six topics (overlap 2) with no assessor yet: two topics per study worker."""
    campaign = create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="Crowd names",
        overlap=2,
        params={"study": {"topics_per_worker": 2}},
    )
    import_topics(campaign=campaign, topics=pairs_topics(6, candidates=2))
    return campaign


@pytest.fixture
def prolific(crowd, people):
    return make_link(campaign=crowd, organiser=people["organiser"], platform="prolific", completion_code="C0DE1234")


@pytest.fixture
def mturk(crowd, people):
    return make_link(campaign=crowd, organiser=people["organiser"], platform="mturk", completion_code="MT-DONE")


def prolific_visit(client: Client, link: StudyLink, pid: str = PID_A, **more):
    query = {"PROLIFIC_PID": pid, "STUDY_ID": "65a0b1c2d3e4f5a6b7c8d9e0", "SESSION_ID": "sess01", **more}
    return client.get(f"/study/{link.token}/", query)


def mturk_query(**changes) -> dict:
    query = {
        "assignmentId": "3ASSIGN0000EXAMPLE",
        "hitId": "3HIT0000EXAMPLE",
        "workerId": "A1WORKER2EXAMPLE",
        "turkSubmitTo": "https://workersandbox.mturk.com",
    }
    query.update(changes)
    return {k: v for k, v in query.items() if v is not None}


def counts() -> tuple[int, int, int, int]:
    """Accounts, memberships, assignments and study rows: what a refusal must not change."""
    return User.objects.count(), Membership.objects.count(), Assignment.objects.count(), StudyWorker.objects.count()


def signed_in(client: Client) -> int | None:
    value = client.session.get("_auth_user_id")
    return int(value) if value else None


def test_two_prolific_ids_get_two_accounts_each_with_its_own_topics(crowd, prolific):
    first, second = Client(), Client()
    answer = prolific_visit(first, prolific, PID_A)
    assert answer.status_code == 303 and answer["Location"] == reverse("campaign-next", args=[crowd.pk])
    assert prolific_visit(second, prolific, PID_B).status_code == 303
    a = StudyWorker.objects.get(worker_id=PID_A)
    b = StudyWorker.objects.get(worker_id=PID_B)
    assert a.user != b.user
    assert a.user.get_username() == f"prolific-{crowd.pk}-{PID_A}"
    assert not a.user.has_usable_password() and a.user.is_active
    assert (a.study_id, a.session_id, a.platform) == ("65a0b1c2d3e4f5a6b7c8d9e0", "sess01", "prolific")
    assert signed_in(first) == a.user.pk and signed_in(second) == b.user.pk
    assert Membership.objects.get(campaign=crowd, user=a.user).role == Membership.Role.ASSESSOR
    # The topics that most need judges first: the second worker gets the next two, not the first's.
    mine = lambda user: sorted(Assignment.objects.filter(assessor=user).values_list("topic__external_id", flat=True))  # noqa: E731
    assert mine(a.user) == ["q1", "q2"]
    assert mine(b.user) == ["q3", "q4"]


def test_the_same_id_from_another_browser_is_the_same_account(crowd, prolific):
    prolific_visit(Client(), prolific, PID_A)
    before = counts()
    worker = StudyWorker.objects.get(worker_id=PID_A)
    again = Client()
    # Prolific's ids are lower case; the same id in capitals is the same worker.
    assert prolific_visit(again, prolific, PID_A.upper(), SESSION_ID="sess02").status_code == 303
    assert counts() == before
    assert signed_in(again) == worker.user.pk
    worker.refresh_from_db()
    assert worker.session_id == "sess02" and worker.last_visit > worker.first_visit


def test_a_signed_in_worker_revisiting_stays_signed_in(crowd, prolific):
    client = Client()
    prolific_visit(client, prolific)
    before = counts()
    assert prolific_visit(client, prolific).status_code == 303
    assert counts() == before


@pytest.mark.parametrize(
    "token, status, words",
    [
        ("tampered", 404, "no such study link"),
        ("x" * 43, 404, "no such study link"),
        ("a" * 300, 404, "no such study link"),
    ],
)
def test_a_tampered_token_is_refused_and_creates_nothing(crowd, prolific, token, status, words):
    before = counts()
    answer = Client().get(f"/study/{token}/", {"PROLIFIC_PID": PID_A})
    assert answer.status_code == status and words in answer.content.decode().lower()
    assert counts() == before


def test_a_changed_character_of_a_real_token_is_refused(crowd, prolific):
    token = prolific.token
    altered = token[:-1] + ("A" if token[-1] != "A" else "B")
    before = counts()
    assert Client().get(f"/study/{altered}/", {"PROLIFIC_PID": PID_A}).status_code == 404
    assert counts() == before


def test_a_withdrawn_link_is_refused_and_a_replaced_one_too(crowd, prolific, people):
    withdraw_link(campaign=crowd)
    before = counts()
    answer = prolific_visit(Client(), prolific)
    assert answer.status_code == 410 and "withdrawn" in answer.content.decode()
    assert counts() == before
    newer = make_link(campaign=crowd, organiser=people["organiser"], platform="prolific", completion_code="NEW1")
    older = make_link(campaign=crowd, organiser=people["organiser"], platform="prolific", completion_code="NEW2")
    assert prolific_visit(Client(), newer).status_code == 410
    assert prolific_visit(Client(), older).status_code == 303
    assert StudyLink.objects.filter(campaign=crowd, withdrawn_at__isnull=True).count() == 1


@pytest.mark.parametrize(
    "query, field",
    [
        ({}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": ""}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID_A[:-1]}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID_A[:-1] + "g"}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID_A + "0"}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": "../../admin/" + PID_A[:12]}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID_A, "STUDY_ID": "x" * 65}, "STUDY_ID"),
        ({"PROLIFIC_PID": PID_A, "SESSION_ID": "a b"}, "SESSION_ID"),
    ],
)
def test_bad_prolific_parameters_get_400_naming_them(crowd, prolific, query, field):
    before = counts()
    answer = Client().get(f"/study/{prolific.token}/", query)
    assert answer.status_code == 400 and f"{field}:" in answer.content.decode()
    assert counts() == before


def test_a_worker_id_given_twice_is_refused(crowd, prolific):
    answer = Client().get(f"/study/{prolific.token}/?PROLIFIC_PID={PID_A}&PROLIFIC_PID={PID_B}")
    assert answer.status_code == 400 and "PROLIFIC_PID: given more than once" in answer.content.decode()
    assert StudyWorker.objects.count() == 0


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"workerId": "a1worker"}, "workerId"),
        ({"workerId": "A" * 65}, "workerId"),
        ({"workerId": None}, "workerId"),
        ({"hitId": None}, "hitId"),
        ({"assignmentId": "<script>"}, "assignmentId"),
        ({"turkSubmitTo": "https://evil.example"}, "turkSubmitTo"),
        ({"turkSubmitTo": "https://www.mturk.com.evil.example"}, "turkSubmitTo"),
        ({"turkSubmitTo": "http://www.mturk.com"}, "turkSubmitTo"),
        ({"turkSubmitTo": "https://www.mturk.com/mturk/externalSubmit"}, "turkSubmitTo"),
        ({"turkSubmitTo": None}, "turkSubmitTo"),
    ],
)
def test_bad_mturk_parameters_and_a_foreign_turk_submit_to_get_400(crowd, mturk, changes, field):
    before = counts()
    answer = Client().get(f"/study/{mturk.token}/", mturk_query(**changes))
    assert answer.status_code == 400 and f"{field}:" in answer.content.decode()
    assert counts() == before


def test_mturks_two_hosts_are_taken_with_or_without_a_slash(crowd, mturk):
    assert Client().get(f"/study/{mturk.token}/", mturk_query(turkSubmitTo="https://www.mturk.com/")).status_code == 303
    assert StudyWorker.objects.get().submit_to == "https://www.mturk.com"


def test_the_mturk_preview_shows_the_task_and_creates_nothing(crowd, mturk):
    crowd.guidelines = "Say whether each **candidate** names the person."
    crowd.save()
    before = counts()
    client = Client()
    answer = client.get(
        f"/study/{mturk.token}/", {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3HIT0000EXAMPLE"}
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "preview" in page and "<strong>candidate</strong>" in page
    assert counts() == before and signed_in(client) is None
    # MTurk's pages, and only those, may frame it.
    policy = answer["Content-Security-Policy"]
    assert "frame-ancestors https://www.mturk.com https://workersandbox.mturk.com" in policy
    assert "X-Frame-Options" not in answer


def test_inside_mturks_frame_the_task_opens_in_a_tab_of_its_own(crowd, mturk):
    before = counts()
    answer = Client().get(f"/study/{mturk.token}/", mturk_query(), headers={"Sec-Fetch-Dest": "iframe"})
    assert answer.status_code == 200 and 'target="_blank"' in answer.content.decode()
    assert counts() == before
    # Every other page keeps frame-ancestors 'none'.
    assert "frame-ancestors 'none'" in Client().get(reverse("login"))["Content-Security-Policy"]


def test_a_browser_signed_in_as_someone_else_is_asked_to_sign_out_first(crowd, prolific, people):
    organiser = Client()
    organiser.force_login(people["organiser"])
    before = counts()
    answer = prolific_visit(organiser, prolific)
    assert answer.status_code == 409 and "Sign out first" in answer.content.decode()
    assert counts() == before and signed_in(organiser) == people["organiser"].pk
    worker = Client()
    prolific_visit(worker, prolific, PID_A)
    first = signed_in(worker)
    before = counts()
    answer = prolific_visit(worker, prolific, PID_B)
    assert answer.status_code == 409 and counts() == before and signed_in(worker) == first


def test_the_budget_refuses_new_workers_beyond_it(crowd, prolific, people):
    make_link(
        campaign=crowd,
        organiser=people["organiser"],
        platform="prolific",
        completion_code="C0DE1234",
        study_params={"topics_per_worker": 2, "max_workers": 1},
    )
    link = StudyLink.objects.get(campaign=crowd, withdrawn_at__isnull=True)
    assert prolific_visit(Client(), link, PID_A).status_code == 303
    before = counts()
    answer = prolific_visit(Client(), link, PID_B)
    assert answer.status_code == 403 and "full" in answer.content.decode()
    assert counts() == before
    # The worker already in comes back as before.
    assert prolific_visit(Client(), link, PID_A).status_code == 303


def test_no_topic_left_to_give_refuses_a_new_worker(crowd, prolific):
    for n in range(6):  # 6 workers x 2 topics = 6 topics x overlap 2
        assert prolific_visit(Client(), prolific, f"{n:024x}").status_code == 303
    before = counts()
    answer = prolific_visit(Client(), prolific, PID_B)
    assert answer.status_code == 403 and "no more work" in answer.content.decode()
    assert counts() == before
    held = Assignment.objects.filter(topic__campaign=crowd).values_list("topic_id", flat=True)
    assert sorted(list(held).count(t) for t in set(held)) == [2] * 6


def test_new_accounts_per_link_and_minute_are_rate_limited(crowd, prolific, settings):
    settings.CONCORD_STUDY_ACCOUNTS_PER_MINUTE = 2
    assert prolific_visit(Client(), prolific, PID_A).status_code == 303
    assert prolific_visit(Client(), prolific, PID_B).status_code == 303
    before = counts()
    answer = prolific_visit(Client(), prolific, "0" * 24)
    assert answer.status_code == 429 and int(answer["Retry-After"]) in range(1, 61)
    assert counts() == before
    # A worker already in is no new account: let in.
    assert prolific_visit(Client(), prolific, PID_A).status_code == 303
    # A minute later there is room again.
    StudyWorker.objects.update(first_visit=timezone.now() - timedelta(seconds=61))
    assert prolific_visit(Client(), prolific, "0" * 24).status_code == 303


def test_a_removed_worker_is_not_let_in_again(crowd, prolific):
    prolific_visit(Client(), prolific, PID_A)
    worker = StudyWorker.objects.get()
    remove_member(campaign=crowd, username=worker.user.get_username())
    before = counts()
    answer = prolific_visit(Client(), prolific, PID_A)
    assert answer.status_code == 403 and "removed" in answer.content.decode()
    assert counts() == before


def test_a_disabled_worker_is_not_let_in_again(crowd, prolific):
    prolific_visit(Client(), prolific, PID_A)
    User.objects.filter(study_workers__isnull=False).update(is_active=False)
    client = Client()
    answer = prolific_visit(client, prolific, PID_A)
    assert answer.status_code == 403 and "disabled" in answer.content.decode()
    assert signed_in(client) is None


def test_a_top_up_gives_study_workers_nothing_more(crowd, prolific, people):
    prolific_visit(Client(), prolific, PID_A)
    worker = StudyWorker.objects.get()
    add_member(campaign=crowd, username="alice", role="assessor")
    top_up(crowd)
    assert Assignment.objects.filter(assessor=worker.user).count() == 2
    assert Assignment.objects.filter(assessor=people["alice"]).count() == 6


def judge_all(user, active_ms: int) -> None:
    for assignment in Assignment.objects.filter(assessor=user).select_related("topic"):
        matches = {c["id"]: True for c in assignment.topic.data["candidates"]}
        save_judgment(
            topic=assignment.topic,
            assessor=user,
            payload={"matches": matches},
            status="submitted",
            version=0,
            active_ms=active_ms,
        )


def test_after_the_last_topic_the_next_topic_page_gives_the_prolific_code(crowd, prolific):
    client = Client()
    prolific_visit(client, prolific)
    worker = StudyWorker.objects.get()
    next_page = reverse("campaign-next", args=[crowd.pk])
    assert "completion-code" not in client.get(next_page).content.decode()
    judge_all(worker.user, 1000)
    # The judging page of the last topic leads to the next-topic page.
    last = Assignment.objects.filter(assessor=worker.user).last().topic
    judging = client.get(reverse("judge", args=[crowd.pk, last.external_id])).content.decode()
    assert f'data-next-url="{next_page}"' in judging
    page = client.get(next_page).content.decode()
    assert '<strong id="completion-code">C0DE1234</strong>' in page
    assert 'href="https://app.prolific.com/submissions/complete?cc=C0DE1234"' in page
    worker.refresh_from_db()
    assert worker.completed_at is not None


def test_after_the_last_topic_an_mturk_worker_gets_the_submit_form(crowd, mturk):
    client = Client()
    client.get(f"/study/{mturk.token}/", mturk_query())
    worker = StudyWorker.objects.get()
    judge_all(worker.user, 1000)
    answer = client.get(reverse("campaign-next", args=[crowd.pk]))
    page = answer.content.decode()
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in page
    assert 'name="assignmentId" value="3ASSIGN0000EXAMPLE"' in page
    assert "form-action 'self' https://workersandbox.mturk.com" in answer["Content-Security-Policy"]


def test_the_time_csv_has_each_workers_figures(crowd, prolific, people):
    prolific_visit(Client(), prolific, PID_A)
    prolific_visit(Client(), prolific, PID_B)
    a = StudyWorker.objects.get(worker_id=PID_A)
    b = StudyWorker.objects.get(worker_id=PID_B)
    judge_all(a.user, 61_500)  # two topics: 123,000 ms
    first = Assignment.objects.filter(assessor=b.user).first().topic
    save_judgment(topic=first, assessor=b.user, payload={"matches": {}}, status="draft", version=0, active_ms=4_250)
    client = Client()
    client.force_login(people["organiser"])
    client.get(reverse("campaign-next", args=[crowd.pk]))  # an organiser's visit completes nobody
    worker_client = Client()
    prolific_visit(worker_client, prolific, PID_A)
    worker_client.get(reverse("campaign-next", args=[crowd.pk]))
    answer = client.get(reverse("campaign-study-time", args=[crowd.pk]))
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    assert "attachment" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert [
        (r["platform"], r["worker_id"], r["topics_submitted"], r["active_ms"], r["active_seconds"]) for r in rows
    ] == [
        ("prolific", PID_A, "2", "123000", "123.0"),
        ("prolific", PID_B, "0", "4250", "4.25"),
    ]
    assert rows[0]["completed_at"] and not rows[1]["completed_at"]
    assert rows[0]["first_visit"].startswith(str(a.first_visit.year))


def test_the_time_csv_is_the_organisers_only(crowd, prolific, people):
    url = reverse("campaign-study-time", args=[crowd.pk])
    alice = Client()
    alice.force_login(people["outsider"])
    assert alice.get(url).status_code in (403, 404)
    assert Client().get(url).status_code == 302  # to the login page


def test_the_organiser_makes_replaces_and_withdraws_the_link_on_its_page(crowd, people):
    client = Client()
    client.force_login(people["organiser"])
    url = reverse("campaign-study", args=[crowd.pk])
    assert "no open study link" in client.get(url).content.decode()
    made = client.post(
        url,
        {"action": "make", "platform": "prolific", "completion_code": "ABC123", "params.study.max_workers": "40"},
    )
    assert made.status_code == 303
    link = StudyLink.objects.get(campaign=crowd)
    crowd.refresh_from_db()
    assert crowd.params["study"] == {"max_workers": 40}
    page = client.get(url).content.decode()
    placeholders = "PROLIFIC_PID={{%PROLIFIC_PID%}}&amp;STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}"
    assert f"/study/{link.token}/?{placeholders}" in page
    assert client.post(url, {"action": "withdraw"}).status_code == 303
    link.refresh_from_db()
    assert link.withdrawn_at is not None
    members = client.get(reverse("campaign-members", args=[crowd.pk])).content.decode()
    assert url in members


@pytest.mark.parametrize(
    "form, field",
    [
        ({"action": "make", "platform": "prolific", "completion_code": ""}, "completion_code"),
        ({"action": "make", "platform": "prolific", "completion_code": "=cmd|x"}, "completion_code"),
        ({"action": "make", "platform": "mechanical", "completion_code": "A1"}, "platform"),
        (
            {"action": "make", "platform": "mturk", "completion_code": "A1", "params.study.topics_per_worker": "0"},
            "params.study.topics_per_worker",
        ),
        (
            {"action": "make", "platform": "mturk", "completion_code": "A1", "params.study.max_workers": "lots"},
            "params.study.max_workers",
        ),
        ({"action": "withdraw"}, "action"),
        ({"action": "delete"}, "action"),
    ],
)
def test_bad_input_on_the_study_page_gets_400_naming_the_field(crowd, people, form, field):
    client = Client()
    client.force_login(people["organiser"])
    params = dict(crowd.params)
    answer = client.post(reverse("campaign-study", args=[crowd.pk]), form)
    assert answer.status_code == 400 and f"Nothing changed: {field}:" in answer.content.decode()
    crowd.refresh_from_db()
    assert crowd.params == params and not StudyLink.objects.exists()


def test_an_assessor_cannot_reach_the_study_page(crowd, people):
    add_member(campaign=crowd, username="alice", role="assessor")
    client = Client()
    client.force_login(people["alice"])
    url = reverse("campaign-study", args=[crowd.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"action": "make", "platform": "prolific", "completion_code": "A"}).status_code == 403
    assert not StudyLink.objects.exists()


def test_study_params_are_checked_as_campaign_params(people):
    with pytest.raises(InvalidInput) as refused:
        create_campaign(creator=people["organiser"], kind="pairs", name="x", params={"study": {"max_workers": 0}})
    assert refused.value.field == "params.study.max_workers"
    with pytest.raises(InvalidInput) as refused:
        create_campaign(creator=people["organiser"], kind="pairs", name="x", params={"study": {"workers": 3}})
    assert refused.value.field == "params.study.workers"
    with pytest.raises(InvalidInput) as refused:
        create_campaign(
            creator=people["organiser"],
            kind="pairs",
            name="x",
            params={"design": "adaptive", "study": {"topics_per_worker": 3}},
        )
    assert refused.value.field == "params.study.topics_per_worker"
    # The default is let through, as a form sends every control it shows.
    create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="x",
        params={"design": "adaptive", "study": {"topics_per_worker": 10}},
    )


def test_an_adaptive_campaign_allocates_on_request_and_completes_when_nothing_is_left(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Adaptive crowd", overlap=1, params={"design": "adaptive"}
    )
    import_topics(campaign=campaign, topics=pairs_topics(1, candidates=1))
    link = make_link(campaign=campaign, organiser=people["organiser"], platform="prolific", completion_code="AD1")
    client = Client()
    assert prolific_visit(client, link).status_code == 303
    worker = StudyWorker.objects.get()
    assert not Assignment.objects.filter(assessor=worker.user).exists()  # nothing up front
    next_page = reverse("campaign-next", args=[campaign.pk])
    assert "completion-code" not in client.get(next_page).content.decode()
    answer = client.post(next_page)
    assert answer.status_code == 302  # to its one topic
    judge_all(worker.user, 500)
    page = client.post(next_page).content.decode()
    assert "budget" not in page and '<strong id="completion-code">AD1</strong>' in page
    assert Judgment.objects.filter(assessor=worker.user).count() == 1


def test_the_members_page_calls_a_study_workers_account_a_study_participant(crowd, prolific, people):
    """No password and no set-password link: the members table and the API say "study", not "existing"."""
    add_member(campaign=crowd, username="carol", role="assessor")
    assert prolific_visit(Client(), prolific, PID_A).status_code == 303
    organiser = Client()
    organiser.force_login(people["organiser"])
    page = organiser.get(reverse("campaign-members", args=[crowd.pk])).content.decode()
    assert "study participant: signs in through the campaign&#x27;s study link, no password" in page
    members = organiser.get(f"/api/campaigns/{crowd.pk}/members/").json()
    rows = members["results"] if isinstance(members, dict) else members
    account = {row["username"]: row["account"] for row in rows}
    assert account[f"prolific-{crowd.pk}-{PID_A}"] == "study"
    assert account["carol"] != "study"
