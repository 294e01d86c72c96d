"""Nuggets: the campaign report merged from per-question partials.

The reference is the campaign report as it was computed before partials
(``_reference_campaign_report`` below, kept verbatim with its quadratic
``_pyramid_rows``: every question's pyramid weights recomputed over every
nugget); the merge of the questions' partials must equal it to 1e-12 on the
demo campaign, on the report tests' campaign, and on seeded random campaigns
where assessors label some questions only, some questions lack original labels,
runs answer some questions only and answers' matches come from judgments. A
question's partial depends on that question only.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.nuggets import demo
from kinds.nuggets import partials as nuggets_partials
from kinds.nuggets import report as r
from kinds.nuggets import stats as m
from kinds.nuggets.tests.test_report import labelled  # noqa: F401 (fixture)
from scoring.partials import MergeInput, differences
from scoring.selectors import ReportInput, report_input
from stats import labelmodels as lm
from stats.intervals import GROUPED_FROM, interval_settings

pytestmark = pytest.mark.django_db


# -- the campaign report before partials (reference implementation, verbatim) ----------------


def _reference_pyramid_rows(a: r.Arrays, q: int) -> list[r.NuggetsNugget]:
    weights = r.pyramid(a)
    topic = a.topics[q]
    offset = int(np.flatnonzero(a.question_index == q)[0]) if (a.question_index == q).any() else 0
    return [
        r.NuggetsNugget(
            id=nugget["id"],
            text=nugget["text"],
            original=nugget.get("label"),
            votes=int(a.votes[offset + i]),
            weight=float(weights[offset + i]),
        )
        for i, nugget in enumerate(topic.data["nuggets"])
    ]


def _reference_campaign_report(input: ReportInput) -> r.NuggetsCampaignReport:
    topics, judgments, runs = input.topics, input.judgments, input.runs
    settings = interval_settings(input.campaign.params)
    a = r.arrays(topics, judgments, runs)
    answered = a.answered()
    question_scores = r.scores(answered)
    run_means = {model: m.run_scores(f) for model, f in question_scores.items()}
    ranking = [
        r.NuggetsRun(run=run, scores={model: float(means[i]) for model, means in run_means.items()})
        for i, run in enumerate(a.runs)
    ]
    ranking.sort(key=lambda row: (-np.nan_to_num(row.scores.get("pyramid", np.nan), nan=-np.inf), row.run))
    labelled_by = {x: int((~np.isnan(row)).sum()) for x, row in zip(a.assessors, a.labels) if x != "original"}
    return r.NuggetsCampaignReport(
        questions=len(a.topics),
        nuggets=len(a.nugget_ids),
        assessors=labelled_by,
        scored_questions=len(answered.topics),
        complete_assessors=[x for x, c in zip(answered.assessors, answered.complete) if c and x != "original"],
        has_original=bool(a.assessors) and a.assessors[0] == "original",
        runs=ranking,
        stability=nuggets_partials.stability(answered) if len(a.runs) >= 2 else None,
        reliability=lm.binary_reliability(a.labels.T, a.assessors, lm.model_truth(a.labels.T, "dawid-skene", 2)),
        label_agreement=nuggets_partials.label_agreement(a, settings),
        ranking=nuggets_partials.run_ranking_stability(question_scores, settings),
    )


def _reference_pyramids(input: ReportInput) -> list[r.NuggetsPyramid]:
    """Every question's pyramid, in topic order, as the report listed them before partials."""
    a = r.arrays(input.topics, input.judgments, input.runs)
    return [
        r.NuggetsPyramid(
            topic=t.external_id, title=t.title, target=t.data["target"], nuggets=_reference_pyramid_rows(a, q)
        )
        for q, t in enumerate(a.topics)
    ]


def assert_merge_equals_reference(given: ReportInput) -> r.NuggetsCampaignReport:
    merged = nuggets_partials.campaign_report(given)
    found = differences(typed.dump(merged), typed.dump(_reference_campaign_report(given)), tolerance=1e-12)
    assert found == []
    # each question's pyramid, made from its partial (Reports.topic_rows)
    rows = [nuggets_partials.topic_row(t, nuggets_partials.topic_partial(given, t), merged) for t in given.topics]
    assert differences(typed.dump(rows), typed.dump(_reference_pyramids(given)), tolerance=1e-12) == []
    # the topic objects a merge sees carry no data (scoring.jobs reads id, external_id, position)
    bare = [copy.copy(t) for t in given.topics]
    for t in bare:
        t.data, t.title = None, None
    partials = [
        typed.unpack(typed.pack(nuggets_partials.topic_partial(given, t)), nuggets_partials.NuggetsPartial)
        for t in given.topics
    ]
    again = nuggets_partials.merge(MergeInput(given.campaign, bare, given.runs), partials)
    assert typed.dump(again) == typed.dump(merged)
    return merged


