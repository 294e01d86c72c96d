"""Graded relevance: the campaign report merged from per-topic partials.

The reference is the campaign report as it was computed before partials
(``_reference_campaign_report`` below, verbatim: every judgment's grades in one
matrix, every system evaluated under every qrels set in one ireval call); the
merge of the topics' partials must equal it to 1e-12 on the demo campaign, on
the report tests' campaign and on seeded random campaigns where assessors grade
some topics (some documents) only, runs rank some topics only and a topic has no
grade. A topic's partial depends on that topic only.
"""

from __future__ import annotations

import copy
import random

import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.relevance import demo
from kinds.relevance import report as r
from kinds.relevance.analyses import evaluation
from kinds.relevance.data import scale_of, threshold_of
from kinds.relevance.partials import (
    MEASURES,
    RelevancePartial,
    campaign_report,
    evaluation_summary,
    merge,
    system_ranking_stability,
    system_runs,
    topic_partial,
)
from kinds.relevance.tests.test_report import trec  # noqa: F401 (fixture)
from scoring.partials import MergeInput, differences
from scoring.selectors import JudgmentRow, ReportInput, report_input
from stats import labelmodels as lm
from stats.intervals import interval_settings

pytestmark = pytest.mark.django_db


# -- the campaign report before partials (reference implementation, verbatim) ----------------


def _reference_campaign_report(input: ReportInput) -> r.RelevanceCampaignReport:
    campaign, topics, judgments, runs = input.campaign, input.topics, input.judgments, input.runs
    scale, threshold = scale_of(campaign.params), threshold_of(campaign.params)
    g = r.grades(topics, judgments)
    settings = interval_settings(campaign.params)
    evaluated = evaluation(g, runs, threshold=threshold)
    return r.RelevanceCampaignReport(
        **r.agreement_fields(g, scale=scale, threshold=threshold, settings=settings),
        topics=len(topics),
        scale=scale,
        threshold=threshold,
        evaluation=evaluation_summary(evaluated),
        runs=len(system_runs(runs)),
        ranking=system_ranking_stability(evaluated, settings),
        reliability=lm.graded_reliability(
            g.matrix.T, g.assessors, lm.model_truth(g.matrix.T, "dawid-skene", len(r.levels(scale, g)))
        ),
    )


def assert_merge_equals_reference(given: ReportInput) -> r.RelevanceCampaignReport:
    merged = campaign_report(given)
    found = differences(typed.dump(merged), typed.dump(_reference_campaign_report(given)), tolerance=1e-12)
    assert found == []
    # the topic objects a merge sees carry no data (scoring.jobs reads id, external_id, position)
    bare = [copy.copy(t) for t in given.topics]
    for t in bare:
        t.data, t.title = None, None
    partials = [typed.unpack(typed.pack(topic_partial(given, t)), RelevancePartial) for t in given.topics]
    again = merge(MergeInput(given.campaign, bare, given.runs), partials)
    assert typed.dump(again) == typed.dump(merged)
    return merged


# -- campaigns ----------------------------------------------------------------------------------


def random_campaign(people, make_user, seed: int):
    """Topics of 1-6 documents, four assessors who grade some topics only, three systems that rank some topics only (one ranks none it can be
    scored on), one topic nobody grades."""
    rng = random.Random(seed)
    assessors = [make_user(f"rel{seed}-{i}") for i in range(4)]
    campaign = create_campaign(
        creator=people["organiser"],
        kind="relevance",
        name=f"R{seed}",
        overlap=4,
        params={"scale": ["non-relevant", "related", "relevant", "highly relevant"], "threshold": 2},
    )
    for person in assessors:
        add_member(campaign=campaign, username=person.username, role="assessor")
    documents = {f"q{t}": [f"q{t}d{d}" for d in range(rng.choice([1, 3, 4, 6]))] for t in range(8)}
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "title": t, "data": {"title": t, "documents": [{"id": d, "text": d} for d in docs]}}
            for t, docs in documents.items()
        ],
    )
    for topic in campaign.topics.order_by("position"):
        if topic.external_id == "q5":
            continue
        ids = documents[topic.external_id]
        for person in assessors:
            if rng.random() < 0.3:
                continue
            payload = {"grades": {d: rng.randint(0, 3) for d in ids}}
            save_judgment(topic=topic, assessor=person, payload=payload, status="submitted", version=0)

    def ranking(t):
        pool = [*documents[t], f"{t}-unjudged"]
        rng.shuffle(pool)
        return [[d, float(len(pool) - i)] for i, d in enumerate(pool[: rng.randint(1, len(pool))])]

    import_runs(
        campaign=campaign,
        runs=[
            {"name": "bm25", "data": {"ranking": {t: ranking(t) for t in documents}}},
            {"name": "dense", "data": {"ranking": {t: ranking(t) for t in documents if rng.random() < 0.6}}},
            {"name": "sparse", "data": {"ranking": {t: ranking(t) for t in documents if t != "q5"}}},
        ],
    )
    return campaign


