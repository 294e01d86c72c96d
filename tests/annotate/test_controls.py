"""Control items: the allocation rule (quiz first, then the rate, no repeats), control topics
handed out up front and on request, the queue in the order "Next topic" serves, and known
answers imported with topics (annotate/controls.py)."""

import random
from collections import Counter

import pytest

from annotate import controls
from annotate.adaptive import next_work
from annotate.controls import Rules, control_due, controls_wanted, interleave
from annotate.imports.write import import_topics
from annotate.models import Assignment, Control, Judgment, Topic
from annotate.selectors import assessor_queues
from annotate.services.assignments import top_up
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput

LABELS = {"level": "nominal", "categories": ["no", "yes"]}


# -- the rule, over counts ---------------------------------------------------------------


def test_the_quiz_comes_first_whatever_the_rate():
    rules = Rules(quiz_controls=3, control_rate=0.0)
    assert [control_due(c, 0, rules) for c in range(4)] == [True, True, True, False]
    assert interleave(list("abcd"), ["c1", "c2", "c3", "c4"], rules) == ["c1", "c2", "c3", *"abcd", "c4"]


def test_after_the_quiz_about_the_rate_of_topics_are_controls():
    rules = Rules(quiz_controls=2, control_rate=0.1)
    merged = interleave([f"r{k}" for k in range(90)], [f"c{k}" for k in range(50)], rules)
    first_100 = merged[:100]
    assert first_100[:2] == ["c0", "c1"]
    after_quiz = first_100[2:]
    assert sum(x.startswith("c") for x in after_quiz) == 9  # the 10th, 20th, ..., 90th after the quiz
    # Every window of ten topics after the quiz holds one control: spread, not bunched.
    assert all(sum(x.startswith("c") for x in after_quiz[k : k + 10]) == 1 for k in range(0, 90, 10))
    assert controls_wanted(90, rules) == 2 + 9


def test_with_a_phase_each_block_after_the_quiz_holds_one_control_at_a_place_drawn_for_the_assessor():
    rules = Rules(quiz_controls=1, control_rate=0.1)
    places = []
    for assessor in range(50):
        merged = interleave(
            [f"r{k}" for k in range(200)], [f"c{k}" for k in range(40)], rules, phase=controls.phases(f"1:{assessor}")
        )
        assert merged[0] == "c0"
        after = merged[1:201]
        assert all(sum(x.startswith("c") for x in after[k : k + 10]) == 1 for k in range(0, 200, 10))
        places.append(next(i for i, x in enumerate(after) if x.startswith("c")))
    # Drawn, not fixed: the first control after the quiz falls at many places of its block.
    assert len(set(places)) >= 5 and set(places) <= set(range(10))


def test_the_places_are_the_assessors_own_and_the_same_on_every_request():
    one, again, other = controls.phases("7:1"), controls.phases("7:1"), controls.phases("7:2")
    assert [one(k) for k in range(20)] == [again(k) for k in range(20)]
    assert [one(k) for k in range(20)] != [other(k) for k in range(20)]


def test_no_rule_no_control():
    assert not control_due(0, 0, Rules())
    assert controls_wanted(1000, Rules()) == 0
    assert interleave(["a", "b"], ["c"], Rules()) == ["a", "b", "c"]
    assert not Rules().mixes_controls


def test_a_draw_never_repeats_and_takes_what_there_is():
    rng = random.Random(3)
    assert sorted(controls.draw(range(5), 9, rng)) == [0, 1, 2, 3, 4]
    drawn = controls.draw(range(100), 20, rng)
    assert len(set(drawn)) == 20


def test_rules_read_every_default_in_one_place():
    assert controls.rules({"quiz_controls": None, "control_rate": 0.2}) == Rules(control_rate=0.2)
    assert controls.rules(None).pause_level == 0.99


# -- in a campaign -------------------------------------------------------------------------


def topics(regular: int, control: int) -> list[dict]:
    """``regular`` topics, then ``control`` topics whose first item's answer is known."""
    made = [
        {"external_id": f"t{k:02d}", "data": {"items": [{"id": "a", "text": f"A{k}"}, {"id": "b", "text": f"B{k}"}]}}
        for k in range(regular + control)
    ]
    for topic in made[regular:]:
        topic["controls"] = {"a": "yes"}
    return made


