"""Orderings: the mean pairwise Kendall tau carries a seeded bootstrap interval over topics."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import kendalltau

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.typed import dump, load
from kinds.ordering.report import OrderingCampaignReport
from scoring import services as scoring_services
from scoring.selectors import campaign_report
from stats.uncertainty import bootstrap, mean_units, resample_weights

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


ITEMS = [f"s{i}" for i in range(1, 7)]
TOPICS = [f"t{i}" for i in range(1, 9)]


def _orders() -> dict[str, dict[str, list[str]]]:
    """Topic -> assessor -> ordering: each assessor swaps a seeded number of neighbours of s1..s6."""
    rng = random.Random(15)
    result = {}
    for t, topic in enumerate(TOPICS):
        by = {}
        for name in ("alice", "bob", "carol"):
            order = list(ITEMS)
            for _ in range(rng.randint(0, 2 + t % 3)):
                i = rng.randrange(len(order) - 1)
                order[i], order[i + 1] = order[i + 1], order[i]
            by[name] = order
        result[topic] = by
    return result


@pytest.fixture
def ordered(people):
    """Eight topics ordered by alice, bob and carol; a ninth ordered by alice alone."""
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "data": {"items": [{"id": i, "text": i.upper()} for i in ITEMS]}}
            for t in [*TOPICS, "lonely"]
        ],
    )
    orders = _orders()
    for topic in campaign.topics.all():
        for name, order in orders.get(topic.external_id, {"alice": ITEMS}).items():
            save_judgment(topic=topic, assessor=people[name], payload={"order": order}, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, orders


def _topic_means(orders) -> list[float]:
    """Each topic's mean pairwise tau, by scipy, in topic order."""
    means = []
    for topic in TOPICS:
        ranks = {a: [o.index(i) for i in ITEMS] for a, o in orders[topic].items()}
        means.append(np.mean([kendalltau(ranks[a], ranks[b]).statistic for a, b in combinations(sorted(ranks), 2)]))
    return means


def test_mean_tau_interval_equals_a_direct_bootstrap_over_topics(ordered):
    campaign, orders = ordered
    data = campaign_report(campaign).data
    ci = data.mean_tau
    means = _topic_means(orders)
    # the lonely topic (one ordering) has no tau: eight topics count
    assert (ci.units, ci.unit, ci.method, ci.level) == (8, "topics", "bootstrap", 0.95)
    assert ci.value == pytest.approx(np.mean(means), abs=1e-12)
    stats = mean_units(means)
    direct = bootstrap(stats.per_unit, stats.statistic, n_resamples=1000, seed=0)
    assert (ci.low, ci.high) == pytest.approx((direct.low, direct.high), abs=1e-12)
    # the same bounds from the resample matrix by hand: percentiles of the resampled means
    weights = resample_weights(8, n_resamples=1000, seed=0)
    resampled = weights @ np.asarray(means) / 8
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(resampled, [0.025, 0.975])), abs=1e-12)
    assert ci.low < ci.value < ci.high and ci.low >= min(means) and ci.high <= max(means)
    # stored and read back as it was built
    assert dump(load(OrderingCampaignReport, dump(data))) == dump(data)


def test_the_api_carries_the_interval(ordered, api, people):
    campaign, _ = ordered
    ci = campaign_report(campaign).data.mean_tau
    body = api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    assert body["data"]["mean_tau"] == {
        "value": ci.value,
        "low": ci.low,
        "high": ci.high,
        "units": 8,
        "unit": "topics",
        "method": "bootstrap",
        "level": 0.95,
    }
    schema = api(people["organiser"]).get("/api/schema/").content.decode()
    assert "OrderingCampaignReport" in schema and "FigureCI" in schema


def test_resamples_param_is_used_and_the_page_shows_interval_and_stop_signal(ordered, client, people):
    campaign, orders = ordered
    campaign.params = {**campaign.params, "resamples": 200, "precision": 0.5}
    campaign.save()
    scoring_services.recompute_reports(campaign.pk, everything=True)
    ci = campaign_report(campaign).data.mean_tau
    stats = mean_units(_topic_means(orders))
    direct = bootstrap(stats.per_unit, stats.statistic, n_resamples=200, seed=0)
    assert (ci.low, ci.high) == pytest.approx((direct.low, direct.high), abs=1e-12)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'id="mean-tau"' in page and "· 8 topics" in page
    assert f"[{ci.low:.3f}, {ci.high:.3f}]" in page
    # half-width well under 0.5, but on 8 topics: too few to judge, never "reached"
    assert "too few topics to judge (8 of at least 30)" in page and "stop-reached" not in page


def test_too_few_topics_give_no_interval(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(
        campaign=campaign, topics=[{"external_id": "t", "data": {"items": [{"id": i, "text": i} for i in ITEMS]}}]
    )
    for name, order in (("alice", ITEMS), ("bob", ITEMS[::-1])):
        save_judgment(topic=topic, assessor=people[name], payload={"order": order}, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    ci = campaign_report(campaign).data.mean_tau
    assert (ci.value, ci.low, ci.high, ci.units, ci.method) == (-1.0, None, None, 1, "too few")
