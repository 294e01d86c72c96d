"""Clustering: the campaign report merged from per-topic partials.

The reference is the campaign report as it was computed before partials
(every pair of judges compared again, every topic's random baseline drawn
again: ``_reference_campaign_report`` below, kept verbatim with the slow
``random_baseline``); the merge of the topics' partials must equal it to
1e-12 on the demo campaign and on a seeded random campaign. A topic's partial
depends on that topic only.
"""

from __future__ import annotations

import math
import random
from itertools import combinations

import numpy as np
import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.clustering import demo, partials
from kinds.clustering import report as r
from kinds.clustering import stats as m
from scoring.partials import differences
from scoring.selectors import JudgmentRow, ReportInput, report_input
from stats.intervals import interval_settings

pytestmark = pytest.mark.django_db

ITEMS = [f"s{i}" for i in range(1, 11)]
TOPICS = [f"t{i}" for i in range(1, 8)]
JUDGES = ("alice", "bob", "carol")


# -- the campaign report before partials (reference implementation) -------------------------


def _reference_baseline(clusterings: dict[str, list[list[str]]], items: list[str]) -> r.ClusteringTable3:
    judges = list(clusterings.values())
    result = {}
    for method in r.METHODS:
        runs = [
            m.random_baseline(clusters, judges, items, method=method, n_random=r.BASELINE_DRAWS, beta=0.5, seed=index)
            for index, clusters in enumerate(judges)
            if clusters
        ]
        result[method] = r.ClusteringFigures(
            v_beta=float(np.mean([x.mean["v_beta"] for x in runs])) if runs else float("nan"),
            v_half=float(np.mean([x.mean["v_measure"] for x in runs])) if runs else float("nan"),
            nvi=float(np.mean([x.mean["normalized_variation_of_information"] for x in runs])) if runs else float("nan"),
        )
    return r.ClusteringTable3(**result)


def _reference_campaign_report(input: ReportInput) -> r.ClusteringCampaignReport:
    topics, judgments = input.topics, input.judgments
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    rows, baselines = [], []
    per_topic = []
    for topic in topics:
        items = r.sentence_ids(topic)
        clusterings = r.clusterings_of(by_topic.get(topic.pk, []))
        figures = {method: {name: [] for name in r.AGREEMENT} for method in r.METHODS}
        for a, b in combinations(clusterings, 2):
            measures = r.compare(clusterings[a], clusterings[b], items)
            for method in r.METHODS:
                for name in r.AGREEMENT:
                    figures[method][name].append(getattr(measures[method], name))
            table3 = r._table3(measures)
            rows.append(
                r.ClusteringCampaignPair(
                    topic=topic.external_id,
                    title=topic.title,
                    judges=(a, b),
                    singleton=table3.singleton,
                    bucket=table3.bucket,
                )
            )
        if len(clusterings) >= 2:
            baselines.append(_reference_baseline(clusterings, items))
            per_topic.append(figures)
    return r.ClusteringCampaignReport(
        topics=len(topics),
        judged_topics=len(by_topic),
        pairs=rows,
        pair_count=len(rows),  # this reference lists every pair, so it counts them all
        baseline=partials._pooled(baselines) if baselines else None,
        agreement=partials.agreement_over_topics(per_topic, interval_settings(input.campaign.params)),
    )


# -- campaigns ------------------------------------------------------------------------------


