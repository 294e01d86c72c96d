"""Which pairs each assessor judges: the uniform share made up front, and the active allocation
(Chiang et al. 2024, section 5) drawn when an assessor asks for work, whose probabilities follow
eq. 9, are kept on the assignment out of the assessor's sight, and weigh each vote by their
inverse in the leaderboard's fit (eq. 7)."""

from __future__ import annotations

import copy
import math
import random
from collections import Counter

import numpy as np
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotate import adaptive
from annotate.imports.backup import dump_campaign, load_campaign
from annotate.imports.write import import_judgments, import_topics
from annotate.models import Assignment, Campaign
from annotate.services.assignments import assign_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.base import assessor_seed
from kinds.preference import active
from kinds.preference import stats as pref
from kinds.preference.allocation import design_weights, draw, pair_key, pair_weights, uniform_share
from kinds.preference.data import pair_ids, sides
from kinds.preference.partials import WEIGHTED, campaign_report, gather, topic_partial
from scoring import services as scoring_services
from scoring.selectors import report_input

SYSTEMS = ["sys-alpha", "sys-beta", "sys-gamma", "sys-delta"]


# -- the probabilities (no database) -----------------------------------------------------------


def random_counts(seed: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    left = rng.integers(0, k, 400)
    right = (left + rng.integers(1, k, 400)) % k
    outcome = rng.choice([pref.LEFT, pref.RIGHT, pref.TIE, pref.BOTH_BAD], 400, p=[0.45, 0.35, 0.15, 0.05])
    return pref.vote_counts(left, right, outcome, n_systems=k)


@pytest.mark.parametrize("fit_of", [pref.bradley_terry, pref.davidson])
def test_pair_weights_from_a_stored_leaderboard_equal_active_weights(fit_of):
    """What the report stores (votes per pair, predicted win probabilities) gives the probabilities
    kinds.preference.stats.active_weights computes from the counts and the fit."""
    counts = random_counts(3, 5)
    fit = fit_of(counts)
    wanted = pref.active_weights(counts, fit, target="win-rate", floor=0.1)
    games = (counts + counts.transpose(1, 0, 2)).sum(axis=2)
    predicted = pref.win_probabilities(fit)
    first, second = wanted.first, wanted.second
    expected = (1 + predicted[first, second] - predicted[second, first]) / 2
    found = pair_weights(games[first, second], expected)
    assert found == pytest.approx(wanted.probability, abs=1e-12)


def test_a_pair_never_compared_weighs_most_and_every_pair_keeps_the_floor():
    found = pair_weights([0, 40, 40, 40], [float("nan"), 0.6, 0.5, 0.9])
    assert found.argmax() == 0 and found.sum() == pytest.approx(1)
    assert found.min() >= 0.1 / 4


def test_the_draw_follows_the_probabilities():
    """Seeded draws: the pair whose counts leave it far more uncertain is drawn most, and every
    pair's share of 4,000 draws is within 4.5 binomial standard errors of its probability."""
    topics = {t: list(SYSTEMS) for t in range(1, 11)}
    universe = sorted({pair_key(a, b) for a in SYSTEMS for b in SYSTEMS if a != b})
    votes = [200 if key != ("sys-beta", "sys-gamma") else 2 for key in universe]
    weights = dict(zip(universe, pair_weights(votes, [0.5] * len(universe)).tolist()))
    rng = random.Random(20240501)
    n = 4000
    drawn = Counter()
    for _ in range(n):
        found = draw(topics, set(topics), weights, 1, rng)
        (pair,) = found.pairs
        key = pair_key(topics[found.topic][pair[0] - 1], topics[found.topic][pair[1] - 1])
        assert found.probabilities == [pytest.approx(weights[key])]
        drawn[key] += 1
    assert drawn.most_common(1)[0][0] == ("sys-beta", "sys-gamma")
    for key in universe:
        p = weights[key]
        assert abs(drawn[key] / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n), key


def test_the_draw_is_renormalised_over_the_pairs_the_assessor_can_judge():
    """A pair no open topic compares is never drawn; the others' probabilities are their weights
    over the weights of those the assessor can judge (a redraw until one lands there)."""
    topics = {1: ["a", "b", "c"], 2: ["a", "b"], 3: ["c", "d"]}
    weights = {("a", "b"): 0.2, ("a", "c"): 0.1, ("b", "c"): 0.1, ("c", "d"): 0.6}
    rng = random.Random(7)
    for _ in range(50):
        found = draw(topics, {1, 2}, weights, 1, rng)
        assert found.topic in (1, 2)
        key = pair_key(*(topics[found.topic][k - 1] for k in found.pairs[0]))
        assert found.probabilities == [pytest.approx(weights[key] / 0.4)]
    # two pairs of topic 1: the first among its three pairs, the second among the two left
    two = draw(topics, {1}, weights, 2, random.Random(1))
    assert two.topic == 1 and len(two.pairs) == 2
    w = {(1, 2): 0.2, (1, 3): 0.1, (2, 3): 0.1}
    a, b = two.pairs
    orders = [(w[a] / 0.4, w[b] / (0.4 - w[a])), (w[a] / (0.4 - w[b]), w[b] / 0.4)]
    assert any(two.probabilities == pytest.approx(list(order)) for order in orders)


# -- campaigns ---------------------------------------------------------------------------------

pytestmark_db = pytest.mark.django_db


def topics(n: int, systems: list[str] = SYSTEMS) -> list[dict]:
    return [
        {
            "external_id": f"p{k}",
            "data": {
                "prompt": f"Prompt {k}",
                "outputs": [{"system": s, "text": f"answer {position} to {k}"} for position, s in enumerate(systems)],
            },
        }
        for k in range(1, n + 1)
    ]


def make(people, n_topics: int = 4, *, assessors=("alice", "bob"), systems=SYSTEMS, **params) -> Campaign:
    campaign = create_campaign(
        creator=people["organiser"],
        kind="preference",
        name="Active",
        overlap=2,
        params={"allocation": "active", "pairs_per_assignment": 1, "resamples": 100, **params},
    )
    for name in assessors:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=topics(n_topics, systems))
    return campaign


