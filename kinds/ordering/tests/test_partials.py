"""Orderings: the campaign report merged from per-topic partials.

The reference is the campaign report as it was computed before partials
(``_reference_campaign_report`` below, kept verbatim: every topic's ED under
every method, every run's scores and every topic's consensus computed again
from every judgment, and each topic's row of the per-topic list in
``_reference_topic_rows``, which the rows made from the partials must equal); the merge of the topics' partials must equal it to 1e-12
on the demo campaign, on the report tests' campaign, and on seeded random
campaigns (topics of different sizes, with none, one or several orderings,
runs that order some topics only, the paper's WCA weights and a tuned FreSPA
setting). A topic's partial depends on that topic only.
"""

from __future__ import annotations

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
from kinds.ordering import demo
from kinds.ordering import partials as ordering_partials
from kinds.ordering import report as r
from kinds.ordering import stats as m
from kinds.ordering.tests.test_report import ordered  # noqa: F401 (fixture)
from scoring.partials import MergeInput, differences, from_scratch
from scoring.selectors import JudgmentRow, ReportInput, report_input
from stats.intervals import interval_settings

pytestmark = pytest.mark.django_db


# -- the campaign report before partials (reference implementation, verbatim) ----------------


def _reference_campaign_report(input: ReportInput) -> r.OrderingCampaignReport:
    campaign, topics, judgments, runs = input.campaign, input.topics, input.judgments, input.runs
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    external = {t.pk: t.external_id for t in topics}
    golds = {external[t]: [r_.payload["order"] for r_ in rows] for t, rows in by_topic.items()}
    setting, wca = r.frespa_setting(campaign), r.wca_weights(campaign)
    topic_taus = [_mean_tau([r_.payload["order"] for r_ in by_topic[t.pk]]) for t in topics if t.pk in by_topic]
    return r.OrderingCampaignReport(
        topics=len(topics),
        topics_with_two_or_more=sum(len(g) >= 2 for g in golds.values()),
        ed=_reference_discriminativeness(golds, setting, wca),
        frespa=setting,
        runs=_reference_rank_runs(golds, runs, setting, wca),
        topics_ordered=len(by_topic),
        wca_weights=wca,
        mean_tau=ordering_partials.mean_tau_ci(topic_taus, interval_settings(campaign.params)),
    )


def _reference_topic_rows(input: ReportInput) -> list[r.OrderingTopicRow]:
    """The report's per-topic list as it was computed before partials: every topic with an
    ordering, its orderings, mean tau and consensus from every judgment (in topic order)."""
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in input.judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    rows = []
    for t in input.topics:
        if t.pk not in by_topic:
            continue
        orders = [r_.payload["order"] for r_ in by_topic[t.pk]]
        tau = _mean_tau(orders)
        rows.append(
            r.OrderingTopicRow(t.external_id, len(orders), tau if tau == tau else None, m.rank_consensus(orders))
        )
    return rows


def _reference_discriminativeness(golds, setting, wca="clamped"):
    usable = {t: g for t, g in golds.items() if len(g) >= 2}
    if not usable:
        return {label: float("nan") for label in r.METHODS}
    eds = {
        label: float(m.discriminativeness(usable, name, **({"weights": wca} if name.startswith("wca") else {})))
        for label, name in r.ED_NAMES.items()
        if label != "FreSPA"
    }
    eds["FreSPA"] = float(
        np.mean([m.discriminativeness(g, "frespa", **setting.params(len(g[0]))) for g in usable.values()])
    )
    return eds


def _reference_rank_runs(golds, runs, setting, wca="clamped"):
    topics, means = [], []
    for run in runs:
        scored = [
            r.score_run(order, golds[topic], setting, wca)
            for topic, order in run.data.get("orderings", {}).items()
            if golds.get(topic)
        ]
        topics.append(len(scored))
        means.append(
            {label: float(np.mean([s[label] for s in scored])) if scored else float("nan") for label in r.METHODS}
        )
    ranks: list[dict[str, int]] = [{} for _ in runs]
    for label in r.METHODS:
        ranked = sorted((i for i in range(len(runs)) if not np.isnan(means[i][label])), key=lambda i: -means[i][label])
        for position, i in enumerate(ranked, 1):
            ranks[i][label] = position
    rows = [
        r.OrderingRun(run=run.name, topics=n, scores=s, ranks=k) for run, n, s, k in zip(runs, topics, means, ranks)
    ]
    return sorted(rows, key=lambda row: (-np.nan_to_num(row.scores["FreSPA"], nan=-np.inf), row.run))


