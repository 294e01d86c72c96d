"""Skipping topics, flags for the organisers, previous/next topic and active
time per topic (annotate/flags.py, annotate.services.judgments.save_judgment's
``active_ms``; docs/pages.md, "Skipping, flags and time"): services, API and pages.

The ``campaign`` fixture (conftest.py): pairs, topics q1-q3, each
assigned to alice and bob."""

from __future__ import annotations

import json
import statistics

import pytest
from django.urls import reverse

from annotate import flags, selectors
from annotate.imports.write import import_topics
from annotate.models import Assignment, Flag, Judgment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.flags import create_flag, resolve_flag, skip_topic, unskip_topic
from annotate.services.judgments import NotAssigned, save_judgment, withdraw_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.registry import KINDS
from scoring.progress import AssessorProgress, assessor_progress, median_of_counts

pytestmark = pytest.mark.django_db

DONE = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
PARTIAL = {"matches": {"c1": True}}


def topic(campaign, external_id: str) -> Topic:
    return campaign.topics.get(external_id=external_id)


def queue_of(user, campaign) -> selectors.CampaignQueue:
    return next(q for q in selectors.assessor_queues(user) if q.campaign.pk == campaign.pk)


def progress_of(campaign, username: str) -> AssessorProgress:
    return next(p for p in assessor_progress(campaign) if p.username == username)


def submit(campaign, user, external_id: str, active_ms: int = 0) -> Judgment:
    return save_judgment(
        topic=topic(campaign, external_id),
        assessor=user,
        payload=DONE,
        status="submitted",
        version=0,
        active_ms=active_ms,
    ).judgment


# -- skipping: services ---------------------------------------------------------------------


def test_a_skipped_topic_leaves_the_next_topic_order_until_unskipped(people, campaign):
    alice = people["alice"]
    assert queue_of(alice, campaign).next_topic.external_id == "q1"

    skip_topic(topic=topic(campaign, "q1"), assessor=alice, reason="  I know this person  ")
    queue = queue_of(alice, campaign)
    assert queue.next_topic.external_id == "q2"
    assert (queue.skipped, [e.skipped for e in queue.entries]) == (1, [True, False, False])
    assert queue.entries[0].skip_reason == "I know this person"
    assert queue_of(people["bob"], campaign).next_topic.external_id == "q1"  # bob's queue is his own
    assert progress_of(campaign, "alice").skipped == 1
    assert progress_of(campaign, "bob").skipped == 0

    unskip_topic(topic=topic(campaign, "q1"), assessor=alice)
    assert queue_of(alice, campaign).next_topic.external_id == "q1"
    assignment = Assignment.objects.get(topic__external_id="q1", topic__campaign=campaign, assessor=alice)
    assert (assignment.skipped_at, assignment.skip_reason) == (None, "")


def test_skipping_keeps_the_judgment_and_a_submitted_one_still_counts(people, campaign):
    alice = people["alice"]
    submit(campaign, alice, "q1")
    save_judgment(topic=topic(campaign, "q2"), assessor=alice, payload=PARTIAL, status="draft", version=0)
    skip_topic(topic=topic(campaign, "q1"), assessor=alice)
    skip_topic(topic=topic(campaign, "q2"), assessor=alice, reason="unclear query")

    judgments = {j.topic.external_id: (j.status, j.payload) for j in Judgment.objects.filter(assessor=alice)}
    assert judgments == {"q1": ("submitted", DONE), "q2": ("draft", PARTIAL)}
    queue = queue_of(alice, campaign)
    assert (queue.submitted, queue.skipped, queue.next_topic.external_id) == (1, 2, "q3")
    progress = progress_of(campaign, "alice")
    assert (progress.submitted, progress.drafts, progress.skipped) == (1, 1, 2)


def test_all_skipped_means_no_next_topic(people, campaign):
    for external_id in ("q1", "q2", "q3"):
        skip_topic(topic=topic(campaign, external_id), assessor=people["alice"])
    assert queue_of(people["alice"], campaign).next_topic is None