def judge(work, user, choice: str = "left") -> None:
    seed = assessor_seed(user.pk, work.topic.external_id)
    verdicts = []
    for pair in work.items:
        left, right = sides(seed, pair)
        verdicts.append({"pair": pair, "left": left, "right": right, "choice": choice})
    save_judgment(topic=work.topic, assessor=user, payload={"verdicts": verdicts}, status="submitted", version=0)


@pytestmark_db
def test_active_campaigns_assign_nothing_up_front_and_next_topic_draws_a_pair(people):
    campaign = make(people)
    assert not Assignment.objects.filter(topic__campaign=campaign).exists()
    work = adaptive.next_work(campaign, people["alice"], rng=random.Random(1))
    assert work.allocated and len(work.items) == 1 and work.items[0] in pair_ids(4)
    assignment = Assignment.objects.get(topic=work.topic, assessor=people["alice"])
    # no report yet: every pair of the four systems alike, so each is drawn with probability 1/6
    assert assignment.items == work.items and assignment.draws == {work.items[0]: pytest.approx(1 / 6)}
    # pending work first: asking again hands out the same assignment, drawing nothing
    again = adaptive.next_work(campaign, people["alice"], rng=random.Random(2))
    assert (again.topic, again.items, again.allocated) == (work.topic, work.items, False)
    assert Assignment.objects.filter(topic__campaign=campaign).count() == 1


@pytestmark_db
def test_an_assessor_never_gets_a_pair_of_a_prompt_they_judged_again(people):
    campaign = make(people, 5, pairs_per_assignment=2)
    alice = people["alice"]
    rng = random.Random(5)
    seen = []
    while (work := adaptive.next_work(campaign, alice, rng=rng)).topic is not None:
        assert work.allocated and len(work.items) == 2
        seen.append(work.topic.external_id)
        judge(work, alice)
    assert sorted(seen) == [f"p{k}" for k in range(1, 6)]  # each prompt once, then nothing
    assert Assignment.objects.filter(assessor=alice).count() == 5