def _mean_tau(orderings):
    taus = [m.kendall_tau(a, b) for a, b in combinations(orderings, 2)]
    return float(np.mean(taus)) if taus else float("nan")


#: The demo campaign's figures as the code before partials gave them.
DEMO_ED_AC_TAU = 0.6156355218855218
DEMO_ED_FRESPA = 0.6810837087738046
DEMO_MEAN_TAU = 0.6156355218855218
DEMO_CLOSE_WCA_TAU = 0.8237102561017982


# -- campaigns --------------------------------------------------------------------------------


@pytest.fixture
def demo_campaign(make_user):
    organiser = make_user("organiser", organiser=True)
    simulated = [make_user(name) for name in [*demo.CAREFUL, "sim-dev"]]
    return demo.build(organiser, simulated, [make_user("visitor")])


def random_campaign(make_user, seed: int, params: dict | None = None):
    """Eight topics of 3 to 9 items, each ordered by none to all of five assessors
    (shuffles of a truth with a few swaps, some reversed); two runs ordering some topics."""
    rng = random.Random(seed)
    organiser = make_user(f"organiser{seed}", organiser=True)
    campaign = create_campaign(creator=organiser, kind="ordering", name=f"Random {seed}", overlap=5, params=params)
    names = [f"a{seed}-{i}" for i in range(5)]
    people = {name: make_user(name) for name in names}
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    sizes = [rng.randint(3, 9) for _ in range(8)]
    topics = import_topics(
        campaign=campaign,
        topics=[
            {"external_id": f"t{i}", "data": {"items": [{"id": f"s{j}", "text": f"S{j}"} for j in range(k)]}}
            for i, k in enumerate(sizes)
        ],
    )
    truths, unjudged = {}, set()
    for topic, k in zip(topics, sizes):
        truth = [f"s{j}" for j in range(k)]
        truths[topic.external_id] = truth
        judges = rng.sample(names, rng.choice([0, 1, 2, 3, 5]))
        if not judges:
            unjudged.add(topic.external_id)
        for name in judges:
            order = demo.perturbed(truth, rng.randint(0, 4), rng)
            if rng.random() < 0.2:
                order = order[::-1]
            save_judgment(topic=topic, assessor=people[name], payload={"order": order}, status="submitted", version=0)
    runs = [
        {"name": name, "data": {"orderings": {t: demo.perturbed(o, swaps, rng) for t, o in truths.items() if keep(t)}}}
        for name, swaps, keep in (
            ("zeta", 1, lambda t: rng.random() < 0.7),
            ("alpha", 6, lambda t: rng.random() < 0.7),
            # Orders the unjudged topics only (if any): no score, no rank.
            ("unjudged", 2, lambda t: t in unjudged or not unjudged and t == "t0"),
        )
    ]
    import_runs(campaign=campaign, runs=runs)
    return campaign


# -- the merge equals the report before partials ----------------------------------------------


def assert_equal_to_reference(campaign) -> r.OrderingCampaignReport:
    given = report_input(campaign)
    merged = ordering_partials.campaign_report(given)
    assert isinstance(merged, r.OrderingCampaignReport)
    reference = _reference_campaign_report(given)
    assert differences(typed.dump(merged), typed.dump(reference), tolerance=1e-12) == []
    # The per-topic list, made from each topic's partial (Reports.topic_rows), in topic order.
    rows = [
        ordering_partials.topic_row(t, ordering_partials.topic_partial(given, t, r.topic_report(given, t)), merged)
        for t in given.topics
        if given.judgments_of(t)
    ]
    assert differences(typed.dump(rows), typed.dump(_reference_topic_rows(given)), tolerance=1e-12) == []
    assert [row.topic for row in rows] == [row.topic for row in _reference_topic_rows(given)]
    assert merged.topics_ordered == len(rows)
    return merged


