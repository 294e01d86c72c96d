"""Clustering: V-measure, V_beta, V_0.5, NMI and NVI between judges, averaged over topics,
with seeded bootstrap intervals over topics."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from sklearn.metrics import homogeneity_completeness_v_measure, normalized_mutual_info_score

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.typed import dump, load
from kinds.clustering import stats as m
from kinds.clustering.report import AGREEMENT, METHODS, ClusteringCampaignReport, compare
from scoring import services as scoring_services
from scoring.selectors import campaign_report
from stats.uncertainty import bootstrap, mean_units, resample_weights

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


ITEMS = [f"s{i}" for i in range(1, 11)]
TOPICS = [f"t{i}" for i in range(1, 8)]
JUDGES = ("alice", "bob", "carol")


def _clusterings() -> dict[str, dict[str, list[list[str]]]]:
    """Topic -> judge -> clusters: seeded random partitions of eight to ten of the sentences."""
    rng = random.Random(15)
    result = {}
    for topic in TOPICS:
        by = {}
        for judge in JUDGES:
            used = rng.sample(ITEMS, rng.randint(8, 10))
            k = rng.randint(2, 4)
            clusters = [used[i::k] for i in range(k)]
            by[judge] = [sorted(c) for c in clusters if len(c) >= 2]
        result[topic] = by
    return result


@pytest.fixture
def clustered(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="C", overlap=3)
    for name in JUDGES:
        add_member(campaign=campaign, username=name, role="assessor")
    data = {
        "documents": [{"id": "d1"}, {"id": "d2"}],
        "sentences": [
            {"id": s, "document": "d1" if i < 5 else "d2", "position": i, "text": s} for i, s in enumerate(ITEMS)
        ],
    }
    import_topics(campaign=campaign, topics=[{"external_id": t, "data": data} for t in [*TOPICS, "lonely"]])
    clusterings = _clusterings()
    for topic in campaign.topics.all():
        for name, clusters in clusterings.get(topic.external_id, {"alice": [["s1", "s6"]]}).items():
            save_judgment(
                topic=topic, assessor=people[name], payload={"clusters": clusters}, status="submitted", version=0
            )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, clusterings


def _per_topic(clusterings, method: str, name: str) -> list[float]:
    """Each topic's mean over its judge pairs, in topic order (V and NMI by scikit-learn)."""
    means = []
    for topic in TOPICS:
        values = []
        for a, b in combinations(JUDGES, 2):
            first = m.complete_with_irrelevant(clusterings[topic][a], ITEMS, method=method)
            second = m.complete_with_irrelevant(clusterings[topic][b], ITEMS, method=method)
            if name == "v_measure":
                values.append(homogeneity_completeness_v_measure(first, second)[2])
            elif name == "v_half":
                values.append(homogeneity_completeness_v_measure(first, second, beta=0.5)[2])
            elif name == "nmi_geometric":
                values.append(normalized_mutual_info_score(first, second, average_method="geometric"))
            else:
                measures = compare(clusterings[topic][a], clusterings[topic][b], ITEMS)[method]
                values.append(getattr(measures, name))
        means.append(float(np.mean(values)))
    return means


def test_every_figure_equals_a_direct_bootstrap_over_topics(clustered):
    campaign, clusterings = clustered
    data = campaign_report(campaign).data
    weights = resample_weights(len(TOPICS), n_resamples=1000, seed=0)
    for method in METHODS:
        figures = getattr(data.agreement, method)
        assert list(figures) == list(AGREEMENT)
        for name in AGREEMENT:
            ci = figures[name]
            means = _per_topic(clusterings, method, name)
            # the lonely topic (one judge) does not count: seven topics
            assert (ci.units, ci.unit, ci.method) == (7, "topics", "bootstrap"), (method, name)
            assert ci.value == pytest.approx(np.mean(means), abs=1e-12), (method, name)
            stats = mean_units(means)
            direct = bootstrap(stats.per_unit, stats.statistic, n_resamples=1000, seed=0)
            assert (ci.low, ci.high) == pytest.approx((direct.low, direct.high), abs=1e-12), (method, name)
            # every figure shares the same resampled topics: the weights' means, by hand
            by_hand = np.quantile(weights @ np.asarray(means) / len(TOPICS), [0.025, 0.975])
            assert (ci.low, ci.high) == pytest.approx(tuple(by_hand), abs=1e-12)
            assert ci.low <= ci.value <= ci.high and ci.low < ci.high
    # the arithmetic NMI would repeat the V-measure: the geometric one is shown
    assert data.agreement.singleton["nmi_geometric"].value != pytest.approx(data.agreement.singleton["v_measure"].value)
    assert dump(load(ClusteringCampaignReport, dump(data))) == dump(data)


def test_the_page_shows_every_interval_and_stop_signal(clustered, client, people):
    campaign, _ = clustered
    campaign.params = {**campaign.params, "precision": 0.9}
    campaign.save()
    data = campaign_report(campaign).data
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'id="agreement-intervals"' in page
    for name in AGREEMENT:
        assert f'data-figure="{name}"' in page
        ci = data.agreement.bucket[name]
        assert f"[{ci.low:.3f}, {ci.high:.3f}]" in page
    assert page.count("· 7 topics") == 2 * len(AGREEMENT)
    # 7 topics: too few to judge a precision by, however wide the wanted interval
    assert page.count("too few topics to judge (7 of at least 30)") == 2 * len(AGREEMENT)
    assert "stop-reached" not in page


def test_one_judged_topic_gives_no_interval(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="C", overlap=2)
    data = {
        "documents": [{"id": "d1"}, {"id": "d2"}],
        "sentences": [
            {"id": s, "document": "d1" if i < 5 else "d2", "position": i, "text": s} for i, s in enumerate(ITEMS)
        ],
    }
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t", "data": data}])
    for name, clusters in (("alice", [["s1", "s6"], ["s2", "s7"]]), ("bob", [["s1", "s6", "s2", "s7"]])):
        add_member(campaign=campaign, username=name, role="assessor")
        save_judgment(topic=topic, assessor=people[name], payload={"clusters": clusters}, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    ci = campaign_report(campaign).data.agreement.singleton["v_measure"]
    assert (ci.units, ci.method, ci.low, ci.high) == (1, "too few", None, None) and 0 < ci.value < 1