def labels_campaign(people, *, overlap=1, **params):
    """A labels campaign of alice and bob under ``params``. The quiz needs nothing unless a test
    says otherwise: these tests follow the allocation, whose answers are not the known ones
    (annotate/quality.py's rules have their own tests)."""
    params = {"quiz_minimum": 0.0, **params}
    campaign = create_campaign(
        creator=people["organiser"], kind="labels", name="C", overlap=overlap, params={**LABELS, **params}
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    return campaign


def work_through(campaign, user, steps):
    """The topics "Next topic" serves ``user``, each submitted before asking again."""
    served = []
    for _ in range(steps):
        work = next_work(campaign, user)
        if work.topic is None:
            break
        served.append(work.topic.external_id)
        payload = {"labels": {item["id"]: "no" for item in work.topic.data["items"]}}
        save_judgment(topic=work.topic, assessor=user, payload=payload, status="submitted", version=0)
    return served


CONTROL_IDS = {f"t{k:02d}" for k in range(10, 16)}


@pytest.mark.django_db
def test_up_front_control_topics_are_each_assessors_own_and_the_quiz_comes_first(people):
    campaign = labels_campaign(people, quiz_controls=2, control_rate=0.2)
    import_topics(campaign=campaign, topics=topics(10, 6))
    rows = list(Assignment.objects.filter(topic__campaign=campaign).values_list("topic__external_id", "assessor_id"))
    regular = Counter(t for t, _ in rows if t not in CONTROL_IDS)
    assert set(regular.values()) == {1} and len(regular) == 10  # the overlap counts regular topics only
    rules = controls.rules(campaign.params)
    for name in ("alice", "bob"):
        phase = controls.phases(controls.seed_of(campaign.pk, people[name].pk))
        mine = [t for t, a in rows if a == people[name].pk and t in CONTROL_IDS]
        assert len(mine) == len(set(mine)) == controls_wanted(5, rules, phase=phase)
        assert 3 <= len(mine) <= 4  # the quiz's two, and one or two in the blocks of five after it
        served = work_through(campaign, people[name], 20)
        assert len(served) == 5 + len(mine)
        assert set(served[:2]) <= CONTROL_IDS  # the quiz
        assert sum(t in CONTROL_IDS for t in served[2:7]) == 1  # one in the first block of five
        expected = interleave(["r"] * 5, ["c"] * len(mine), rules, phase=phase)
        assert ["c" if t in CONTROL_IDS else "r" for t in served] == expected


@pytest.mark.django_db
def test_the_home_queue_lists_the_topics_in_the_order_next_serves_them(people):
    campaign = labels_campaign(people, quiz_controls=1, control_rate=0.5)
    import_topics(campaign=campaign, topics=topics(10, 6))
    (queue,) = [q for q in assessor_queues(people["alice"]) if q.campaign == campaign]
    listed = [e.topic.external_id for e in queue.entries]
    assert listed[0] in CONTROL_IDS
    for _ in range(len(listed)):
        work = next_work(campaign, people["alice"])
        (queue,) = [q for q in assessor_queues(people["alice"]) if q.campaign == campaign]
        assert queue.next_topic == work.topic
        if work.topic is None:
            break
        save_judgment(
            topic=work.topic,
            assessor=people["alice"],
            payload={"labels": {"a": "no", "b": "no"}},
            status="submitted",
            version=0,
        )
    assert [e.topic.external_id for e in queue.entries] == listed  # the order holds as they go


@pytest.mark.django_db
def test_without_controls_nothing_changes(people):
    campaign = labels_campaign(people, quiz_controls=2, control_rate=0.2)
    import_topics(campaign=campaign, topics=topics(6, 0))
    assert Assignment.objects.filter(topic__campaign=campaign).count() == 6
    assert work_through(campaign, people["alice"], 10) == ["t00", "t02", "t04"]


@pytest.mark.django_db
def test_controls_without_a_quiz_or_rate_are_handed_out_to_nobody(people):
    campaign = labels_campaign(people)
    import_topics(campaign=campaign, topics=topics(4, 3))
    assert not Assignment.objects.filter(topic__external_id__in=CONTROL_IDS).exists()
    assert Counter(Assignment.objects.values_list("assessor__username", flat=True)) == {"alice": 2, "bob": 2}


@pytest.mark.django_db
def test_a_top_up_brings_an_assessor_to_the_controls_their_topics_call_for_without_repeats(people):
    campaign = labels_campaign(people, quiz_controls=1, control_rate=0.25)
    import_topics(campaign=campaign, topics=topics(6, 6))
    before = set(Assignment.objects.filter(assessor=people["alice"]).values_list("topic_id", flat=True))
    import_topics(campaign=campaign, topics=[{**t, "external_id": "n" + t["external_id"]} for t in topics(10, 0)])
    top_up(campaign)
    mine = list(
        Assignment.objects.filter(assessor=people["alice"], topic__controls__isnull=False)
        .distinct()
        .values_list("topic_id", flat=True)
    )
    assert len(mine) == len(set(mine)) == controls_wanted(8, controls.rules(campaign.params))
    assert before <= set(Assignment.objects.filter(assessor=people["alice"]).values_list("topic_id", flat=True))


@pytest.mark.django_db
def test_on_request_a_control_is_assigned_when_due(people):
    campaign = labels_campaign(people, design="adaptive", quiz_controls=1, control_rate=0.5)
    import_topics(campaign=campaign, topics=topics(6, 3))
    assert not Assignment.objects.exists()  # nothing up front
    served = work_through(campaign, people["alice"], 20)
    kinds = ["c" if t in {"t06", "t07", "t08"} else "r" for t in served]
    assert kinds[0] == "c"  # the quiz
    assert sorted(kinds[1:3]) == ["c", "r"] and sorted(kinds[3:5]) == ["c", "r"]  # then one in each two
    assert len(set(served)) == len(served) == 9
    assert kinds.count("c") == 3  # every control once, then none left to give
    phase = controls.phases(controls.seed_of(campaign.pk, people["alice"].pk))
    assert kinds == interleave(["r"] * 6, ["c"] * 3, controls.rules(campaign.params), phase=phase)


# -- import ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_known_answers_are_stored_apart_from_the_topic(people):
    campaign = labels_campaign(people)
    made = topics(1, 1)
    made[1]["attention_checks"] = {"b": "no"}
    import_topics(campaign=campaign, topics=made)
    control = Topic.objects.get(campaign=campaign, external_id="t01")
    assert control.data == {"items": [{"id": "a", "text": "A1"}, {"id": "b", "text": "B1"}]}
    assert sorted(control.controls.values_list("item", "answer", "attention")) == [
        ("a", "yes", False),
        ("b", "no", True),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("key", "answers", "field"),
    [
        ("controls", {"a": "maybe"}, "topics[1].controls.a"),
        ("controls", {"z": "yes"}, "topics[1].controls.z"),
        ("attention_checks", {"a": "perhaps"}, "topics[1].attention_checks.a"),
        ("controls", ["a"], "topics[1].controls"),
    ],
)
def test_a_bad_known_answer_refuses_the_file_naming_it_and_writes_nothing(people, key, answers, field):
    campaign = labels_campaign(people)
    made = topics(2, 0)
    made[1][key] = answers
    with pytest.raises(InvalidInput) as error:
        import_topics(campaign=campaign, topics=made)
    assert error.value.field == field
    assert not Topic.objects.filter(campaign=campaign).exists()
    assert not Control.objects.exists() and not Judgment.objects.exists()


@pytest.mark.django_db
def test_an_item_both_control_and_attention_check_is_refused(people):
    campaign = labels_campaign(people)
    made = topics(1, 1)
    made[1]["attention_checks"] = {"a": "no"}
    with pytest.raises(InvalidInput) as error:
        import_topics(campaign=campaign, topics=made)
    assert error.value.field == "topics[1].attention_checks.a"


@pytest.mark.django_db
def test_a_kind_without_known_answers_refuses_controls(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=1)
    topic = {"external_id": "o1", "data": {"items": [{"id": "x", "text": "X"}, {"id": "y", "text": "Y"}]}}
    with pytest.raises(InvalidInput, match="cannot be checked against known answers") as error:
        import_topics(campaign=campaign, topics=[{**topic, "controls": {"x": 1}}])
    assert error.value.field == "topics[0].controls.x"


# -- the topics API ----------------------------------------------------------------------


@pytest.mark.django_db
def test_an_organiser_posts_topics_with_known_answers_which_no_one_reads_back(people, api):
    campaign = labels_campaign(people, quiz_controls=1)
    url = f"/api/campaigns/{campaign.pk}/topics/"
    bad = topics(1, 1)
    bad[1]["controls"] = {"a": "perhaps"}
    refused = api(people["organiser"]).post(url, bad, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "topics[1].controls.a"
    assert not Topic.objects.filter(campaign=campaign).exists()
    assert api(people["alice"]).post(url, topics(1, 1), format="json").status_code == 403
    made = api(people["organiser"]).post(url, topics(1, 1), format="json")
    assert made.status_code == 201
    assert list(Control.objects.values_list("topic__external_id", "item", "answer")) == [("t01", "a", "yes")]
    for who in ("organiser", "alice"):
        listed = api(people[who]).get(url)
        assert listed.status_code == 200
        assert "controls" not in listed.content.decode() and all(set(t) >= {"data"} for t in listed.json())


# -- backup ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_backup_keeps_the_known_answers(people):
    import json

    from annotate.imports import backup

    campaign = labels_campaign(people)
    made = topics(1, 1)
    made[1]["attention_checks"] = {"b": "no"}
    import_topics(campaign=campaign, topics=made)
    document = json.loads(json.dumps(backup.dump_campaign(campaign)))
    restored = backup.load_campaign(document, creator=people["organiser"])
    assert sorted(
        Control.objects.filter(topic__campaign=restored).values_list(
            "topic__external_id", "item", "answer", "attention"
        )
    ) == [
        ("t01", "a", "yes", False),
        ("t01", "b", "no", True),
    ]
    document["controls"][0]["answer"] = {"not": "an answer"}
    with pytest.raises(InvalidInput) as error:
        backup.load_campaign(document, creator=people["organiser"])
    assert error.value.field == "file.controls[0].answer"


# -- a kind that shares a topic's items out -----------------------------------------------


def test_a_control_share_is_as_large_as_a_regular_one_its_known_items_first():
    from kinds.registry import get_kind

    kind = get_kind("preference").data
    data = {"prompt": "p", "outputs": [{"system": s, "text": s} for s in "abcd"]}  # six pairs
    assert controls.share_of(kind, data, ["1-2", "3-4"], ["2-4"]) == ["1-2", "2-4"]
    assert controls.share_of(kind, data, ["1-2", "3-4"], ["2-4", "1-3", "1-4"]) == ["1-3", "2-4"]
    assert controls.share_of(kind, data, None, ["2-4"]) is None


@pytest.mark.django_db
def test_preference_control_assignments_hold_the_known_pair(people):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="preference",
        name="P",
        overlap=1,
        params={"pairs_per_assignment": 1, "quiz_controls": 1},
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    outputs = [{"system": s, "text": f"{s} says"} for s in ("x", "y", "z")]
    made = [{"external_id": f"p{k}", "data": {"prompt": f"Q{k}", "outputs": outputs}} for k in range(3)]
    made[2]["controls"] = {"2-3": "z"}
    import_topics(campaign=campaign, topics=made)
    control = Assignment.objects.get(assessor=people["alice"], topic__external_id="p2")
    assert control.items == ["2-3"]
    assert Control.objects.get(topic=control.topic).answer == 3
    assert next_work(campaign, people["alice"]).topic.external_id == "p2"


# -- large imports, the command, and the reports ------------------------------------------


@pytest.mark.django_db
def test_a_fenced_import_writes_the_known_answers_before_the_assignments(people, monkeypatch):
    from annotate.imports import fence

    monkeypatch.setattr(fence, "BATCH", 3)
    monkeypatch.setattr(fence, "PAUSE", 0)
    campaign = labels_campaign(people, quiz_controls=1)
    import_topics(campaign=campaign, topics=topics(10, 6))
    assert Control.objects.filter(topic__campaign=campaign).count() == 6
    regular = Assignment.objects.filter(topic__campaign=campaign).exclude(topic__external_id__in=CONTROL_IDS)
    assert regular.count() == 10  # the overlap: control topics are not among them
    for name in ("alice", "bob"):
        assert Assignment.objects.filter(assessor=people[name], topic__external_id__in=CONTROL_IDS).count() == 1


@pytest.mark.django_db
def test_the_import_topics_command_takes_known_answers(people, tmp_path):
    import json

    from django.core.management import call_command

    campaign = labels_campaign(people)
    path = tmp_path / "topics.json"
    path.write_text(json.dumps(topics(2, 1)))
    call_command("import_topics", str(campaign.pk), str(path))
    assert list(Control.objects.values_list("topic__external_id", "item", "answer")) == [("t02", "a", "yes")]


@pytest.mark.django_db
def test_changing_controls_marks_every_topic_for_a_rebuild(people):
    from annotate.services import controls as control_items
    from scoring.models import StaleTopic

    campaign = labels_campaign(people)
    import_topics(campaign=campaign, topics=topics(4, 0))
    StaleTopic.objects.filter(campaign=campaign).delete()
    control_items.mark(campaign, "t01,a,yes")
    assert StaleTopic.objects.filter(campaign=campaign).count() == 4
    StaleTopic.objects.filter(campaign=campaign).delete()
    control_items.unmark(campaign, "t01")
    assert StaleTopic.objects.filter(campaign=campaign).count() == 4
    StaleTopic.objects.filter(campaign=campaign).delete()
    control_items.set_rules(campaign, {"control_rate": 0.2})
    assert StaleTopic.objects.filter(campaign=campaign).count() == 4


@pytest.mark.django_db
def test_a_backup_keeps_who_is_paused_and_every_pause_on_record(people):
    """A restored campaign leaves a paused assessor's judgments out as the original does, and keeps
    each pause and reinstatement with who, when, why and the evidence; a bad record restores nothing."""
    import json

    from annotate import quality
    from annotate.imports import backup
    from annotate.models import Campaign, Membership, PauseRecord

    campaign = labels_campaign(people, quiz_controls=1)
    import_topics(campaign=campaign, topics=topics(1, 1))
    quality.pause(campaign=campaign, username="alice", by=people["organiser"], reason="copied answers")
    quality.reinstate(campaign=campaign, username="alice", by=people["organiser"], reason="explained")
    quality.pause(campaign=campaign, username="alice", by=people["organiser"], reason="copied again")
    document = json.loads(json.dumps(backup.dump_campaign(campaign)))
    restored = backup.load_campaign(document, creator=people["organiser"])
    original = Membership.objects.get(campaign=campaign, user=people["alice"])
    again = Membership.objects.get(campaign=restored, user=people["alice"])
    assert (again.paused_at, again.pause_reason) == (original.paused_at, original.pause_reason)
    assert again.pause_reason.startswith("copied again")
    assert Membership.objects.get(campaign=restored, user=people["bob"]).paused_at is None

    def records(c):
        return list(
            PauseRecord.objects.filter(membership__campaign=c)
            .order_by("at", "id")
            .values_list("membership__user__username", "action", "by__username", "at", "reason", "evidence")
        )

    assert records(restored) == records(campaign) and len(records(campaign)) == 3
    count = Campaign.objects.count()
    for path, value, field in (
        (("pauses", 1, "at"), "yesterday", "file.pauses[1].at"),
        (("pauses", 0, "member"), "nobody", "file.pauses[0].member"),
        (("pauses", 2, "action"), "ban", "file.pauses[2].action"),
    ):
        broken = json.loads(json.dumps(document))
        broken[path[0]][path[1]][path[2]] = value
        with pytest.raises(InvalidInput) as error:
            backup.load_campaign(broken, creator=people["organiser"])
        assert error.value.field == field
    broken = json.loads(json.dumps(document))
    alice = next(m for m in broken["members"] if m["username"] == "alice")
    alice["paused_at"] = 5
    with pytest.raises(InvalidInput) as error:
        backup.load_campaign(broken, creator=people["organiser"])
    assert error.value.field.endswith(".paused_at")
    assert Campaign.objects.count() == count
