"""Intervals on every agreement figure of the graded relevance report: each is the metric
library's bootstrap (stats/uncertainty.py, gwet.py; seed 0, 1000 resamples) to 1e-12;
the ranking's stability by nDCG@10 under the consensus qrels; the page's stop signal."""

from __future__ import annotations

import numpy as np
import pytest

from kinds.relevance import stats as m
from kinds.relevance.report import Grades, _confusion_ac2, agreement
from kinds.relevance.tests.test_report import TOPIC_INDEX, expected_evaluation, matrix, trec  # noqa: F401
from scoring.selectors import campaign_report
from stats.gwet import agreement_weights, gwet_table, gwet_units
from stats.intervals import IntervalSettings, ranking_stability
from stats.uncertainty import cohen_kappa_units, krippendorff_alpha_units, mean_units, ratio_units

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


LEVELS = [0.0, 1.0, 2.0, 3.0]


def close(ci, interval):
    assert ci.method == interval.method and ci.units == interval.units
    for mine, theirs in ((ci.value, interval.value), (ci.low, interval.low), (ci.high, interval.high)):
        assert mine == pytest.approx(theirs, abs=1e-12, rel=0, nan_ok=True)


def seeded_grades(seed=4, assessors=4, topics=6, documents=12) -> Grades:
    """Assessors grading 0-3 around a per-document truth, a few documents left ungraded."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, topics * documents)
    noise = rng.integers(-1, 2, (assessors, topics * documents))
    grades = np.clip(truth + noise, 0, 3).astype(float)
    grades[rng.random(grades.shape) < 0.1] = np.nan
    items = [(f"t{t}", f"d{d}") for t in range(topics) for d in range(documents)]
    return Grades(
        items,
        np.repeat(np.arange(topics), documents).astype(np.intp),
        [f"t{t}" for t in range(topics)],
        [f"a{a}" for a in range(assessors)],
        grades,
    )


def test_every_pair_interval_is_the_library_bootstrap():
    g = seeded_grades()
    report = agreement(g, scale=["0", "1", "2", "3"], threshold=2)
    overlap = m.relevant_overlap(g.matrix, g.topic_index, threshold=2, n_topics=len(g.topics))
    assert len(report.pairs) == 6
    for pair in report.pairs:
        a, b = (g.assessors.index(n) for n in pair.assessors)
        shared = ~np.isnan(g.matrix[a]) & ~np.isnan(g.matrix[b])
        x, y = g.matrix[a, shared], g.matrix[b, shared]
        for field, weights in (("kappa", None), ("linear", "linear"), ("quadratic", "quadratic")):
            ci = getattr(pair, f"{field}_ci")
            close(ci, cohen_kappa_units(x, y, weights=weights, labels=LEVELS).interval(n_resamples=1000, seed=0))
            assert ci.value == pytest.approx(getattr(pair, field), abs=1e-12)
            assert ci.low <= ci.value <= ci.high and ci.units == pair.n and ci.unit == "documents"
        close(
            pair.ac2,
            gwet_units(np.column_stack([x, y]), weights="quadratic", categories=LEVELS).interval(
                n_resamples=1000, seed=0
            ),
        )
        # pooled overlap: per document the (both relevant, either relevant) counts
        per_document = np.column_stack([(x >= 2) & (y >= 2), (x >= 2) | (y >= 2)]).astype(float)
        from stats.uncertainty import bootstrap

        close(
            pair.overlap_pooled_ci,
            bootstrap(
                per_document, lambda s: np.where(s[..., 1] > 0, s[..., 0] / s[..., 1], np.nan), units=int(shared.sum())
            ),
        )
        assert pair.overlap_pooled_ci.value == pytest.approx(pair.overlap_pooled, abs=1e-12)
        # the mean overlap over topics: units are the topics with a non-empty union
        close(pair.overlap_ci, mean_units(overlap.per_topic[:, a, b]).interval(n_resamples=1000, seed=0))
        assert pair.overlap_ci.unit == "topics" and pair.overlap_ci.value == pytest.approx(pair.overlap, abs=1e-12)


def test_campaign_figures_intervals():
    g = seeded_grades()
    report = agreement(g, scale=["0", "1", "2", "3"], threshold=2)
    pairable = (~np.isnan(g.matrix)).sum(axis=0) >= 2
    for level in ("ordinal", "interval"):
        ci = getattr(report.alpha, f"{level}_ci")
        close(ci, krippendorff_alpha_units(g.matrix[:, pairable], level=level).interval(n_resamples=1000, seed=0))
        assert ci.value == pytest.approx(getattr(report.alpha, level), abs=1e-12) and ci.units == report.alpha.items
    close(report.ac2, gwet_units(g.matrix.T, weights="quadratic", categories=LEVELS).interval(n_resamples=1000, seed=0))
    assert report.ac2_weights == "quadratic" and report.ac2.units == 72
    overlap = m.relevant_overlap(g.matrix, g.topic_index, threshold=2, n_topics=len(g.topics))
    close(report.group_overlap.mean_ci, mean_units(overlap.group_per_topic).interval(n_resamples=1000, seed=0))
    fewer = agreement(g, scale=["0", "1", "2", "3"], threshold=2, settings=IntervalSettings(resamples=150))
    x, y = g.matrix[0], g.matrix[1]
    shared = ~np.isnan(x) & ~np.isnan(y)
    close(fewer.pairs[0].kappa_ci, cohen_kappa_units(x[shared], y[shared], labels=LEVELS).interval(n_resamples=150))


def test_ac2_of_a_confusion_table_is_gwet_s():
    table = np.array([[5, 2, 0, 0], [1, 7, 3, 0], [0, 2, 9, 1], [0, 0, 2, 4]], float)
    weights = agreement_weights(np.array(LEVELS), "quadratic")
    expected = gwet_table(table, weights="quadratic", categories=LEVELS).value
    assert float(_confusion_ac2(weights)(table.ravel())) == pytest.approx(expected, abs=1e-12)


def test_the_worked_example_s_ranking_stability_and_page(trec, client, people):  # noqa: F811
    data = campaign_report(trec).data
    e = expected_evaluation()
    scores = e.per_topic[0, :, :, e.measures.index("nDCG@10")]
    assert data.ranking == ranking_stability(scores, measure="nDCG@10 (consensus)")
    assert (data.ranking.systems, data.ranking.units, data.ranking.unit) == (3, 2, "topics")
    # 7 documents, 3 assessors: every pair's interval rests on 7 documents
    assert [p.kappa_ci.units for p in data.pairs] == [7, 7, 7]
    assert data.alpha.ordinal_ci.units == 7 and data.group_overlap.mean_ci.units == 2
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{trec.pk}/report/").content.decode()
    assert 'id="alpha-ordinal-ci"' in page and "· 7 documents" in page and 'id="gwet-ac2"' in page
    assert "too few documents to judge (7 of at least 30)" in page and "✓ reached" not in page
    assert "too few topics to judge (2 of at least 10)" in page  # the ranking of 3 systems on 2 topics
    assert 'id="ranking-stop"' in page


def test_no_two_assessors_share_a_document():
    g = seeded_grades()
    g.matrix[1:, :] = np.nan  # one assessor only
    report = agreement(g, scale=["0", "1", "2", "3"], threshold=2)
    assert report.pairs == [] and report.alpha.ordinal_ci.method == "none"
    assert (report.ac2.units, report.ac2.method) == (report.items_judged, "none")  # no item rated twice


def test_pooled_group_overlap_has_its_interval_over_topics():
    # Summed intersections over summed unions of the topics, resampled by topic.
    g = seeded_grades()
    report = agreement(g, scale=["0", "1", "2", "3"], threshold=2)
    overlap = m.relevant_overlap(g.matrix, g.topic_index, threshold=2, n_topics=len(g.topics))
    ci = report.group_overlap.pooled_ci
    direct = ratio_units(overlap.group_intersection, overlap.group_union)
    close(ci, direct.interval(n_resamples=1000, seed=0))
    assert ci.value == pytest.approx(report.group_overlap.pooled, abs=1e-12)
    assert ci.value == pytest.approx(overlap.group_intersection.sum() / overlap.group_union.sum(), abs=1e-12)
    assert ci.units == int((overlap.group_union > 0).sum()) and ci.unit == report.group_overlap.mean_ci.unit
