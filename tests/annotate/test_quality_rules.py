"""Control items measured and acted on (annotate/quality.py): each assessor's accuracy with its
interval, the pausing rules applied on each submission of a control topic (quiz, accuracy,
attention checks, too fast), and what a paused assessor is refused and told."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate import quality
from annotate.controls import Rules, rules
from annotate.imports.write import import_topics
from annotate.models import Control, Judgment, Membership, PauseRecord
from annotate.quality import Paused
from annotate.services.assignments import reassign_topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from scoring.selectors import report_input
from stats import quality as stats_quality

pytestmark = pytest.mark.django_db


def labels_campaign(people, *, topics: int = 30, items: int = 1, **params):
    """A labels campaign (yes/no, "can't tell" allowed) judged by alice and bob, each topic by both."""
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Quality",
        overlap=2,
        params={"categories": ["yes", "no"], "cant_tell": True, **params},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    add_member(campaign=campaign, username="bob", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": f"t{n:02d}",
                "data": {"items": [{"id": f"i{k}", "text": f"item {n}.{k}"} for k in range(1, items + 1)]},
            }
            for n in range(topics)
        ],
    )
    return campaign


def control(campaign, n: int, answer="yes", *, item: str = "i1", attention: bool = False) -> None:
    Control.objects.create(
        topic=campaign.topics.get(external_id=f"t{n:02d}"), item=item, answer=answer, attention=attention
    )


def submit(campaign, n: int, user, labels, *, active_ms: int = 60_000):
    topic = campaign.topics.get(external_id=f"t{n:02d}")
    if not isinstance(labels, dict):
        labels = {"i1": labels}
    return save_judgment(
        topic=topic, assessor=user, payload={"labels": labels}, status="submitted", version=0, active_ms=active_ms
    )


def paused(campaign, name: str) -> Membership:
    return Membership.objects.get(campaign=campaign, user__username=name)


# --------------------------------------------------------------------------- the figures


def test_rules_read_the_params_with_their_defaults():
    assert rules({}) == Rules(pause_threshold=0.7, pause_minimum=10, pause_level=0.99, quiz_minimum=0.7)
    assert rules({"pause_threshold": 0, "pause_minimum": 4, "attention_failures": 2, "quiz_minimum": None}) == Rules(
        pause_threshold=0.0, pause_minimum=4, attention_failures=2
    )


def test_accuracy_counts_and_its_wilson_interval_equal_stats_quality(people):
    campaign = labels_campaign(people, topics=16, pause_threshold=0)
    for n in range(14):
        control(campaign, n)
    control(campaign, 14, "no", attention=True)
    alice = people["alice"]
    # 7 right, 3 wrong, 2 "can't tell" (not counted either way), 2 more right: 9 of 12 answered.
    answers = ["yes"] * 7 + ["no"] * 3 + [None, None] + ["yes", "yes"]
    for n, label in enumerate(answers):
        submit(campaign, n, alice, label, active_ms=4000)
    submit(campaign, 14, alice, "yes", active_ms=2000)  # the attention check, failed
    submit(campaign, 15, alice, "no")  # not a control: no figure reads it
    line = next(q for q in quality.campaign_quality(campaign) if q.username == "alice")
    f = line.figures
    expected = stats_quality.control_accuracy(9, 12, level=0.99)
    assert (f.answered, f.credit, f.accuracy, f.method, f.level) == (12, 9.0, 0.75, "wilson", 0.99)
    assert (f.low, f.high) == pytest.approx((float(expected.low), float(expected.high)), abs=1e-12)
    assert (f.cant_tell, f.cant_tell_share) == (2, 2 / 14)
    assert (f.attention_checks, f.attention_failed, f.failed_checks) == (1, 1, 1)
    assert f.control_topics == 15 and line.submitted == 16
    # 14 judgments of 4 s and one of 2 s, one item each: 58 s over 15 items.
    assert f.seconds_per_item == pytest.approx(58 / 15)
    bob = next(q for q in quality.campaign_quality(campaign) if q.username == "bob")
    assert (bob.figures.answered, bob.figures.accuracy, bob.figures.low, bob.figures.high) == (0, None, 0.0, 1.0)


def test_part_credit_on_an_ordered_scale_takes_hoeffdings_bound(people):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Ordinal",
        overlap=1,
        params={"level": "ordinal", "categories": ["1", "2", "3", "4", "5"], "pause_threshold": 0},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(
        campaign=campaign,
        topics=[{"external_id": f"t{n:02d}", "data": {"items": [{"id": "i1", "text": "x"}]}} for n in range(3)],
    )
    for n in range(3):
        control(campaign, n, "5")
    for n, label in enumerate(["4", "5", "1"]):
        submit(campaign, n, people["alice"], label)
    f = quality.assessor_quality(campaign, people["alice"].pk)
    expected = stats_quality.weighted_score([4, 5, 1], [5, 5, 5], scale=(1, 5), level=0.99)
    assert (f.method, f.credit, f.answered) == ("hoeffding", 1.75, 3)
    assert (f.low, f.high) == pytest.approx((float(expected.low[0]), float(expected.high[0])), abs=1e-9)


def test_only_the_assessors_share_of_a_control_topic_counts(people):
    campaign = labels_campaign(people, topics=1, items=3, pause_threshold=0)
    control(campaign, 0, "yes", item="i1")
    control(campaign, 0, "no", item="i3")
    alice = people["alice"]
    campaign.topics.get().assignments.filter(assessor=alice).update(items=["i1", "i2"])
    submit(campaign, 0, alice, {"i1": "no", "i2": "yes"})
    f = quality.assessor_quality(campaign, alice.pk)
    assert (f.answered, f.credit, f.cant_tell) == (1, 0.0, 0)


def test_the_table_reads_a_bounded_number_of_queries(people):
    campaign = labels_campaign(people, topics=12, pause_threshold=0)
    for n in range(12):
        control(campaign, n)
    for user in (people["alice"], people["bob"]):
        for n in range(12):
            submit(campaign, n, user, "yes")
    with CaptureQueriesContext(connection) as queries:
        quality.campaign_quality(campaign)
    # controls, control judgments, their topics, the members, one grouped count
    assert len(queries) == 5


# --------------------------------------------------------------------------- the rules


def test_nobody_is_paused_before_the_minimum(people):
    campaign = labels_campaign(people, pause_minimum=10)
    for n in range(10):
        control(campaign, n)
    alice = people["alice"]
    for n in range(9):
        submit(campaign, n, alice, "no")
    assert paused(campaign, "alice").paused_at is None
    submit(campaign, 9, alice, "no")  # the tenth wrong answer
    membership = paused(campaign, "alice")
    assert membership.paused_at is not None
    assert membership.pause_reason == (
        "0 of 10 controls right; the 99% interval's upper bound 0.40 is below the 0.70 required"
    )
    record = PauseRecord.objects.get(membership=membership)
    assert (record.action, record.by, record.reason) == ("pause", None, membership.pause_reason)
    assert record.evidence["answered"] == 10 and record.evidence["credit"] == 0
    assert record.evidence["threshold"] == 0.7 and record.evidence["level"] == 0.99
    assert record.evidence["minimum"] == 10 and record.evidence["rules"] == ["accuracy"]
    assert record.evidence["interval"][1] == pytest.approx(
        float(stats_quality.control_accuracy(0, 10, level=0.99).high)
    )


def test_paused_only_when_the_upper_bound_is_below_the_threshold(people):
    """At 99% Wilson and 0.7 required, 4 right of 10 and of 11 go on (upper bounds 0.78, 0.74)
    and 4 of 12 is paused (0.69), as stats.quality.should_pause decides."""
    campaign = labels_campaign(people, topics=12, pause_minimum=10)
    for n in range(12):
        control(campaign, n)
    bob = people["bob"]
    answers = ["yes"] * 4 + ["no"] * 8
    for n, label in enumerate(answers[:11]):
        submit(campaign, n, bob, label)
    assert stats_quality.should_pause(4, 11, threshold=0.7, minimum=10, level=0.99)[0].paused is False
    assert paused(campaign, "bob").paused_at is None
    submit(campaign, 11, bob, "no")
    expected = stats_quality.should_pause(4, 12, threshold=0.7, minimum=10, level=0.99)[0]
    assert expected.paused is True
    assert paused(campaign, "bob").paused_at is not None
    assert paused(campaign, "bob").pause_reason == expected.reason


def test_pause_threshold_zero_pauses_nobody_on_accuracy(people):
    campaign = labels_campaign(people, topics=12, pause_threshold=0)
    for n in range(12):
        control(campaign, n)
    for n in range(12):
        submit(campaign, n, people["alice"], "no")
    assert paused(campaign, "alice").paused_at is None


def test_the_quiz_pauses_after_the_first_controls_below_its_minimum(people):
    campaign = labels_campaign(people, topics=6, quiz_controls=3, quiz_minimum=0.7)
    for n in range(6):
        control(campaign, n)
    alice, bob = people["alice"], people["bob"]
    submit(campaign, 0, alice, "yes")
    submit(campaign, 1, alice, "no")
    assert paused(campaign, "alice").paused_at is None  # two of three: not judged yet
    submit(campaign, 2, alice, "yes")  # 2 of 3 right: 67% < 70%
    membership = paused(campaign, "alice")
    assert membership.pause_reason == (
        "the qualifying quiz: 2 of 3 items right in your first 3 control topics (67%), below the 70% needed"
    )
    assert PauseRecord.objects.get(membership=membership).evidence["rules"] == ["quiz"]
    for n in range(3):
        submit(campaign, n, bob, "yes")
    submit(campaign, 3, bob, "no")  # past the quiz: a wrong answer is the accuracy rule's (minimum 10)
    assert paused(campaign, "bob").paused_at is None


def test_failed_attention_checks_pause(people):
    campaign = labels_campaign(people, topics=4, attention_failures=2, pause_threshold=0)
    for n in range(3):
        control(campaign, n, "no", attention=True)
    alice = people["alice"]
    submit(campaign, 0, alice, "yes")
    submit(campaign, 1, alice, "no")  # passed
    assert paused(campaign, "alice").paused_at is None
    submit(campaign, 2, alice, None)  # "can't tell" on an attention check fails it
    assert paused(campaign, "alice").pause_reason == "2 attention checks failed; pausing at 2"


def test_a_too_fast_control_submission_counts_as_a_failed_check(people):
    campaign = labels_campaign(
        people, topics=4, items=2, attention_failures=1, min_seconds_per_item=3, pause_threshold=0
    )
    control(campaign, 0)
    control(campaign, 1)
    alice = people["alice"]
    submit(campaign, 0, alice, {"i1": "yes", "i2": "no"}, active_ms=6000)  # 3 s an item: not too fast
    assert paused(campaign, "alice").paused_at is None
    submit(campaign, 2, alice, {"i1": "yes", "i2": "no"}, active_ms=100)  # not a control: not read
    assert paused(campaign, "alice").paused_at is None
    submit(campaign, 1, alice, {"i1": "yes", "i2": "no"}, active_ms=5999)
    membership = paused(campaign, "alice")
    assert membership.pause_reason.endswith("1 attention check failed; pausing at 1")
    evidence = PauseRecord.objects.get(membership=membership).evidence
    assert (evidence["too_fast"], evidence["attention_failed"], evidence["rules"]) == (1, 0, ["attention"])


def test_the_rules_run_only_on_a_submission_of_a_control_topic(people, monkeypatch):
    campaign = labels_campaign(people, topics=3, quiz_controls=1, attention_failures=1, min_seconds_per_item=10)
    control(campaign, 0)
    called = []
    monkeypatch.setattr(quality, "apply_rules", lambda topic, assessor: called.append(topic.external_id))
    alice = people["alice"]
    topic = campaign.topics.get(external_id="t00")
    save_judgment(topic=topic, assessor=alice, payload={"labels": {"i1": "no"}}, status="draft", version=0)
    submit(campaign, 1, alice, "no", active_ms=1)
    assert called == []
    save_judgment(topic=topic, assessor=alice, payload={"labels": {"i1": "no"}}, status="submitted", version=1)
    assert called == ["t00"]


# --------------------------------------------------------------------------- a paused assessor


def paused_alice(people, **params):
    campaign = labels_campaign(people, topics=12, pause_minimum=10, **params)
    for n in range(10):
        control(campaign, n)
    alice = people["alice"]
    topic = campaign.topics.get(external_id="t11")
    save_judgment(topic=topic, assessor=alice, payload={"labels": {"i1": "yes"}}, status="draft", version=0)
    for n in range(10):
        submit(campaign, n, alice, "no")
    assert paused(campaign, "alice").paused_at is not None
    return campaign, alice


def test_a_paused_assessor_saves_nothing_and_loses_nothing(people):
    campaign, alice = paused_alice(people)
    draft = Judgment.objects.get(topic__external_id="t11", assessor=alice)
    with pytest.raises(Paused) as refused:
        save_judgment(
            topic=draft.topic, assessor=alice, payload={"labels": {"i1": "no"}}, status="draft", version=draft.version
        )
    assert "paused" in str(refused.value) and "0 of 10 controls right" in str(refused.value)
    with pytest.raises(Paused):
        submit(campaign, 10, alice, "yes")
    kept = Judgment.objects.get(pk=draft.pk)
    assert (kept.payload, kept.version, kept.status) == ({"labels": {"i1": "yes"}}, draft.version, "draft")
    assert not Judgment.objects.filter(topic__external_id="t10", assessor=alice).exists()
    assert Judgment.objects.filter(assessor=alice, status="submitted").count() == 10
    # A retry of the very submission that paused her finds it saved.
    last = Judgment.objects.get(topic__external_id="t09", assessor=alice)
    again = save_judgment(
        topic=last.topic, assessor=alice, payload={"labels": {"i1": "no"}}, status="submitted", version=0
    )
    assert again.replayed is True


def test_the_api_refuses_a_paused_assessor_saying_why(api, people):
    campaign, alice = paused_alice(people)
    client = api(alice)
    url = f"/api/campaigns/{campaign.pk}/topics/t11/judgment/"
    answer = client.put(url, {"payload": {"labels": {"i1": "no"}}, "status": "draft", "version": 1}, format="json")
    assert answer.status_code == 403
    assert answer.json()["field"] == "paused" and "0 of 10 controls right" in answer.json()["detail"]
    assert client.get(url).json()["payload"] == {"labels": {"i1": "yes"}}  # reading her own stays open
    reopen = client.post(f"/api/campaigns/{campaign.pk}/topics/t00/judgment/reopen/", {"version": 1}, format="json")
    assert (reopen.status_code, reopen.json()["field"]) == (403, "paused")
    nxt = client.post(f"/api/campaigns/{campaign.pk}/next-topic/")
    assert (nxt.status_code, nxt.json()["field"]) == (403, "paused")
    assert api(people["bob"]).post(f"/api/campaigns/{campaign.pk}/next-topic/").status_code == 200


def test_the_pages_tell_a_paused_assessor_why(client, people):
    campaign, alice = paused_alice(people)
    client.force_login(alice)
    for url in (f"/campaigns/{campaign.pk}/topics/t11/judge/", f"/campaigns/{campaign.pk}/next/"):
        answer = client.get(url)
        assert answer.status_code == 403, url
        assert "You are paused in this campaign" in answer.content.decode()
        assert "0 of 10 controls right" in answer.content.decode()
    assert client.post(f"/campaigns/{campaign.pk}/next/").status_code == 403
    home = client.get("/").content.decode()
    assert "Paused: 0 of 10 controls right" in home and f"/campaigns/{campaign.pk}/topics/t10/judge/" not in home
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert 'id="paused-notice"' in page
    client.force_login(people["bob"])
    assert client.get(f"/campaigns/{campaign.pk}/topics/t11/judge/").status_code == 200
    assert "Paused" not in client.get("/").content.decode()


def test_a_paused_assessors_judgments_leave_the_figures_and_come_back(people):
    campaign, alice = paused_alice(people)
    assert {row.assessor for row in report_input(campaign).judgments} == set()
    quality.reinstate(campaign=campaign, username="alice", by=people["organiser"], reason="talked it over")
    assert {row.assessor for row in report_input(campaign).judgments} == {"alice"}
    assert len(report_input(campaign).judgments) == 10


def test_a_paused_assessor_is_given_no_new_topic(people):
    campaign, alice = paused_alice(people)
    add_member(campaign=campaign, username="carol", role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "new", "data": {"items": [{"id": "i1", "text": "x"}]}}])
    assigned = set(campaign.topics.get(external_id="new").assignments.values_list("assessor__username", flat=True))
    assert assigned == {"bob", "carol"}
    with pytest.raises(InvalidInput) as refused:
        reassign_topic(campaign=campaign, topic="new", from_assessor="carol", to_assessor="alice")
    assert refused.value.field == "to_assessor" and "paused" in refused.value.message


def test_the_rules_cost_the_same_few_queries_however_many_controls(people):
    """A control submission reads the membership (locked), the latest reinstatement, the
    controls, the assessor's control judgments and their topics: five queries beyond the save's,
    whether it is the assessor's third control or their twentieth."""
    campaign = labels_campaign(people, topics=24, pause_threshold=0)
    for n in range(22):
        control(campaign, n)
    alice = people["alice"]

    def cost(n: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            submit(campaign, n, alice, "yes")
        return len(queries)

    plain = cost(22)  # not a control
    for n in range(2):
        submit(campaign, n, alice, "yes")
    third = cost(2)
    for n in range(3, 19):
        submit(campaign, n, alice, "yes")
    twentieth = cost(19)
    assert third == twentieth == plain + 5