@pytestmark_db
def test_a_system_never_compared_is_drawn_first(people):
    """After a rebuild the stored leaderboard knows three systems; a fourth, added with new prompts,
    has no votes: its pairs weigh most, and the draw finds them."""
    campaign = make(people, 6, systems=SYSTEMS[:3], assessors=("alice", "bob", "carol"))
    rng = random.Random(11)
    for name in ("alice", "bob", "carol"):
        for _ in range(6):
            work = adaptive.next_work(campaign, people[name], rng=rng)
            judge(work, people[name], choice=rng.choice(["left", "right", "tie"]))
    rebuild(campaign)
    import_topics(campaign=campaign, topics=[{**t, "external_id": f"n{t['external_id']}"} for t in topics(3)])
    weights = active.system_pair_weights(campaign, active.topic_systems(campaign))
    newest = [key for key in weights if "sys-delta" in key]
    assert len(newest) == 3 and min(weights[key] for key in newest) > max(
        w for key, w in weights.items() if key not in newest
    )
    add_member(campaign=campaign, username="outsider", role="assessor")
    newcomer = people["outsider"]
    with_delta = 0
    for seed in range(40):
        found = active.allocate(campaign, newcomer, random.Random(seed))
        systems = {found.topic.data["outputs"][k - 1]["system"] for k in map(int, found.items[0].split("-"))}
        with_delta += "sys-delta" in systems
    assert with_delta >= 30  # each draw lands on a pair with sys-delta with probability 0.9 here


def topic_data_reads(queries) -> int:
    """The queries that read every topic's data (the systems extracted from it), not the one topic
    drawn."""
    return sum(
        '"annotate_topic"."data"' in q["sql"] and '"annotate_topic"."campaign_id" =' in q["sql"] for q in queries
    )


@pytestmark_db
def test_a_draw_reads_the_topics_systems_once_per_set_of_topics(people):
    """The first draw reads every topic's systems; the next draws of the campaign read none (the
    topics' number and newest id, from the index, say they are the same), until an import adds
    topics or a topic is deleted: then once more, and the draw sees the change."""
    campaign = make(people, 6, systems=SYSTEMS[:3], assessors=("alice", "bob", "carol"))
    with CaptureQueriesContext(connection) as first:
        active.allocate(campaign, people["alice"], random.Random(1))
    assert topic_data_reads(first.captured_queries) == 1
    with CaptureQueriesContext(connection) as again:
        active.allocate(campaign, people["bob"], random.Random(2))
        active.allocate(campaign, people["carol"], random.Random(3))
    assert topic_data_reads(again.captured_queries) == 0
    if connection.vendor == "sqlite":  # the count and newest id come from an index, not the rows
        (counted,) = [
            q["sql"] for q in again.captured_queries if "COUNT(" in q["sql"] and "annotate_topic" in q["sql"]
        ][:1]
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN QUERY PLAN {counted}")
            assert "COVERING INDEX" in " ".join(str(row) for row in cursor.fetchall())
    import_topics(campaign=campaign, topics=[{**t, "external_id": f"n{t['external_id']}"} for t in topics(2)])
    with CaptureQueriesContext(connection) as added:
        found = active.topic_systems(campaign)
    assert topic_data_reads(added.captured_queries) == 1 and len(found) == 8
    assert sorted(found[t.pk] for t in campaign.topics.filter(external_id__startswith="n")) == [SYSTEMS] * 2
    campaign.topics.get(external_id="p1").delete()
    with CaptureQueriesContext(connection) as deleted:
        found = active.topic_systems(campaign)
    assert topic_data_reads(deleted.captured_queries) == 1 and len(found) == 7
    with CaptureQueriesContext(connection) as kept:
        assert active.topic_systems(campaign) == found
    assert topic_data_reads(kept.captured_queries) == 0


def rebuild(campaign: Campaign) -> None:
    scoring_services.recompute_reports(campaign.pk, everything=True)