def test_a_bad_skip_names_the_field_and_writes_nothing(people, campaign):
    q1 = topic(campaign, "q1")
    for reason in ("x" * 2001, 7, "nul\x00"):
        with pytest.raises(InvalidInput) as refused:
            skip_topic(topic=q1, assessor=people["alice"], reason=reason)
        assert refused.value.field == "reason"
    with pytest.raises(NotAssigned):
        skip_topic(topic=q1, assessor=people["organiser"])
    assert not Assignment.objects.filter(skipped_at__isnull=False).exists()


# -- flags: services -------------------------------------------------------------------------


def test_flags_on_a_topic_and_on_one_of_its_items(people, campaign):
    q1 = topic(campaign, "q1")
    whole = create_flag(topic=q1, author=people["alice"], comment=" The query has a typo ")
    one = create_flag(topic=q1, author=people["alice"], comment="c2 is a duplicate of c1", item="c2")
    assert (whole.item, whole.comment, whole.is_open) == ("", "The query has a typo", True)
    assert (one.item, one.comment) == ("c2", "c2 is a duplicate of c1")
    assert flags.flaggable_items(q1, Assignment.objects.get(topic=q1, assessor=people["alice"])) == [
        ("c1", "Candidate 1.1"),
        ("c2", "Candidate 1.2"),
        ("c3", "Candidate 1.3"),
        ("c4", "Candidate 1.4"),
    ]
    assert [f.pk for f in flags.topic_flags(q1, people["bob"], "assessor")] == []
    assert {f.pk for f in flags.topic_flags(q1, people["organiser"], "organiser")} == {whole.pk, one.pk}


@pytest.mark.parametrize(
    ("comment", "item", "field"),
    [
        ("", "", "comment"),
        ("   ", "", "comment"),
        ("x" * 2001, "", "comment"),
        (None, "", "comment"),
        ("fine", "c9", "item"),
        ("fine", 3, "item"),
    ],
)
def test_a_bad_flag_names_the_field_and_writes_nothing(people, campaign, comment, item, field):
    with pytest.raises(InvalidInput) as refused:
        create_flag(topic=topic(campaign, "q1"), author=people["alice"], comment=comment, item=item)
    assert refused.value.field == field
    assert Flag.objects.count() == 0


def test_only_assigned_assessors_flag(people, campaign):
    with pytest.raises(NotAssigned):
        create_flag(topic=topic(campaign, "q1"), author=people["organiser"], comment="hm")
    assert Flag.objects.count() == 0