def test_the_merge_equals_the_report_before_partials_on_the_demo(demo_campaign):
    merged = assert_equal_to_reference(demo_campaign)
    # Figures the code before partials gave on the demo campaign.
    assert merged.topics == 8 and merged.topics_with_two_or_more == 8
    assert [row.run for row in merged.runs] == ["close-system", "rough-system", "backwards-system"]
    assert merged.ed["AC-tau"] == pytest.approx(DEMO_ED_AC_TAU, abs=1e-12)
    assert merged.ed["FreSPA"] == pytest.approx(DEMO_ED_FRESPA, abs=1e-12)
    assert merged.mean_tau.value == pytest.approx(DEMO_MEAN_TAU, abs=1e-12)
    assert merged.runs[0].scores["WCA-tau"] == pytest.approx(DEMO_CLOSE_WCA_TAU, abs=1e-12)


def test_the_merge_equals_the_report_before_partials_on_the_report_tests_campaign(ordered):  # noqa: F811
    campaign, _ = ordered
    assert_equal_to_reference(campaign)


@pytest.mark.parametrize(
    "seed, params",
    [
        (1, None),
        (2, {"wca_weights": "paper"}),
        (3, {"frespa": {"min_sup": 0.5, "w_len": 0.0, "w_sup": 10.0, "min_len_ratio": 0.5, "max_len_ratio": 1.0}}),
        (4, {"resamples": 200}),
    ],
)
def test_the_merge_equals_the_report_before_partials_on_random_campaigns(make_user, seed, params):
    merged = assert_equal_to_reference(random_campaign(make_user, seed, params))
    assert merged.topics == 8


def test_no_orderings_yet_gives_undefined_figures(make_user):
    organiser = make_user("organiser", organiser=True)
    campaign = create_campaign(creator=organiser, kind="ordering", name="Empty", overlap=2)
    import_topics(
        campaign=campaign,
        topics=[{"external_id": "t1", "data": {"items": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}]}}],
    )
    merged = assert_equal_to_reference(campaign)
    assert merged.topics_ordered == 0 and merged.runs == []
    assert all(v != v for v in merged.ed.values())


# -- a partial depends on its topic only -------------------------------------------------------


def packed_partials(campaign) -> dict[str, bytes]:
    given = report_input(campaign)
    return {
        t.external_id: typed.pack(ordering_partials.topic_partial(given, t, r.topic_report(given, t)))
        for t in given.topics
        if given.judgments_of(t)
    }


def test_a_partial_depends_on_its_topic_only(make_user):
    campaign = random_campaign(make_user, 5)
    before = packed_partials(campaign)
    judgment = Judgment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor").first()
    changed = judgment.topic.external_id
    reopen_judgment(topic=judgment.topic, assessor=judgment.assessor, version=judgment.version)
    order = list(judgment.submitted_payload["order"])[::-1]
    save_judgment(
        topic=judgment.topic,
        assessor=judgment.assessor,
        payload={"order": order},
        status="submitted",
        version=judgment.version + 1,
    )
    after = packed_partials(campaign)
    assert after[changed] != before[changed]
    assert {t: p for t, p in after.items() if t != changed} == {t: p for t, p in before.items() if t != changed}
    # ... and the same partial when read with only that topic's judgments.
    given = report_input(campaign, topic_ids=[judgment.topic_id])
    (topic,) = given.topics
    assert typed.pack(ordering_partials.topic_partial(given, topic, r.topic_report(given, topic))) == after[changed]


def test_partials_round_trip_bit_for_bit_and_merge_in_topic_order(demo_campaign):
    given = report_input(demo_campaign)
    partials = [ordering_partials.topic_partial(given, t, r.topic_report(given, t)) for t in given.topics]
    unpacked = [typed.unpack(typed.pack(p), ordering_partials.OrderingPartial) for p in partials]
    assert [typed.pack(p) for p in unpacked] == [typed.pack(p) for p in partials]
    merged = ordering_partials.merge(MergeInput(given.campaign, given.topics, given.runs), unpacked)
    assert typed.dump(merged) == typed.dump(
        from_scratch(
            given, topic=r.topic_report, partial=ordering_partials.topic_partial, merge=ordering_partials.merge
        )
    )


# -- Spearman's rho of permutations without ranking them again (kinds/ordering/stats.py) ---


@pytest.mark.parametrize("k", [1, 2, 3, 8, 31])
def test_spearman_of_permutations_equals_the_ranked_one_bit_for_bit(k):
    from stats import rank

    rng = np.random.default_rng(k)
    targets = np.stack([rng.permutation(k) for _ in range(6)])
    golds = np.stack([rng.permutation(k) for _ in range(5)])
    fast = m._spearman_permutations(targets, golds)
    assert fast.tobytes() == rank.spearman_rho(targets, golds).tobytes()