@pytestmark_db
def test_each_drawn_vote_weighs_the_inverse_of_its_probability_in_the_fit(people):
    """The leaderboard's fit is kinds.preference.stats' Bradley-Terry fit of the votes weighted by 1 / P
    (P read here from the assignments), imported battles and uniform votes at weight 1; its
    intervals are the sandwich's; the stored report then drives the next draw as active_weights
    would from the same counts and fit."""
    campaign = make(people, 8, assessors=("alice", "bob", "carol"), pairs_per_assignment=2)
    rng = random.Random(3)
    strength = {s: -k for k, s in enumerate(SYSTEMS)}
    for name in ("alice", "bob", "carol"):
        for _ in range(8):
            work = adaptive.next_work(campaign, people[name], rng=rng)
            verdicts = []
            for pair in work.items:
                left, right = sides(assessor_seed(people[name].pk, work.topic.external_id), pair)
                names = [o["system"] for o in work.topic.data["outputs"]]
                gap = strength[names[left - 1]] - strength[names[right - 1]]
                choice = "left" if rng.random() < 1 / (1 + math.exp(-gap)) else "right"
                if rng.random() < 0.2:
                    choice = "tie"
                verdicts.append({"pair": pair, "left": left, "right": right, "choice": choice})
            save_judgment(
                topic=work.topic, assessor=people[name], payload={"verdicts": verdicts}, status="submitted", version=0
            )
    # an imported battle: no draw, weight 1
    import_judgments(
        campaign=campaign,
        entries=[
            {
                "assessor": "w1",
                "topic": "p1",
                "payload": {"verdicts": [{"pair": "1-4", "left": 4, "right": 1, "choice": "right"}]},
            },
            {
                "assessor": "w1",
                "topic": "p2",
                "payload": {"verdicts": [{"pair": "2-3", "left": 2, "right": 3, "choice": "right"}]},
            },
        ],
    )
    given = report_input(campaign)
    index = {s: k for k, s in enumerate(sorted(SYSTEMS))}
    left, right, outcome, weight = [], [], [], []
    drawn = {(a.topic_id, a.assessor.username): a.draws for a in Assignment.objects.filter(topic__campaign=campaign)}
    for row in given.judgments:
        topic = next(t for t in given.topics if t.pk == row.topic_id)
        names = [o["system"] for o in topic.data["outputs"]]
        for verdict in row.payload["verdicts"]:
            left.append(index[names[verdict["left"] - 1]])
            right.append(index[names[verdict["right"] - 1]])
            outcome.append(["left", "right", "tie", "both_bad"].index(verdict["choice"]))
            probability = (drawn.get((row.topic_id, row.assessor)) or {}).get(verdict["pair"])
            weight.append(1.0 if probability is None else 1 / probability)
    assert weight.count(1.0) == 2 and len(weight) == 3 * 8 * 2 + 2
    weighted = pref.weighted_counts(left, right, outcome, weight, n_systems=4)
    fit = pref.bradley_terry(weighted)
    report = campaign_report(given)
    scores = {row.system: row.score for row in report.people.rows}
    assert scores == pytest.approx(dict(zip(sorted(SYSTEMS), fit.ratings.tolist())), abs=1e-9)
    unweighted = pref.bradley_terry(pref.vote_counts(left, right, outcome, n_systems=4))
    assert not np.allclose(fit.ratings, unweighted.ratings, atol=1e-3)  # the weights changed the fit
    assert report.people.model.endswith(WEIGHTED)
    for row in report.people.rows:
        assert row.sandwich.high - row.sandwich.low == pytest.approx(2 * 1.959963984540054 * fit.se[index[row.system]])
        assert row.by_votes.method == "none"
    # the partial keeps the weights; a topic without a drawn vote keeps none
    partials = [topic_partial(given, t) for t in given.topics]
    assert gather(partials, judges=False).weight.tolist() == pytest.approx(sorted_weights(partials, given))
    # the stored report drives the next draw as active_weights does from its counts and fit
    rebuild(campaign)
    found = active.system_pair_weights(campaign, active.topic_systems(campaign))
    counts = pref.vote_counts(left, right, outcome, n_systems=4)
    wanted = pref.active_weights(counts, fit)
    names = sorted(SYSTEMS)
    for a, b, p in zip(wanted.first, wanted.second, wanted.probability):
        assert found[(names[a], names[b])] == pytest.approx(p, abs=1e-9)