def test_every_kind_flags_what_its_page_shows_by_id_and_nothing_hidden(people):
    """Kind.flag_targets reads the assessor view: ordering items, clustering
    sentences, nuggets and responses, factoid summary sentences, candidates,
    documents; never a hidden field (a run, an original label, an author)."""
    expected = {
        "ordering": ["a", "b", "c"],
        "pairs": ["c1", "c2", "c3", "c4"],
        "relevance": ["d1", "d2", "d3", "d4"],
    }
    for name, spec in KINDS.items():
        view = spec.data.assessor_view(spec.examples.topic)
        targets = spec.data.flag_targets(view)
        assert targets and all(isinstance(i, str) and isinstance(t, str) for i, t in targets), name
        if name in expected:
            assert [i for i, _ in targets] == expected[name]
        shown = json.dumps(view)
        assert all(i in shown and t[:20] in shown for i, t in targets), f"{name}: a target the page does not show"
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="Steps", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    examples = KINDS["ordering"].examples
    (t1,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": examples.topic}])
    assert create_flag(topic=t1, author=people["alice"], comment="two steps in one", item="a").item == "a"
    with pytest.raises(InvalidInput) as refused:
        create_flag(topic=t1, author=people["alice"], comment="hm", item="zz")
    assert refused.value.field == "item"
    assert create_flag(topic=t1, author=people["alice"], comment="hm").item == ""


def test_an_item_flag_stays_within_the_assessors_part_of_the_topic(people):
    from tests.campaigns import pairs_topics

    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Split", overlap=1, params={"design": "one-per-item"}
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (q1,) = import_topics(campaign=campaign, topics=pairs_topics(1, candidates=6))
    mine = Assignment.objects.get(topic=q1, assessor=people["alice"]).items
    others = [c for c in ("c1", "c2", "c3", "c4", "c5", "c6") if c not in mine]
    mine_shown = [i for i, _ in flags.flaggable_items(q1, Assignment.objects.get(topic=q1, assessor=people["alice"]))]
    assert sorted(mine_shown) == sorted(mine)
    assert others, "the seeded draw gives bob some of the candidates"
    with pytest.raises(InvalidInput) as refused:
        create_flag(topic=q1, author=people["alice"], comment="?", item=others[0])
    assert refused.value.field == "item"
    assert create_flag(topic=q1, author=people["alice"], comment="?", item=mine[0]).item == mine[0]


def test_resolving_a_flag_with_an_answer(people, campaign):
    flag = create_flag(topic=topic(campaign, "q1"), author=people["alice"], comment="typo")
    with pytest.raises(InvalidInput) as refused:
        resolve_flag(flag=flag, organiser=people["organiser"], answer="y" * 2001)
    assert refused.value.field == "answer"
    assert Flag.objects.get(pk=flag.pk).resolved_at is None

    resolved = resolve_flag(flag=flag, organiser=people["organiser"], answer=" Fixed, thanks. ")
    assert (resolved.is_open, resolved.answer, resolved.resolved_by) == (False, "Fixed, thanks.", people["organiser"])
    again = resolve_flag(flag=flag, organiser=people["admin"], answer="Fixed, thanks.")  # a retry
    assert (again.resolved_by, again.resolved_at) == (people["organiser"], resolved.resolved_at)
    with pytest.raises(InvalidInput) as refused:
        resolve_flag(flag=flag, organiser=people["organiser"], answer="something else")
    assert refused.value.field == "flag"
    inbox = flags.inbox(campaign)
    assert ([f.pk for f in inbox.open.items], [f.pk for f in inbox.resolved.items]) == ([], [flag.pk])


# -- active time: services -------------------------------------------------------------------


def test_active_time_is_the_sum_of_the_saves_increments(people, campaign):
    q1, alice = topic(campaign, "q1"), people["alice"]
    save_judgment(topic=q1, assessor=alice, payload=PARTIAL, status="draft", version=0, active_ms=1500)
    save_judgment(topic=q1, assessor=alice, payload=DONE, status="draft", version=1, active_ms=2500)
    # A retried save (its answer was lost) adds nothing.
    replay = save_judgment(topic=q1, assessor=alice, payload=DONE, status="draft", version=1, active_ms=2500)
    assert replay.replayed
    save_judgment(topic=q1, assessor=alice, payload=DONE, status="submitted", version=2, active_ms=600_000)
    assert Judgment.objects.get(topic=q1, assessor=alice).active_ms == 604_000


@pytest.mark.parametrize("active_ms", [-1, 600_001, "5", True, 1.5, [], 10**12])
def test_a_bad_active_time_names_the_field_and_writes_nothing(people, campaign, active_ms):
    q1, alice = topic(campaign, "q1"), people["alice"]
    with pytest.raises(InvalidInput) as refused:
        save_judgment(topic=q1, assessor=alice, payload=PARTIAL, status="draft", version=0, active_ms=active_ms)
    assert refused.value.field == "active_ms"
    assert not Judgment.objects.filter(topic=q1).exists()


def test_progress_shows_median_and_total_active_time_per_submitted_topic(people, campaign):
    alice = people["alice"]
    submit(campaign, alice, "q1", active_ms=60_000)
    submit(campaign, alice, "q2", active_ms=120_000)
    save_judgment(
        topic=topic(campaign, "q3"), assessor=alice, payload=PARTIAL, status="draft", version=0, active_ms=999
    )
    submit(campaign, people["bob"], "q1", active_ms=30_000)
    alice_row, bob_row = progress_of(campaign, "alice"), progress_of(campaign, "bob")
    assert (alice_row.active_median_ms, alice_row.active_total_ms) == (90_000, 180_000)  # the draft does not count
    assert (bob_row.active_median_ms, bob_row.active_total_ms) == (30_000, 30_000)
    withdraw_judgment(topic=topic(campaign, "q1"), assessor=people["bob"], version=1)
    assert (progress_of(campaign, "bob").active_median_ms, progress_of(campaign, "bob").active_total_ms) == (None, 0)


def test_durations_read_as_people_read_them():
    from annotate.templatetags.annotate_tags import duration_ms

    assert [duration_ms(v) for v in (None, 0, 45_400, 90_000, 245_000, 7_380_000)] == [
        "",
        "0 s",
        "45 s",
        "1 min 30 s",
        "4 min 05 s",
        "2 h 03 min",
    ]


# -- the API ---------------------------------------------------------------------------------


def judgment_url(campaign, external_id: str) -> str:
    return reverse("api-judgment", args=[campaign.pk, external_id])


def test_api_put_adds_active_time_and_the_organiser_reads_it(api, people, campaign):
    alice = api(people["alice"])
    url = judgment_url(campaign, "q1")
    answer = alice.put(url, {"payload": PARTIAL, "status": "draft", "version": 0, "active_ms": 4200}, format="json")
    assert (answer.status_code, answer.json()["active_ms"]) == (200, 4200)
    answer = alice.put(url, {"payload": DONE, "status": "submitted", "version": 1, "active_ms": 800}, format="json")
    assert answer.json()["active_ms"] == 5000
    rows = api(people["organiser"]).get(reverse("api-judgments", args=[campaign.pk])).json()
    assert [(r["topic"], r["assessor"], r["active_ms"]) for r in rows] == [("q1", "alice", 5000)]


@pytest.mark.parametrize("active_ms", [600_001, -5, "12", None, 3.5])
def test_api_refuses_a_bad_active_time_and_writes_nothing(api, people, campaign, active_ms):
    answer = api(people["alice"]).put(
        judgment_url(campaign, "q1"),
        {"payload": PARTIAL, "status": "draft", "version": 0, "active_ms": active_ms},
        format="json",
    )
    if active_ms is None:  # null is "no time"
        assert answer.status_code == 200
        assert Judgment.objects.get().active_ms == 0
        return
    assert (answer.status_code, answer.json()["field"]) == (400, "active_ms")
    assert not Judgment.objects.exists()


def test_api_skip_and_unskip(api, people, campaign):
    alice = api(people["alice"])
    url = reverse("api-topic-skip", args=[campaign.pk, "q2"])
    answer = alice.post(url, {"reason": "conflict of interest"}, format="json")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["topic"], body["skipped"], body["reason"]) == ("q2", True, "conflict of interest")
    assert body["skipped_at"]
    refused = alice.post(url, {"reason": "r" * 2001}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "reason")
    refused = alice.post(url, {"why": "?"}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "body.why")
    assert Assignment.objects.get(topic__external_id="q2", assessor=people["alice"]).skip_reason == (
        "conflict of interest"
    )
    answer = alice.delete(url)
    assert (answer.status_code, answer.json()["skipped"], answer.json()["reason"]) == (200, False, "")