# -- campaigns ----------------------------------------------------------------------------------


def random_campaign(people, make_user, seed: int, *, original: str = "all"):
    """Questions with 1-5 nuggets (original labels on every one, on some questions, or
    none), answers of two systems matched by the assessors, a run with its own matches
    on some questions, assessors who label some questions only (some partly)."""
    rng = random.Random(seed)
    assessors = [make_user(f"as{seed}-{i}") for i in range(4)]
    campaign = create_campaign(
        creator=people["organiser"],
        kind="nuggets",
        name=f"R{seed}",
        overlap=4,
        params={"tasks": ["matches"]},  # labels optional: some assessors label some nuggets
    )
    for person in assessors:
        add_member(campaign=campaign, username=person.username, role="assessor")
    topics = []
    for q in range(7):
        count = rng.choice([1, 2, 3, 5]) if q else 3
        labelled_here = original == "all" or (original == "some" and q % 3)
        nuggets = [
            {
                "id": f"n{i}",
                "text": f"fact {q}.{i}",
                **({"label": rng.choice(["vital", "okay"])} if labelled_here else {}),
            }
            for i in range(count)
        ]
        responses = [{"id": f"r{k}", "run": f"sys{k}", "text": "word " * rng.randint(0, 40)} for k in range(2)]
        topics.append(
            {
                "external_id": f"q{q}",
                "title": f"Question {q}",
                "data": {"target": f"T{q}", "nuggets": nuggets, "responses": responses if q != 4 else []},
            }
        )
    import_topics(campaign=campaign, topics=topics)
    for topic in campaign.topics.order_by("position"):
        ids = [n["id"] for n in topic.data["nuggets"]]
        for person in assessors:
            if rng.random() < 0.25:
                continue
            shown = ids if rng.random() < 0.7 else ids[: rng.randint(0, len(ids) - 1)]
            payload = {
                "labels": {n: rng.choice(["vital", "okay"]) for n in shown},
                "matches": {resp["id"]: [n for n in ids if rng.random() < 0.4] for resp in topic.data["responses"]},
            }
            save_judgment(topic=topic, assessor=person, payload=payload, status="submitted", version=0)
    given = {
        t["external_id"]: {
            "length": rng.randint(50, 600),
            "matches": [n["id"] for n in t["data"]["nuggets"] if rng.random() < 0.5],
        }
        for t in topics
        if rng.random() < 0.6
    }
    import_runs(
        campaign=campaign,
        runs=[
            {"name": "nist-a", "data": {"responses": given}},
            {"name": "idle", "data": {"responses": {"q5": {"length": 0}}}},
            {"name": "sys1", "data": {"responses": {"q2": {"length": 77}}}},
        ],
    )
    return campaign


# -- tests --------------------------------------------------------------------------------------


def test_the_demo_campaign_merges_to_the_reference(people, make_user):
    campaign = demo.build(people["organiser"], [make_user(n) for n in demo.SIMULATED], [])
    merged = assert_merge_equals_reference(report_input(campaign))
    # literals of the report before partials
    assert (merged.questions, merged.nuggets, merged.has_original, merged.scored_questions) == (8, 56, True, 8)
    assert [row.run for row in merged.runs][:3] == ["reader-a", "run-6", "run-4"]
    assert merged.runs[0].scores["pyramid"] == pytest.approx(0.7941401078710195, abs=1e-12)
    assert merged.label_agreement.fleiss.value == pytest.approx(0.4861455748552521, abs=1e-12)


def test_the_report_tests_campaign_merges_to_the_reference(labelled):  # noqa: F811
    given = report_input(labelled)
    merged = assert_merge_equals_reference(given)
    assert [row.run for row in merged.runs] == ["good", "verbose", "weak"]
    [q1] = [t for t in given.topics if t.external_id == "q1"]
    row = nuggets_partials.topic_row(q1, nuggets_partials.topic_partial(given, q1), merged)
    assert [n.votes for n in row.nuggets] == [3, 2, 1, 0]
    # without judgments, and with none of the runs
    assert_merge_equals_reference(ReportInput(labelled, given.topics, [], given.runs))
    assert_merge_equals_reference(ReportInput(labelled, given.topics, given.judgments, []))
    assert_merge_equals_reference(ReportInput(labelled, [], [], given.runs))