@pytestmark_db
def test_the_design_allocation_draws_the_optimal_design_and_fits_the_votes_unweighted(people):
    """``allocation=design``: each drawn pair keeps its probability, the design's at the stored
    leaderboard's scores (stats.adjacent_design mixed with the floor), and the leaderboard is the
    plain Bradley-Terry fit of the votes: no weight, the bootstrap's intervals kept."""
    campaign = make(people, 8, assessors=("alice", "bob", "carol"), allocation="design")
    rng = random.Random(5)
    for name in ("alice", "bob", "carol"):
        for k in range(6):
            judge(adaptive.next_work(campaign, people[name], rng=rng), people[name], "left" if k % 3 else "right")
    assert Assignment.objects.filter(topic__campaign=campaign).exclude(draws=None).count() == 18
    given = report_input(campaign)
    assert all(topic_partial(given, t).weights == [] for t in given.topics)
    report = campaign_report(given)
    assert not report.people.model.endswith(WEIGHTED)
    assert any(row.by_votes.method != "none" for row in report.people.rows)
    # the stored leaderboard's scores drive the next draw through the design
    rebuild(campaign)
    stored = report_input(campaign)
    board = campaign_report(stored).people
    theta = {row.system: (row.score - board.base) / pref.ELO_PER_LOGIT for row in board.rows}
    found = active.system_pair_weights(campaign, active.topic_systems(campaign))
    universe = sorted(found)
    wanted = design_weights(universe, theta)
    assert [found[key] for key in universe] == pytest.approx(wanted.tolist(), abs=1e-12)
    systems = sorted(theta)
    ordered = sorted(systems, key=lambda s: -theta[s])
    neighbours = {pair_key(a, b) for a, b in zip(ordered, ordered[1:])}
    # the design favours the leaderboard's neighbours over the pairs further apart
    assert min(found[key] for key in neighbours) > max(found[key] for key in universe if key not in neighbours)