def test_api_flags_inbox_and_resolve(api, people, campaign):
    alice, organiser = api(people["alice"]), api(people["organiser"])
    flags_url = reverse("api-topic-flags", args=[campaign.pk, "q1"])
    refused = alice.post(flags_url, {"comment": "c9 is odd", "item": "c9"}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "item")
    refused = alice.post(flags_url, {"item": "c1"}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "body.comment")
    assert Flag.objects.count() == 0

    created = alice.post(flags_url, {"comment": "c3 is the same person as c1", "item": "c3"}, format="json")
    assert created.status_code == 201
    flag = created.json()
    assert (flag["topic"], flag["author"], flag["item"], flag["state"], flag["answer"]) == (
        "q1",
        "alice",
        "c3",
        "open",
        "",
    )

    inbox = organiser.get(reverse("api-flags", args=[campaign.pk]), {"state": "open"}).json()
    assert [(f["id"], f["comment"]) for f in inbox["results"]] == [(flag["id"], "c3 is the same person as c1")]
    refused = organiser.get(reverse("api-flags", args=[campaign.pk]), {"state": "closed"})
    assert (refused.status_code, refused.json()["field"]) == (400, "state")
    assert alice.get(reverse("api-flags", args=[campaign.pk])).status_code == 403

    resolve_url = reverse("api-flag-resolve", args=[campaign.pk, flag["id"]])
    assert alice.post(resolve_url, {"answer": "mine"}, format="json").status_code == 403
    answer = organiser.post(resolve_url, {"answer": "Merged them."}, format="json")
    assert (answer.status_code, answer.json()["state"], answer.json()["resolved_by"]) == (200, "resolved", "organiser")
    mine = alice.get(flags_url).json()
    assert [(f["state"], f["answer"]) for f in mine["results"]] == [("resolved", "Merged them.")]
    assert organiser.get(reverse("api-flags", args=[campaign.pk]), {"state": "open"}).json()["results"] == []
    # A flag of another campaign is not found there.
    other = campaign.__class__.objects.get(name="Elsewhere")
    assert (
        organiser.post(reverse("api-flag-resolve", args=[other.pk, flag["id"]]), {}, format="json").status_code == 404
    )