def _clusterings() -> dict[str, dict[str, list[list[str]]]]:
    rng = random.Random(16)
    result = {}
    for topic in TOPICS:
        by = {}
        for judge in JUDGES:
            used = rng.sample(ITEMS, rng.randint(2, 10))
            k = rng.randint(1, min(4, len(used) // 2))
            by[judge] = [sorted(c) for c in (used[i::k] for i in range(k)) if len(c) >= 2]
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
    import_topics(
        campaign=campaign,
        topics=[{"external_id": t, "title": f"Topic {t}", "data": data} for t in [*TOPICS, "lonely", "empty"]],
    )
    clusterings = _clusterings()
    for topic in campaign.topics.exclude(external_id="empty"):
        for name, clusters in clusterings.get(topic.external_id, {"alice": [["s1", "s6"]]}).items():
            save_judgment(
                topic=topic, assessor=people[name], payload={"clusters": clusters}, status="submitted", version=0
            )
    import_runs(
        campaign=campaign, runs=[{"name": "run-a", "data": {"clusterings": {t: [ITEMS[:3]] for t in TOPICS[:3]}}}]
    )
    return campaign


@pytest.fixture
def demo_campaign(make_user):
    organiser = make_user("organiser", organiser=True)
    simulated = [make_user(name) for name in demo.JUDGES]
    return demo.build(organiser, simulated, [make_user("visitor")])


def _merged(input: ReportInput) -> r.ClusteringCampaignReport:
    return partials.campaign_report(input)


@pytest.mark.parametrize("which", ["clustered", "demo_campaign"])
def test_the_merge_of_partials_equals_the_report_before_partials(which, request):
    campaign = request.getfixturevalue(which)
    given = report_input(campaign)
    before = typed.dump(_reference_campaign_report(given))
    after = typed.dump(_merged(given))
    assert after["pair_count"] == len(before["pairs"])
    assert differences(after, before, tolerance=1e-12) == []
    assert after["pairs"] == before["pairs"]  # the pairs' figures are the topic reports' own: bit for bit
    assert len(after["pairs"]) == (3 * len(TOPICS) if which == "clustered" else 4)
    assert after["baseline"] is not None


def test_the_demo_figures(demo_campaign):
    """Literals from the report before partials (the demo campaign, seeded)."""
    data = partials.campaign_report(report_input(demo_campaign))
    assert (data.topics, data.judged_topics, len(data.pairs)) == (2, 2, 4)
    reference = _reference_campaign_report(report_input(demo_campaign))
    for method in r.METHODS:
        for name in r.TABLE3:
            assert math.isclose(
                getattr(getattr(data.baseline, method), name),
                getattr(getattr(reference.baseline, method), name),
                rel_tol=0,
                abs_tol=1e-12,
            )
        for name in r.AGREEMENT:
            new, old = getattr(data.agreement, method)[name], getattr(reference.agreement, method)[name]
            assert abs(new.value - old.value) <= 1e-12 and new.units == old.units == 2
            # two topics: too few for an interval (stats.stopping.MIN_UNITS), on both sides
            assert new.too_few and old.too_few and not new.defined


def test_the_topic_baseline_equals_the_slow_random_baseline(clustered):
    given = report_input(clustered)
    for topic in given.topics:
        clusterings = r.clusterings_of(given.judgments_of(topic))
        if not clusterings:
            continue
        fast, slow = (
            typed.dump(r.baseline(clusterings, r.sentence_ids(topic))),
            typed.dump(_reference_baseline(clusterings, r.sentence_ids(topic))),
        )
        assert differences(fast, slow, tolerance=1e-12) == [], topic.external_id


def _partials(campaign) -> dict[str, bytes]:
    given = report_input(campaign)
    return {t.external_id: typed.pack(partials.topic_partial(given, t, r.topic_report(given, t))) for t in given.topics}


def test_a_topic_partial_depends_on_that_topic_only(clustered, people):
    before = _partials(clustered)
    topic = clustered.topics.get(external_id="t2")
    judgment = Judgment.objects.get(topic=topic, assessor=people["bob"])
    reopen_judgment(topic=topic, assessor=people["bob"], version=judgment.version)
    save_judgment(
        topic=topic,
        assessor=people["bob"],
        payload={"clusters": [["s1", "s2", "s3"], ["s4", "s5"]]},
        status="submitted",
        version=judgment.version + 1,
    )
    after = _partials(clustered)
    assert after["t2"] != before["t2"]
    assert {t: p for t, p in after.items() if t != "t2"} == {t: p for t, p in before.items() if t != "t2"}
    # ... and the merge still equals the report before partials.
    given = report_input(clustered)
    assert differences(typed.dump(_merged(given)), typed.dump(_reference_campaign_report(given))) == []


def test_the_live_report_carries_the_first_pairs_and_counts_them_all(clustered, monkeypatch, client, people):
    monkeypatch.setattr(partials, "LIVE_PAIRS", 5)
    given = report_input(clustered)
    data = _merged(given)
    every = _reference_campaign_report(given)
    assert data.pair_count == len(every.pairs) == 21
    assert typed.dump(data)["pairs"] == typed.dump(every)["pairs"][:5]
    assert [(p.topic, p.judges) for p in data.pairs] == [
        ("t1", ("alice", "bob")),
        ("t1", ("alice", "carol")),
        ("t1", ("bob", "carol")),
        ("t2", ("alice", "bob")),
        ("t2", ("alice", "carol")),
    ]
    # the agreement and the baseline still cover every topic
    assert differences(typed.dump(data.agreement), typed.dump(every.agreement)) == []
    assert differences(typed.dump(data.baseline), typed.dump(every.baseline)) == []
    from scoring import jobs

    jobs.recompute_reports(clustered.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{clustered.pk}/report/")
    assert page.status_code == 200, page.status_code
    note = page.content.decode().split('id="pairs-shown">', 1)[1].split("</p>", 1)[0]
    assert note.startswith(
        "Showing the 5 of 21 pairs of judges (those of the first topics); the live report lists the first 5"
    )
    assert "each topic's report page lists its own" in note


def test_a_partial_round_trips_bit_for_bit(clustered):
    given = report_input(clustered)
    for topic in given.topics:
        partial = partials.topic_partial(given, topic, r.topic_report(given, topic))
        packed = typed.pack(partial)
        assert typed.pack(typed.unpack(packed, partials.ClusteringPartial)) == packed
    empty = next(t for t in given.topics if t.external_id == "empty")
    assert partials.topic_partial(given, empty, r.topic_report(given, empty)).judges == []
    lonely = next(t for t in given.topics if t.external_id == "lonely")
    partial = partials.topic_partial(given, lonely, r.topic_report(given, lonely))
    assert (partial.judges, partial.table3, partial.means, partial.baseline) == (["alice"], b"", [], [])


def test_the_shared_draw_gives_each_figure_its_own_bootstrap():
    """The merge multiplies one draw with every figure at once: the same intervals as
    ``settings.interval`` figure by figure (200 topics: above the cached small draws;
    some figures undefined on some topics)."""
    from stats.intervals import IntervalSettings
    from stats.uncertainty import mean_units

    rng = np.random.default_rng(16)
    means = rng.random((200, len(r.METHODS), len(r.AGREEMENT)))
    means[rng.random(means.shape) < 0.1] = np.nan
    settings = IntervalSettings()
    shared = partials._agreement(means, settings)
    for i, method in enumerate(r.METHODS):
        for j, name in enumerate(r.AGREEMENT):
            alone = settings.interval(mean_units(means[:, i, j]), "topics")
            ci = getattr(shared, method)[name]
            assert differences(typed.dump(ci), typed.dump(alone), tolerance=1e-12) == [], (method, name)
            assert ci.units == int(np.isfinite(means[:, i, j]).sum()) and ci.low < ci.value < ci.high
    lonely = partials._agreement(np.full((1, len(r.METHODS), len(r.AGREEMENT)), 0.5), settings).singleton["v_beta"]
    assert lonely.units == 1 and math.isnan(lonely.low)