@pytestmark_db
def test_the_design_is_computed_once_per_stored_report_and_process(people, monkeypatch):
    """The design is a fit of its own: the draws between two rebuilds reuse it; a rebuild makes a new one."""
    campaign = make(people, 6, assessors=("alice", "bob"), allocation="design")
    rng = random.Random(2)
    for _ in range(2):
        judge(adaptive.next_work(campaign, people["alice"], rng=rng), people["alice"])
    rebuild(campaign)
    calls = []
    real = active.design_weights
    monkeypatch.setattr(active, "design_weights", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(3):
        judge(adaptive.next_work(campaign, people["bob"], rng=rng), people["bob"])
    assert len(calls) == 1
    rebuild(campaign)
    adaptive.next_work(campaign, people["bob"], rng=rng)
    assert len(calls) == 2


def sorted_weights(partials, given) -> list[float]:
    """Each vote's weight in gather's order, from the assignments (what the partial must hold)."""
    drawn = {
        (a.topic_id, a.assessor.username): a.draws or {}
        for a in Assignment.objects.filter(topic__campaign__pk=given.campaign.pk)
    }
    found = []
    for topic in given.topics:
        for row in given.judgments_of(topic):
            for verdict in row.payload["verdicts"]:
                p = drawn.get((topic.pk, row.assessor), {}).get(verdict["pair"])
                found.append(1.0 if p is None else 1 / p)
    return found


@pytestmark_db
def test_the_assessor_sees_no_probability_and_no_system(people):
    """The API's next topic, the judging page, the assessor's judgment and their topics show the
    pair by position only: no system's name, no probability it was drawn with."""
    campaign = make(people)
    client = APIClient()
    client.force_authenticate(people["alice"])
    answer = client.post(f"/api/campaigns/{campaign.pk}/next-topic/", format="json")
    assert answer.status_code == 200, answer.content
    assignment = Assignment.objects.get(assessor=people["alice"])
    (probability,) = assignment.draws.values()
    (pair,) = assignment.items
    topic = assignment.topic
    left, right = sides(assessor_seed(people["alice"].pk, topic.external_id), pair)
    client.put(
        f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/",
        {"payload": {"verdicts": [{"pair": pair, "choice": "left"}]}, "status": "submitted", "version": 0},
        format="json",
    )
    page = Client()
    page.force_login(people["alice"])
    shown = [
        answer.content.decode(),
        page.get(reverse("judge", args=[campaign.pk, topic.external_id])).content.decode(),
        client.get(f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/").content.decode(),
        client.get(f"/api/campaigns/{campaign.pk}/topics/").content.decode(),
    ]
    for text in shown:
        assert not any(system in text for system in SYSTEMS)
        assert repr(probability)[:8] not in text and "draws" not in text
    assert f'"pair": "{pair}"' in shown[2] or f'"pair":"{pair}"' in shown[2]


@pytestmark_db
def test_active_allocation_without_pairs_per_assignment_is_refused_naming_the_field(people):
    client = APIClient()
    client.force_authenticate(people["organiser"])
    body = {"kind": "preference", "name": "Active", "params": {"allocation": "active"}}
    answer = client.post("/api/campaigns/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["field"] == "params.pairs_per_assignment"
    assert not Campaign.objects.filter(name="Active").exists()
    with pytest.raises(InvalidInput) as refused:
        create_campaign(creator=people["organiser"], kind="preference", name="A", params={"allocation": "active"})
    assert refused.value.field == "params.pairs_per_assignment"


@pytestmark_db
def test_uniform_assign_topics_gives_each_assessor_the_next_pairs_of_the_shuffled_order(people):
    """Up front, three assessors of a topic of four outputs (six pairs), two pairs each: slot k gets
    uniform_share's window k, so together they judge every pair once; no draws are recorded."""
    campaign = create_campaign(
        creator=people["organiser"],
        kind="preference",
        name="Uniform",
        overlap=3,
        params={"allocation": "uniform", "pairs_per_assignment": 2},
    )
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    Assignment.objects.filter(topic__campaign=campaign).delete()
    import_topics(campaign=campaign, topics=topics(2))
    assert assign_topics(campaign) == 0  # the import assigned them already
    for topic in campaign.topics.order_by("position"):
        rows = list(Assignment.objects.filter(topic=topic).order_by("id"))
        assert len(rows) == 3
        for slot, row in enumerate(rows):
            assert row.items == uniform_share(pair_ids(4), 2, slot=slot, seed=f"{campaign.pk}:{topic.pk}")
            assert row.draws is None
        assert sorted(p for row in rows for p in row.items) == pair_ids(4)


@pytestmark_db
def test_a_backup_keeps_the_draws_and_a_restore_refuses_bad_ones(people):
    campaign = make(people)
    work = adaptive.next_work(campaign, people["alice"], rng=random.Random(4))
    judge(work, people["alice"])
    document = dump_campaign(campaign)
    (kept,) = [a for a in document["assignments"] if "draws" in a]
    assert kept["draws"] == Assignment.objects.get(assessor=people["alice"]).draws
    campaign.delete()
    restored = load_campaign(copy.deepcopy(document), creator=people["organiser"])
    assert Assignment.objects.get(topic__campaign=restored, assessor=people["alice"]).draws == kept["draws"]
    for bad, field in (({"9-9": 0.5}, "draws"), ({work.items[0]: 0}, f"draws.{work.items[0]}")):
        broken = copy.deepcopy(document)
        broken["campaign"]["name"] = "Broken"
        index = broken["assignments"].index(kept)
        broken["assignments"][index]["draws"] = bad
        with pytest.raises(InvalidInput) as refused:
            load_campaign(broken, creator=people["organiser"])
        assert refused.value.field == f"file.assignments[{index}].{field}"
        assert not Campaign.objects.filter(name="Broken").exists()