def test_the_schema_documents_the_new_endpoints(client):
    import yaml

    schema = yaml.safe_load(client.get(reverse("api-schema")).content)
    paths = schema["paths"]
    assert set(paths["/api/campaigns/{campaign_id}/topics/{topic_id}/skip/"]) >= {"post", "delete"}
    assert set(paths["/api/campaigns/{campaign_id}/topics/{topic_id}/flags/"]) >= {"get", "post"}
    assert "get" in paths["/api/campaigns/{campaign_id}/flags/"]
    assert "post" in paths["/api/campaigns/{campaign_id}/flags/{flag_id}/resolve/"]
    judgment = schema["components"]["schemas"]["Judgment"]["properties"]
    assert judgment["active_ms"]["type"] == "integer"
    write = schema["components"]["schemas"]["JudgmentWriteRequest"]["properties"]
    assert (write["active_ms"]["minimum"], write["active_ms"]["maximum"]) == (0, 600000)


# -- pages -----------------------------------------------------------------------------------


def judge_page(client, user, campaign, external_id: str) -> str:
    client.force_login(user)
    response = client.get(reverse("judge", args=[campaign.pk, external_id]))
    assert response.status_code == 200
    return response.content.decode()


def test_judging_page_links_previous_and_next_topic_of_the_queue(client, people, campaign):
    first = judge_page(client, people["alice"], campaign, "q1")
    assert 'id="previous-topic"' not in first
    assert f'id="following-topic" rel="next" href="/campaigns/{campaign.pk}/topics/q2/judge/"' in first
    middle = judge_page(client, people["alice"], campaign, "q2")
    assert f'id="previous-topic" rel="prev" href="/campaigns/{campaign.pk}/topics/q1/judge/"' in middle
    assert f'id="following-topic" rel="next" href="/campaigns/{campaign.pk}/topics/q3/judge/"' in middle
    assert 'data-count-time="true"' in middle
    assert 'id="skip-topic"' in middle and 'id="flag-topic"' in middle
    assert '<option value="c4">c4: Candidate 2.4</option>' in middle
    # An organiser looking at the page: no queue, no time, no skip or flag.
    organiser = judge_page(client, people["organiser"], campaign, "q2")
    assert 'id="topic-nav"' not in organiser and 'data-count-time="false"' in organiser
    assert 'id="skip-topic"' not in organiser and 'id="flag-dialog"' not in organiser