# -- tests --------------------------------------------------------------------------------------


def test_the_demo_campaign_merges_to_the_reference(people, make_user):
    campaign = demo.build(people["organiser"], [make_user(n) for n in demo.ASSESSORS], [])
    merged = assert_merge_equals_reference(report_input(campaign))
    # literals of the report before partials
    assert (merged.topics, merged.items, merged.items_judged, merged.runs) == LITERALS["demo"]["sizes"]
    assert merged.alpha.ordinal == pytest.approx(LITERALS["demo"]["alpha"], abs=1e-12)
    assert merged.evaluation.systems[0].system == LITERALS["demo"]["best"]
    assert merged.ranking.p5 == pytest.approx(LITERALS["demo"]["ranking_tau"], abs=1e-12)


def test_the_report_tests_campaign_merges_to_the_reference(trec):  # noqa: F811
    given = report_input(trec)
    merged = assert_merge_equals_reference(given)
    assert [p.kappa for p in merged.pairs] == pytest.approx(LITERALS["trec"]["kappas"], abs=1e-12)
    # without judgments, without runs, without topics
    assert_merge_equals_reference(ReportInput(trec, given.topics, [], given.runs))
    assert_merge_equals_reference(ReportInput(trec, given.topics, given.judgments, []))
    assert_merge_equals_reference(ReportInput(trec, [], [], given.runs))


@pytest.mark.parametrize("seed", range(4))
def test_random_campaigns_merge_to_the_reference(people, make_user, seed):
    campaign = random_campaign(people, make_user, seed)
    given = report_input(campaign)
    assert_merge_equals_reference(given)
    # submissions are complete; grades of some documents only (stored before a topic grew, or
    # imported) go through the same merge
    rng = random.Random(seed)
    some = [
        JudgmentRow(
            j.topic_id, j.assessor, {"grades": {d: g for d, g in j.payload["grades"].items() if rng.random() < 0.6}}
        )
        for j in given.judgments
    ]
    assert_merge_equals_reference(ReportInput(campaign, given.topics, some, given.runs))


def test_a_topics_partial_depends_on_that_topic_only(people, make_user):
    campaign = random_campaign(people, make_user, 7)
    topics = list(campaign.topics.order_by("position"))
    before = report_input(campaign)
    packed = {t.pk: typed.pack(topic_partial(before, t)) for t in topics}
    # another topic's judgment changes: every other topic's partial is byte-identical
    changed = Judgment.objects.filter(topic=topics[0]).select_related("assessor").first()
    reopen_judgment(topic=topics[0], assessor=changed.assessor, version=changed.version)
    grades = {d["id"]: 3 - (changed.payload["grades"].get(d["id"], 0)) for d in topics[0].data["documents"]}
    save_judgment(
        topic=topics[0],
        assessor=changed.assessor,
        payload={"grades": grades},
        status="submitted",
        version=changed.version + 1,
    )
    after = report_input(campaign)
    assert typed.pack(topic_partial(after, topics[0])) != packed[topics[0].pk]
    for t in topics[1:]:
        assert typed.pack(topic_partial(after, t)) == packed[t.pk]
    # and the partial read from the topic's own input (what a recompute of it reads) is the same bytes
    alone = report_input(campaign, topic_ids=[topics[2].pk])
    assert typed.pack(topic_partial(alone, topics[2])) == packed[topics[2].pk]


