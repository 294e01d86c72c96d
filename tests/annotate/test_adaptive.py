"""The adaptive design (annotate/adaptive.py, annotate/allocation.py): first opinions one
each, further opinions to the least certain items, budgets, no double assignment,
margin vs posterior, params refused naming the field, the API's and the page's
"Next topic"."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from django.urls import reverse

from annotate import adaptive, allocation
from annotate.imports.write import import_judgments, import_topics
from annotate.models import Assignment, Topic
from annotate.services.campaigns import clean_campaign_params, create_campaign
from annotate.services.flags import skip_topic
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db

T, F = True, False


def topic(external_id: str, n: int) -> dict:
    return {
        "external_id": external_id,
        "data": {
            "query": f"Name {external_id}",
            "candidates": [{"id": f"c{i}", "text": f"{external_id}.{i}"} for i in range(1, n + 1)],
        },
    }


def make(people, topics, *, assessors=("alice", "bob", "carol"), **params):
    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Adaptive", params={"design": "adaptive", **params}
    )
    import_topics(campaign=campaign, topics=topics)
    for name in assessors:
        add_member(campaign=campaign, username=name, role="assessor")
    return campaign


def opinions(campaign, labels: dict[str, dict[str, list[bool]]]) -> None:
    """Earlier opinions as imported judgments: {topic: {candidate: [label of w1, w2, ...]}}."""
    entries = []
    for topic_id, candidates in labels.items():
        workers = len(next(iter(candidates.values())))
        for w in range(workers):
            entries.append(
                {
                    "assessor": f"w{w + 1}",
                    "topic": topic_id,
                    "payload": {"matches": {c: votes[w] for c, votes in candidates.items()}},
                }
            )
    import_judgments(campaign=campaign, entries=entries)


def submit(campaign, user, work, labels: dict[str, bool]) -> None:
    save_judgment(topic=work.topic, assessor=user, payload={"matches": labels}, status="submitted", version=0)


def nxt(campaign, user):
    work = adaptive.next_work(campaign, user)
    return (work.topic.external_id if work.topic else None, work.items, work.allocated)


# -- first opinions --------------------------------------------------------------------


def test_nothing_is_assigned_up_front_and_every_item_gets_one_opinion_first(people):
    campaign = make(people, [topic("q1", 4), topic("q2", 3), topic("q3", 2)])
    assert Assignment.objects.filter(topic__campaign=campaign).count() == 0
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert nxt(campaign, alice) == ("q1", ["c1", "c2", "c3", "c4"], True)
    assert nxt(campaign, alice) == ("q1", ["c1", "c2", "c3", "c4"], False)  # the same pending work
    assert nxt(campaign, bob) == ("q2", ["c1", "c2", "c3"], True)
    assert nxt(campaign, carol) == ("q3", ["c1", "c2"], True)
    # alice submits q1: every other item is held (q2, q3 pending), q1's are hers: nothing for her now.
    submit(campaign, alice, adaptive.next_work(campaign, alice), {"c1": T, "c2": T, "c3": F, "c4": F})
    assert nxt(campaign, alice) == (None, None, False)
    # bob's q2 is pending, so q1 (one opinion each, margin 1 < 2) goes to him only after he submits.
    submit(campaign, bob, adaptive.next_work(campaign, bob), {"c1": T, "c2": F, "c3": T})
    assert nxt(campaign, bob) == ("q1", ["c1", "c2", "c3", "c4"], True)
    assert sorted(
        Assignment.objects.filter(topic__campaign=campaign).values_list("topic__external_id", "assessor__username")
    ) == [
        ("q1", "alice"),
        ("q1", "bob"),
        ("q2", "bob"),
        ("q3", "carol"),
    ]


def test_the_judging_page_shows_and_accepts_only_the_items_handed_out(people, client):
    campaign = make(people, [topic("q1", 3)], adaptive_by="margin")
    opinions(campaign, {"q1": {"c1": [T, T], "c2": [T, F], "c3": [F, F]}})
    client.force_login(people["alice"])
    response = client.post(reverse("campaign-next", args=[campaign.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("judge", args=[campaign.pk, "q1"])
    page = client.get(response["Location"]).content.decode()
    assert "q1.2" in page and "q1.1" not in page and "q1.3" not in page
    with pytest.raises(InvalidInput) as refused:
        save_judgment(
            topic=Topic.objects.get(campaign=campaign),
            assessor=people["alice"],
            payload={"matches": {"c1": T, "c2": T}},
            status="submitted",
            version=0,
        )
    assert (refused.value.field, refused.value.message) == ("payload.matches.c1", "not assigned to you")


# -- further opinions -------------------------------------------------------------------


def two_topics(people, **params):
    """q1: c1 T T T (margin 3), c2 T T F (margin 1); q2: c1 T T (margin 2), c2 T F (margin 0)."""
    campaign = make(people, [topic("q1", 2), topic("q2", 2)], adaptive_by="margin", **params)
    opinions(campaign, {"q1": {"c1": [T, T, T], "c2": [T, T, F]}})
    import_judgments(
        campaign=campaign,
        entries=[
            {"assessor": "w1", "topic": "q2", "payload": {"matches": {"c1": T, "c2": T}}},
            {"assessor": "w2", "topic": "q2", "payload": {"matches": {"c1": T, "c2": F}}},
        ],
    )
    return campaign


def test_a_further_opinion_goes_to_the_most_uncertain_item_only(people):
    campaign = two_topics(people)
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    assert nxt(campaign, alice) == ("q2", ["c2"], True)  # margin 0: the least certain
    assert nxt(campaign, bob) == ("q1", ["c2"], True)  # q2.c2 awaits alice's opinion
    assert nxt(campaign, carol) == (None, None, False)  # the rest is settled (margin >= 2) or awaited
    submit(campaign, alice, adaptive.next_work(campaign, alice), {"c2": T})  # q2.c2: T T F, margin 1
    assert nxt(campaign, alice) == (None, None, False)  # she judged q2.c2; q1.c2 awaits bob
    assert nxt(campaign, carol) == ("q2", ["c2"], True)
    state = adaptive.item_state(campaign)
    held = dict(zip(state.keys, state.held.tolist()))
    q1, q2 = (Topic.objects.get(campaign=campaign, external_id=t).pk for t in ("q1", "q2"))
    assert held == {(q1, "c1"): 3, (q1, "c2"): 4, (q2, "c1"): 2, (q2, "c2"): 4}
    assert dict(zip(state.keys, state.truth)) == {(q1, "c1"): T, (q1, "c2"): T, (q2, "c1"): T, (q2, "c2"): T}


def test_an_item_settled_by_the_new_opinion_gets_no_more(people):
    campaign = two_topics(people)
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    submit(campaign, alice, adaptive.next_work(campaign, alice), {"c2": F})  # q2.c2: T F F, margin 1
    submit(campaign, bob, adaptive.next_work(campaign, bob), {"c2": T})  # q1.c2: T T F T, margin 2: settled
    assert nxt(campaign, carol) == ("q2", ["c2"], True)
    submit(campaign, carol, adaptive.next_work(campaign, carol), {"c2": F})  # q2.c2: T F F F, margin 2
    assert [nxt(campaign, u) for u in (alice, bob, carol)] == [(None, None, False)] * 3


def test_budget_per_item_is_respected(people):
    campaign = two_topics(people, budget_per_item=2)
    # q2.c2 has its 2 opinions; q1.c2 has 3: nothing wanted.
    assert nxt(campaign, people["alice"]) == (None, None, False)
    campaign.params = clean_campaign_params("pairs", {**campaign.params, "budget_per_item": 4})
    campaign.save()
    assert nxt(campaign, people["alice"]) == ("q2", ["c2"], True)
    assert nxt(campaign, people["bob"]) == ("q1", ["c2"], True)  # its 4th opinion
    submit(campaign, people["alice"], adaptive.next_work(campaign, people["alice"]), {"c2": T})
    submit(campaign, people["bob"], adaptive.next_work(campaign, people["bob"]), {"c2": F})  # q1.c2: T T F F
    assert nxt(campaign, people["carol"]) == ("q2", ["c2"], True)  # q1.c2 is at 4, q2.c2 at 3
    assert nxt(campaign, people["carol"]) == ("q2", ["c2"], False)


def test_budget_total_is_respected(people):
    # 9 opinions given: a cap of 9 leaves none; 10 leaves one, which goes to one of the two
    # least certain items (c1 and c2, margin 1: topic order) though both are wanted.
    campaign = make(people, [topic("q1", 3)], adaptive_by="margin", budget_total=9)
    opinions(campaign, {"q1": {"c1": [T, F, T], "c2": [T, F, F], "c3": [T, T, T]}})
    assert int(adaptive.item_state(campaign).held.sum()) == 9
    assert nxt(campaign, people["alice"]) == (None, None, False)
    campaign.params = clean_campaign_params("pairs", {**campaign.params, "budget_total": 10})
    campaign.save()
    assert nxt(campaign, people["alice"]) == ("q1", ["c1"], True)
    assert nxt(campaign, people["bob"]) == (None, None, False)


def test_a_skipped_share_is_given_back(people, client):
    campaign = two_topics(people)
    assert nxt(campaign, people["alice"]) == ("q2", ["c2"], True)
    skip_topic(topic=Topic.objects.get(campaign=campaign, external_id="q2"), assessor=people["alice"], reason="")
    # Not pending any more: bob may take q2.c2 (the least certain); alice never gets it again.
    assert nxt(campaign, people["bob"]) == ("q2", ["c2"], True)
    assert nxt(campaign, people["alice"]) == ("q1", ["c2"], True)


def test_skip_then_unskip_obeys_the_budgets_and_the_open_topics_cap(people, api):
    """The exploit: skip, ask for more, unskip, again; one assessor held every
    topic and submitted 20 opinions against budget_total 4, the others got nothing."""
    campaign = make(people, [topic(f"q{i}", 4) for i in range(1, 6)], budget_total=4, max_open_topics=2)
    alice = people["alice"]
    held = []
    for _ in range(5):
        work = adaptive.next_work(campaign, alice)
        if work.topic is None:
            break
        held.append(work.topic)
        skip_topic(topic=work.topic, assessor=alice)
    back = [api(alice).delete(f"/api/campaigns/{campaign.pk}/topics/{t.external_id}/skip/") for t in held]
    # The first comes back (4 items: the whole budget); the others would spend beyond it.
    assert [r.status_code for r in back] == [200] + [400] * (len(held) - 1)
    assert back[1].json()["field"] == "topic" and "budget_total" in back[1].json()["detail"]
    submit(campaign, alice, adaptive.Work(held[0]), {f"c{i}": T for i in range(1, 5)})
    given = sum(len(a.items) for a in Assignment.objects.filter(topic__campaign=campaign, skipped_at__isnull=True))
    assert given == 4
    assert nxt(campaign, people["bob"]) == (None, None, False)  # the budget is spent, by one opinion each


def test_an_assessor_holds_at_most_max_open_topics(people, api):
    campaign = make(people, [topic("q1", 2), topic("q2", 2), topic("q3", 2)])  # max_open_topics: 1 by default
    alice = people["alice"]
    first = adaptive.next_work(campaign, alice).topic
    skip_topic(topic=first, assessor=alice)
    second = adaptive.next_work(campaign, alice).topic
    refused = api(alice).delete(f"/api/campaigns/{campaign.pk}/topics/{first.external_id}/skip/")
    assert refused.status_code == 400 and "max_open_topics" in refused.json()["detail"]
    assert Assignment.objects.get(topic=first, assessor=alice).skipped_at is not None
    submit(campaign, alice, adaptive.Work(second), {"c1": T, "c2": T})
    assert api(alice).delete(f"/api/campaigns/{campaign.pk}/topics/{first.external_id}/skip/").status_code == 200


def test_no_double_assignment_under_concurrent_requests(people, transactional_db):
    campaign = two_topics(people)
    users = [people["alice"], people["bob"], people["carol"]]
    got: dict[str, tuple] = {}
    start = threading.Barrier(3)

    def ask(user) -> None:
        start.wait()
        try:
            got[user.username] = nxt(campaign, user)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=(u,)) for u in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Two wanted slots (q2.c2, q1.c2): two assessors get one each, the third nothing.
    assert sorted(v for v in got.values() if v[0]) == [("q1", ["c2"], True), ("q2", ["c2"], True)]
    assert sum(1 for v in got.values() if v[0] is None) == 1
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__in=users).count() == 2


# -- margin vs posterior -------------------------------------------------------------------


def calibrated(people, by: str):
    """ace agrees with w1 and w2 on ten items (five matches); qx: ace alone says match;
    qy: u1 and u2 (seen on nothing else) both say match."""
    campaign = make(people, [topic("q0", 10), topic("qx", 1), topic("qy", 1)], adaptive_by=by)
    q0 = {f"c{i}": [i <= 5] * 3 for i in range(1, 11)}
    entries = [
        {"assessor": w, "topic": "q0", "payload": {"matches": {c: v[0] for c, v in q0.items()}}}
        for w in ("ace", "w1", "w2")
    ]
    entries += [{"assessor": "ace", "topic": "qx", "payload": {"matches": {"c1": T}}}]
    entries += [{"assessor": u, "topic": "qy", "payload": {"matches": {"c1": T}}} for u in ("u1", "u2")]
    import_judgments(campaign=campaign, entries=entries)
    return campaign


def test_margin_asks_about_the_single_opinion(people):
    campaign = calibrated(people, "margin")
    assert nxt(campaign, people["alice"]) == ("qx", ["c1"], True)  # margin 1; qy has margin 2
    assert nxt(campaign, people["bob"]) == (None, None, False)


def test_posterior_trusts_the_proven_assessor_more_than_two_unknown_ones(people):
    campaign = calibrated(people, "posterior")
    state = adaptive.item_state(campaign)
    # qx: ace was right on 5 of 5 shared matches and 5 of 5 shared non-matches, so P(says match | match)
    # = (5 + 2 * 0.75) / (5 + 2): 6.5 / 7. qy: seen on nothing else, u1 and u2 might always say match,
    # so Dawid-Skene's posterior of qy is 0.5 / 0.5; their shrunk rates
    # P(says match | match) = 2 / 2.5, P(says match | no match) = 1 / 2.5 give 0.8**2 / (0.8**2 + 0.4**2) = 0.8.
    assert state.certainty.score[:10].min() > 0.999
    assert state.certainty.score[10] == pytest.approx(6.5 / 7, abs=1e-4)  # DS is 0.9995 sure of q0
    assert state.certainty.score[11] == pytest.approx(0.8, abs=2e-4)
    assert nxt(campaign, people["alice"]) == ("qy", ["c1"], True)  # the least certain
    assert nxt(campaign, people["bob"]) == ("qx", ["c1"], True)  # also below 0.95
    assert nxt(campaign, people["carol"]) == (None, None, False)  # q0's items: posterior above 0.99


def test_allocation_rank_orders_first_opinions_then_least_certain():
    measured = allocation.certainty(
        [0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [1, 1, 1, 0, 0], n_items=4, n_classes=2, by="margin"
    )
    assert measured.score.tolist() == [2.0, 0.0, 1.0, 0.0]
    assert allocation.rank(measured, by="margin", confidence=0.95, margin=2, budget_per_item=5).tolist() == [3, 1, 2]
    assert allocation.rank(measured, by="margin", confidence=0.95, margin=2, budget_per_item=2).tolist() == [3, 2]
    assert allocation.rank(
        measured, by="margin", confidence=0.95, margin=2, budget_per_item=5, open_=[T, T, T, F]
    ).tolist() == [1, 2]
    post = allocation.posterior([0], [0], [1], n_items=1, n_classes=2)
    assert post.round(4).tolist() == [[0.25, 0.75]]
    # Two agreeing opinions on one item: Dawid-Skene is sure of it (class prior (0 + 1) / 3, (1 + 1) / 3),
    # each assessor P(says 1 | 1) = (1 + 1.5) / 3, P(says 1 | 0) = 0.25.
    expected = (2 / 3 * (5 / 6) ** 2) / (2 / 3 * (5 / 6) ** 2 + 1 / 3 * 0.25**2)
    assert allocation.posterior([0, 0], [0, 1], [1, 1], n_items=1, n_classes=2)[0, 1] == pytest.approx(expected)


# -- params --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"design": "adaptive", "adaptive_by": "votes"}, "params.adaptive_by"),
        ({"design": "adaptive", "budget_per_item": 0}, "params.budget_per_item"),
        ({"design": "adaptive", "budget_total": 1.5}, "params.budget_total"),
        ({"design": "adaptive", "confidence": 1.5}, "params.confidence"),
        ({"design": "adaptive", "margin": True}, "params.margin"),
        ({"design": "overlap", "budget_per_item": 3}, "params.budget_per_item"),
        ({"adaptive_by": "margin"}, "params.adaptive_by"),
    ],
)
def test_bad_params_are_400s_naming_the_field(people, api, params, field):
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "A", "params": params}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == field


def test_only_kinds_that_declare_it_take_the_adaptive_design(people, api):
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "ordering", "name": "A", "params": {"design": "adaptive"}}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "params.design"
    ok = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "A", "params": {"design": "adaptive", "margin": 3}}, format="json"
    )
    assert ok.status_code == 201 and ok.json()["params"] == {"design": "adaptive", "margin": 3}
    assert adaptive.settings(ok.json()["params"]) == adaptive.Settings("posterior", 5, None, 0.95, 3, 1)


# -- API and pages -------------------------------------------------------------------------


def test_api_next_topic(people, api):
    campaign = two_topics(people)
    url = reverse("api-next-topic", args=[campaign.pk])
    first = api(people["alice"]).post(url, {}, format="json")
    assert first.status_code == 200
    assert first.json() == {
        "topic": "q2",
        "items": ["c2"],
        "allocated": True,
        "url": reverse("judge", args=[campaign.pk, "q2"]),
    }
    again = api(people["alice"]).post(url)
    assert again.json() == {**first.json(), "allocated": False}
    assert api(people["bob"]).post(url).json()["topic"] == "q1"
    assert api(people["carol"]).post(url).json() == {"topic": None, "items": None, "allocated": False, "url": None}
    assert api(people["organiser"]).post(url).status_code == 403
    assert api(people["outsider"]).post(url).status_code == 404
    refused = api(people["alice"]).post(url, {"topic": "q1"}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "body.topic"


def test_pages_ask_for_the_next_topic_with_a_form_and_a_get_allocates_nothing(people, client):
    campaign = two_topics(people)
    client.force_login(people["alice"])
    next_url = reverse("campaign-next", args=[campaign.pk])
    form = f'<form method="post" action="{next_url}"'
    assert form in client.get(reverse("home")).content.decode()
    assert form in client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    # A link from another site, or a prefetch: the page with the button, and no topic spent.
    shown = client.get(next_url)
    assert shown.status_code == 200 and form in shown.content.decode() and 'id="next-work"' in shown.content.decode()
    alices = Assignment.objects.filter(topic__campaign=campaign, assessor=people["alice"])
    assert not alices.exists()
    judge = client.get(client.post(next_url)["Location"]).content.decode()
    assert f'data-next-url="{next_url}"' in judge
    assert alices.count() == 1
    # carol gets nothing now: back to the campaign page, saying why.
    client.force_login(people["bob"])
    client.post(next_url)
    client.force_login(people["carol"])
    response = client.post(next_url, follow=True)
    assert response.redirect_chain == [(reverse("campaign", args=[campaign.pk]), 302)]
    assert "No topic for you now" in response.content.decode()