def test_after_a_skip_the_page_goes_on_to_the_next_unskipped_topic(client, people, campaign):
    alice = people["alice"]
    skip_topic(topic=topic(campaign, "q1"), assessor=alice, reason="later")
    page = judge_page(client, alice, campaign, "q2")
    assert f'data-next-url="/campaigns/{campaign.pk}/topics/q3/judge/"' in page
    skipped = judge_page(client, alice, campaign, "q1")
    assert "You skipped this topic (“later”)" in skipped
    assert 'id="skip-topic"' not in skipped  # unskip it instead
    home = client.get(reverse("home")).content.decode()
    assert f'href="/campaigns/{campaign.pk}/topics/q2/judge/">Next topic</a>' in home


def test_assessor_campaign_page_shows_skips_and_unskips(client, people, campaign):
    alice = people["alice"]
    client.force_login(alice)
    url = reverse("topic-skip", args=[campaign.pk, "q1"])
    refused = client.post(url, {"action": "skip", "reason": "z" * 2001})
    assert refused.status_code == 400
    assert "reason: longer than 2000 characters" in refused.content.decode()
    assert client.post(url, {"action": "hide"}).status_code == 400
    assert not Assignment.objects.filter(skipped_at__isnull=False).exists()

    assert client.post(url, {"action": "skip", "reason": "too long to read"}).status_code == 302
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "0 of 3 submitted · 1 skipped" in page
    assert '· skipped <span class="muted">(“too long to read”)</span>' in page
    assert 'aria-label="Unskip Query 1"' in page
    answer = client.post(url, {"action": "unskip"})
    assert (answer.status_code, answer.url) == (302, reverse("campaign", args=[campaign.pk]))
    assert queue_of(alice, campaign).skipped == 0
    back = client.post(url, {"action": "unskip", "back": "judge"})
    assert back.url == reverse("judge", args=[campaign.pk, "q1"])


def test_organiser_inbox_resolve_and_the_answer_on_the_topic_page(client, people, campaign):
    alice = people["alice"]
    flag = create_flag(topic=topic(campaign, "q1"), author=alice, comment="c2 looks wrong", item="c2")
    skip_topic(topic=topic(campaign, "q3"), assessor=alice, reason="I know him")
    submit(campaign, alice, "q1", active_ms=125_000)
    client.force_login(people["organiser"])
    flags_page = reverse("campaign", args=[campaign.pk]) + "?section=flags"
    page = client.get(flags_page).content.decode()
    inbox = page[page.index('<section id="flags"') :]
    inbox = inbox[: inbox.index("</section>")]
    assert "<strong>alice</strong> on" in inbox and ", item c2" in inbox and "“c2 looks wrong”" in inbox
    assert f'action="/campaigns/{campaign.pk}/flags/{flag.pk}/resolve/"' in inbox
    assert "skipped" in inbox and "“I know him”" in inbox
    progress = client.get(reverse("campaign-progress", args=[campaign.pk])).content.decode()
    assert "<td>1</td><td>2 min 05 s · 2 min 05 s</td>" in progress  # alice: 1 skipped; median · total
    assert "none submitted" in progress  # bob
    submit(campaign, people["bob"], "q1", active_ms=0)  # e.g. imported or by the API without timing
    progress = client.get(reverse("campaign-progress", args=[campaign.pk])).content.decode()
    bob_row = next(line for line in progress.splitlines() if "<td>bob</td>" in line)
    assert "not recorded" in bob_row and "0 s" not in bob_row

    resolve = reverse("flag-resolve", args=[campaign.pk, flag.pk])
    refused = client.post(resolve, {"answer": "a" * 2001})
    assert refused.status_code == 400 and Flag.objects.get().is_open
    answer = client.post(resolve, {"answer": "Thanks, corrected."})
    assert (answer.status_code, answer.url) == (302, flags_page + "#flags")
    page = client.get(flags_page).content.decode()
    assert "No open flags." in page and "1 resolved" in page

    topic_page = judge_page(client, alice, campaign, "q1")
    assert "Item c2: “c2 looks wrong” (resolved)" in topic_page
    assert "Answer: Thanks, corrected." in topic_page
    # bob sees none of alice's flags.
    assert "c2 looks wrong" not in judge_page(client, people["bob"], campaign, "q1")