def test_an_empty_ranking_scores_the_default_instead_of_crashing(trec):  # noqa: F811
    """pytrec_eval crashes the process on an empty ranking; the topic's partial scores that
    system as a run without the topic (ir-measures' default, 0), as a missing ranking."""
    given = report_input(trec)
    run = given.runs[0]
    run.data = {"ranking": {**run.data["ranking"], "t1": []}}
    partial = topic_partial(given, given.topics[0])
    assert len(partial.systems) == 3 and len(partial.scores) == len(partial.sets) * 3 * len(MEASURES)
    first = partial.systems.index(run.name) * len(MEASURES)
    assert partial.scores[first : first + len(MEASURES)] == [0.0] * len(MEASURES)
    del run.data["ranking"]["t1"]
    assert typed.pack(topic_partial(given, given.topics[0])) == typed.pack(partial)


#: the figures the report gave before partials (computed with the reference above on the same data)
LITERALS = {
    "demo": {"sizes": (10, 134, 134, 5), "alpha": 0.5575351998014787, "best": "hybrid", "ranking_tau": 0.8},
    "trec": {"kappas": [0.02777777777777768, 0.02777777777777768, -0.1351351351351351]},
}


def test_large_grade_sets_draw_the_library_s_grouped_bootstrap():
    """From stats.intervals.GROUPED_FROM documents on, every pair's intervals and the
    campaign's alpha and AC2 intervals are ``grouped_bootstrap`` of the same per-document
    statistics (seed 0) to 1e-12 (the merge of 10,000 topics x 4 documents: 1.1 s, against 4.0 s document by document);
    below it, the document-by-document bootstrap of ``pair_intervals``,
    as before."""
    import numpy as np

    from stats.gwet import gwet_units
    from stats.intervals import GROUPED_FROM, IntervalSettings, pair_intervals
    from stats.uncertainty import cohen_kappa_units, grouped_bootstrap, krippendorff_alpha_units

    rng = np.random.default_rng(7)
    n = GROUPED_FROM + 700
    truth = rng.integers(0, 4, n)
    matrix = np.array([np.where(rng.random(n) < 0.7, truth, rng.integers(0, 4, n)) for _ in range(3)], float)
    matrix[2, rng.random(n) < 0.4] = np.nan  # the third grades 60% of the documents: 1,620 shared
    g = r.Grades([("t1", f"d{i}") for i in range(n)], np.zeros(n, np.intp), ["t1"], ["x", "y", "z"], matrix)
    settings = IntervalSettings(resamples=300)
    scale = ["0", "1", "2", "3"]
    result = r.agreement_fields(g, scale=scale, threshold=1, settings=settings)
    levels = np.arange(4.0)

    def same(ci, interval):
        assert ci.method == interval.method == "bootstrap" and ci.units == interval.units
        for mine, theirs in ((ci.value, interval.value), (ci.low, interval.low), (ci.high, interval.high)):
            assert mine == pytest.approx(theirs, abs=1e-12, rel=0)

    statistics = {
        "kappa_ci": cohen_kappa_units(levels, levels, labels=levels).statistic,
        "quadratic_ci": cohen_kappa_units(levels, levels, weights="quadratic", labels=levels).statistic,
        "overlap_pooled_ci": r._pooled_overlap(levels >= 1),
        "ac2": r._confusion_ac2(r.agreement_weights(levels, r.AC2_WEIGHTS)),
    }
    grouped = []
    for pair in result["pairs"]:
        a, b = (g.assessors.index(name) for name in pair.assessors)
        shared = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
        cells = (matrix[a, shared] * 4 + matrix[b, shared]).astype(int)
        grouped.append(pair.n >= GROUPED_FROM)
        for field, statistic in statistics.items():
            if pair.n >= GROUPED_FROM:
                expected = grouped_bootstrap(np.eye(16)[cells], statistic, n_resamples=300, seed=0)
                same(getattr(pair, field), expected)
            else:
                (plain,) = pair_intervals([cells], 16, {field: statistic}, "documents", resamples=300, seed=0)
                assert getattr(pair, field) == plain[field]
    assert grouped == [True, False, False]
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    for level in ("ordinal", "interval"):
        alpha = krippendorff_alpha_units(matrix[:, pairable], level=level)
        same(
            getattr(result["alpha"], f"{level}_ci"), grouped_bootstrap(alpha.per_unit, alpha.statistic, n_resamples=300)
        )
    ac2 = gwet_units(matrix.T, weights=r.AC2_WEIGHTS, categories=levels)
    same(result["ac2"], grouped_bootstrap(ac2.per_unit, ac2.statistic, n_resamples=300, seed=0))