@pytest.mark.parametrize("original", ["all", "some", "none"])
@pytest.mark.parametrize("seed", range(3))
def test_random_campaigns_merge_to_the_reference(people, make_user, seed, original):
    campaign = random_campaign(people, make_user, seed, original=original)
    given = report_input(campaign)
    assert given.judgments
    merged = assert_merge_equals_reference(given)
    assert merged.has_original == (original == "all")


def test_a_partial_depends_on_its_question_only(people, make_user):
    campaign = random_campaign(people, make_user, 7, original="some")
    topics = list(campaign.topics.order_by("position"))
    before = {t.external_id: typed.pack(nuggets_partials.topic_partial(report_input(campaign), t)) for t in topics}
    # another question's judgments change: q1's labels flipped, one of q2's judgments withdrawn
    changed = 0
    for judgment in Judgment.objects.filter(topic__campaign=campaign, topic__external_id__in=["q1", "q2"]):
        if judgment.topic.external_id == "q2":
            withdraw_judgment(topic=judgment.topic, assessor=judgment.assessor, version=judgment.version, reason="test")
        else:
            reopen_judgment(topic=judgment.topic, assessor=judgment.assessor, version=judgment.version)
            payload = copy.deepcopy(judgment.payload)
            payload["labels"] = {n: "okay" if v == "vital" else "vital" for n, v in payload["labels"].items()}
            save_judgment(
                topic=judgment.topic,
                assessor=judgment.assessor,
                payload=payload,
                status="submitted",
                version=judgment.version + 1,
            )
        changed += 1
    assert changed
    after = {t.external_id: typed.pack(nuggets_partials.topic_partial(report_input(campaign), t)) for t in topics}
    assert {t for t in before if before[t] != after[t]} <= {"q1", "q2"}
    assert before["q1"] != after["q1"] or before["q2"] != after["q2"]
    for t in before:
        if t not in ("q1", "q2"):
            assert after[t] == before[t]
    # and the merge still equals the reference
    assert_merge_equals_reference(report_input(campaign))


def test_the_pyramids_are_computed_once_not_per_question():
    """The answer key's and the report's pyramid rows: the weights computed once over
    every question, equal to the per-question reference."""
    rng = np.random.default_rng(3)

    class T:
        def __init__(self, q, n):
            self.pk, self.external_id = q, f"q{q}"
            self.data = {"nuggets": [{"id": f"n{i}", "text": f"f{i}", "label": "vital"} for i in range(n)]}

    topics = [T(q, n) for q, n in enumerate([3, 0, 2, 4])]
    sizes = [len(t.data["nuggets"]) for t in topics]
    a = r.Arrays(
        topics,
        [n["id"] for t in topics for n in t.data["nuggets"]],
        np.repeat(np.arange(len(topics)), sizes),
        ["x", "y"],
        rng.integers(0, 2, (2, sum(sizes))).astype(float),
        [],
        np.zeros((0, sum(sizes)), bool),
        np.zeros((0, len(topics))),
    )
    rows = r.pyramids(a, [t.data["nuggets"] for t in topics])
    assert rows == [_reference_pyramid_rows(a, q) for q in range(len(topics))]


