"""Saving judgments: versions, revisions, conflicts, bad input changes nothing."""

import pytest

from annotate.models import REVISION_PAYLOAD, Judgment, JudgmentRevision, Topic
from annotate.services.judgments import Conflict, NotAssigned, save_judgment
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db

ALL_MATCH = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def alice_topic(campaign, people) -> Topic:
    return Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()


def test_every_save_appends_a_revision_and_bumps_the_version(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    first = save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": True}}, status="draft", version=0)
    second = save_judgment(topic=topic, assessor=alice, payload=ALL_MATCH, status="submitted", version=1)
    assert (first.judgment.version, second.judgment.version) == (1, 2)
    revisions = list(
        JudgmentRevision.objects.filter(judgment=second.judgment)
        .annotate(payload_of=REVISION_PAYLOAD)
        .values_list("version", "status", "payload_of")
    )
    assert revisions == [(1, "draft", {"matches": {"c1": True}}), (2, "submitted", ALL_MATCH)]
    assert second.judgment.submitted_at is not None


def test_a_stale_version_is_refused_and_changes_nothing(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": True}}, status="draft", version=0)
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": False}}, status="draft", version=1)
    with pytest.raises(Conflict) as error:
        save_judgment(topic=topic, assessor=alice, payload=ALL_MATCH, status="submitted", version=1)
    assert error.value.current_version == 2
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    assert (judgment.version, judgment.payload, judgment.status) == (2, {"matches": {"c1": False}}, "draft")
    assert judgment.revisions.count() == 2


def test_a_retried_save_is_recognised_and_not_duplicated(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    save_judgment(topic=topic, assessor=alice, payload=ALL_MATCH, status="submitted", version=0)
    again = save_judgment(topic=topic, assessor=alice, payload=ALL_MATCH, status="submitted", version=0)
    assert again.replayed and again.judgment.version == 1
    assert JudgmentRevision.objects.filter(judgment=again.judgment).count() == 1


def test_new_judgment_needs_version_zero(campaign, people):
    with pytest.raises(Conflict):
        save_judgment(
            topic=alice_topic(campaign, people), assessor=people["alice"], payload=ALL_MATCH, status="draft", version=3
        )
    assert not Judgment.objects.exists()


@pytest.mark.parametrize(
    ("payload", "status", "version", "field"),
    [
        ({"matches": {"c1": True}}, "submitted", 0, "payload.matches"),
        ({"matches": {"zzz": True}}, "draft", 0, "payload.matches.zzz"),
        ({"matches": {"c1": "true"}}, "draft", 0, "payload.matches.c1"),
        (ALL_MATCH, "final", 0, "status"),
        (ALL_MATCH, "draft", -1, "version"),
        (ALL_MATCH, "draft", "0", "version"),
        (ALL_MATCH, "draft", True, "version"),
    ],
)
def test_bad_input_names_the_field_and_stores_nothing(campaign, people, payload, status, version, field):
    with pytest.raises(InvalidInput) as error:
        save_judgment(
            topic=alice_topic(campaign, people),
            assessor=people["alice"],
            payload=payload,
            status=status,
            version=version,
        )
    assert error.value.field == field
    assert not Judgment.objects.exists() and not JudgmentRevision.objects.exists()


def test_only_assigned_assessors_may_judge(campaign, people):
    topic = alice_topic(campaign, people)
    with pytest.raises(NotAssigned):
        save_judgment(topic=topic, assessor=people["carol"], payload=ALL_MATCH, status="draft", version=0)