def test_assessors_cannot_resolve_and_others_cannot_skip(client, people, campaign):
    flag = create_flag(topic=topic(campaign, "q1"), author=people["alice"], comment="?")
    client.force_login(people["alice"])
    assert client.post(reverse("flag-resolve", args=[campaign.pk, flag.pk]), {}).status_code == 403
    client.force_login(people["organiser"])
    assert client.post(reverse("topic-skip", args=[campaign.pk, "q1"]), {"action": "skip"}).status_code == 403
    assert Flag.objects.get().is_open and not Assignment.objects.filter(skipped_at__isnull=False).exists()


def test_backups_keep_skips_flags_and_active_time(people, campaign):
    from annotate.imports.backup import dump_campaign, load_campaign

    alice = people["alice"]
    submit(campaign, alice, "q1", active_ms=42_000)
    skip_topic(topic=topic(campaign, "q2"), assessor=alice, reason="unclear")
    flag = create_flag(topic=topic(campaign, "q1"), author=alice, comment="c2?", item="c2")
    resolve_flag(flag=flag, organiser=people["organiser"], answer="fine")
    create_flag(topic=topic(campaign, "q3"), author=people["bob"], comment="empty query")

    restored = load_campaign(dump_campaign(campaign))
    assert restored.pk != campaign.pk
    assert Judgment.objects.get(topic__campaign=restored, assessor=alice).active_ms == 42_000
    skipped = Assignment.objects.get(topic__campaign=restored, skipped_at__isnull=False)
    assert (skipped.topic.external_id, skipped.assessor, skipped.skip_reason) == ("q2", alice, "unclear")
    rows = sorted(
        (f.topic.external_id, f.author.username, f.item, f.comment, f.is_open, f.answer)
        for f in flags.campaign_flags(restored)
    )
    assert rows == [("q1", "alice", "c2", "c2?", False, "fine"), ("q3", "bob", "", "empty query", True, "")]


def test_a_judgment_never_written_answers_the_same_fields_as_a_saved_one(people, campaign):
    """The GET of an unwritten judgment lacked active_ms (schemathesis found it: the schema requires it)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(people["alice"])
    url = f"/api/campaigns/{campaign.pk}/topics/q1/judgment/"
    fresh = client.get(url).json()
    assert (fresh["status"], fresh["version"], fresh["active_ms"]) == ("new", 0, 0)
    topic = campaign.topics.get(external_id="q1")
    save_judgment(
        topic=topic,
        assessor=people["alice"],
        payload={"matches": {"c1": True}},
        status="draft",
        version=0,
    )
    assert set(client.get(url).json()) == set(fresh)


@pytest.mark.parametrize(
    "values",
    [[5], [5, 7], [3, 3, 3], [1, 2, 2, 9], [0, 0, 7, 7, 7, 100], [4, 1, 4, 1, 9, 9, 9], list(range(0, 1000, 7))],
)
def test_the_median_of_counted_times_is_the_median_of_the_times(values):
    from collections import Counter

    counted = sorted(Counter(values).items())
    assert median_of_counts(counted) == statistics.median(values)
    assert type(median_of_counts(counted)) is type(statistics.median(values))