def test_large_label_sets_draw_the_library_s_grouped_bootstrap():
    """From stats.intervals.GROUPED_FROM nuggets on, every label agreement interval is ``grouped_bootstrap`` of the
    same per-nugget statistics (seed 0) to 1e-12; below it, the nugget-by-nugget bootstrap."""
    from stats.agreement import category_counts
    from stats.gwet import gwet_units
    from stats.intervals import BINARY_FIGURES, IntervalSettings, binary_cells, binary_pair_statistics, pair_intervals
    from stats.uncertainty import (
        fleiss_kappa_units,
        grouped_bootstrap,
        krippendorff_alpha_units,
    )

    rng = np.random.default_rng(5)
    n = GROUPED_FROM + 500
    truth = rng.random(n) < 0.4
    labels = np.array([np.where(rng.random(n) < 0.8, truth, ~truth) for _ in range(3)], float)
    labels[2, rng.random(n) < 0.3] = np.nan  # the third labels 70% of the nuggets
    a = r.Arrays(
        [],
        [f"n{i}" for i in range(n)],
        np.zeros(n, np.intp),
        ["x", "y", "z"],
        labels,
        [],
        np.zeros((0, n), bool),
        np.zeros((0, 1)),
    )
    settings = IntervalSettings(resamples=300)
    result = nuggets_partials.label_agreement(a, settings)

    def same(ci, interval):
        assert ci.method == interval.method == "bootstrap" and ci.units == interval.units
        for mine, theirs in ((ci.value, interval.value), (ci.low, interval.low), (ci.high, interval.high)):
            assert mine == pytest.approx(theirs, abs=1e-12, rel=0)

    statistics = binary_pair_statistics()
    for pair in result.pairs:
        i, j = (a.assessors.index(name) for name in pair.labellings)
        shared = ~np.isnan(labels[i]) & ~np.isnan(labels[j])
        one_hot = np.eye(4)[binary_cells(labels[i, shared] == 1, labels[j, shared] == 1)]
        for name in (*BINARY_FIGURES, "ac1"):
            if pair.n >= GROUPED_FROM:
                expected = grouped_bootstrap(one_hot, statistics[name], n_resamples=300, seed=0)
                same(getattr(pair, name), expected)
            else:  # x and z, y and z share 1,726 nuggets: drawn nugget by nugget, as before
                cells = binary_cells(labels[i, shared] == 1, labels[j, shared] == 1)
                (expected,) = pair_intervals([cells], 4, statistics, "nuggets", resamples=300, seed=0)
                assert getattr(pair, name) == expected[name]
    assert [pair.n >= GROUPED_FROM for pair in result.pairs] == [True, False, False]
    everyone = ~np.isnan(labels).any(axis=0)
    table = category_counts(labels[:, everyone].T, categories=[0.0, 1.0])
    assert result.fleiss_raters == 3
    fleiss = fleiss_kappa_units(table)
    assert result.fleiss_items == int(everyone.sum()) < GROUPED_FROM  # 1,726 nuggets: nugget by nugget
    same(result.fleiss, fleiss.interval(n_resamples=300, seed=0))
    alpha = krippendorff_alpha_units(labels, level="nominal")
    same(result.alpha, grouped_bootstrap(alpha.per_unit, alpha.statistic, n_resamples=300, seed=0))
    ac1 = gwet_units(labels.T, categories=[0.0, 1.0])
    same(result.ac1, grouped_bootstrap(ac1.per_unit, ac1.statistic, n_resamples=300, seed=0))
    # below the threshold: the nugget-by-nugget draws of pair_intervals, as before
    small = nuggets_partials.label_agreement(
        r.Arrays(
            [], a.nugget_ids[:50], a.question_index[:50], a.assessors, labels[:, :50], [], a.matches[:, :50], a.lengths
        ),
        settings,
    )
    first, second = labels[0, :50] == 1, labels[1, :50] == 1
    from stats.uncertainty import pairwise_units

    same(small.pairs[0].kappa, pairwise_units(first, second, figure="kappa").interval(n_resamples=300, seed=0))


def test_a_ranking_over_as_many_topics_reuses_its_draw():
    from stats import intervals

    intervals._topic_weights.cache_clear()
    scores = np.random.default_rng(2).random((3, 40))
    first = intervals.ranking_stability(scores, measure="F", resamples=200)
    again = intervals.ranking_stability(scores, measure="F", resamples=200)
    assert first == again and intervals._topic_weights.cache_info().hits == 1
    weights = intervals._topic_weights(40, 200, 0)
    assert weights.dtype == np.uint16 and not weights.flags.writeable
    from stats.uncertainty import resample_weights

    assert (weights == resample_weights(40, n_resamples=200, seed=0)).all()
    # 3,000 topics: the draw turned into floats a block of rows at a time, the same figures as
    # the whole draw at once (the code before the cache)
    from stats.rank import kendall_tau_b

    scores = np.random.default_rng(4).random((4, 3000))
    scores[:, :1500] *= np.arange(1, 5)[:, None] / 4  # some signal, so the taus spread
    got = intervals.ranking_stability(scores, measure="F", resamples=300)
    whole = resample_weights(3000, n_resamples=300, seed=0).astype(np.float64)
    taus = kendall_tau_b(scores.sum(axis=1), np.einsum("bt,st->bs", whole, scores))[0]
    taus = taus[np.isfinite(taus)]
    assert (got.median, got.p5) == (float(np.median(taus)), float(np.quantile(taus, 0.05)))
