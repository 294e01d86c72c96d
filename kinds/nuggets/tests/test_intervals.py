"""Intervals on the nuggets report's vital/okay label agreement: each is the metric
library's bootstrap (seed 0, 1000 resamples) to 1e-12; the runs' ranking stability by pyramid F;
the page's stop signal and the matrix CSV with intervals."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from kinds.nuggets.partials import label_agreement
from kinds.nuggets.report import arrays, scores
from kinds.nuggets.tests.test_report import labelled  # noqa: F401
from scoring.selectors import campaign_report, report_input, submitted_judgments
from stats.agreement import category_counts
from stats.gwet import gwet_units
from stats.intervals import IntervalSettings, ranking_stability
from stats.uncertainty import (
    fleiss_kappa_interval,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
    pairwise_units,
)

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


def close(ci, interval):
    assert ci.method == interval.method and ci.units == interval.units
    for mine, theirs in ((ci.value, interval.value), (ci.low, interval.low), (ci.high, interval.high)):
        assert mine == pytest.approx(theirs, abs=1e-12, rel=0, nan_ok=True)


def labels_of(campaign):
    input = report_input(campaign)
    return arrays(input.topics, submitted_judgments(campaign), input.runs)


def test_label_agreement_intervals_are_the_library_s(labelled):  # noqa: F811
    a = labels_of(labelled)
    result = label_agreement(a)
    assert result.labellings == ["original", "alice", "bob"]
    assert [list(p.labellings) for p in result.pairs] == [["original", "alice"], ["original", "bob"], ["alice", "bob"]]
    for pair in result.pairs:
        i, j = (a.assessors.index(n) for n in pair.labellings)
        first, second = a.labels[i] == 1, a.labels[j] == 1
        assert pair.n == 7
        for figure in ("kappa", "overlap", "positive", "negative"):
            ci = getattr(pair, figure)
            close(ci, pairwise_units(first, second, figure=figure).interval(n_resamples=1000, seed=0))
            assert ci.unit == "nuggets" and ci.units == 7
        close(pair.ac1, gwet_units(a.labels[[i, j]].T, categories=[0.0, 1.0]).interval(n_resamples=1000, seed=0))
    table = category_counts(a.labels.T, categories=[0.0, 1.0])
    close(result.fleiss, fleiss_kappa_units(table).interval(n_resamples=1000, seed=0))
    test = fleiss_kappa_test(table)
    assert (result.fleiss_chance_test.z, result.fleiss_chance_test.p_value) == (test.z, test.p_value)
    assert result.fleiss_chance_test.units == 7 and result.fleiss_chance_test.unit == "nuggets"
    close(result.fleiss_analytic_general, fleiss_kappa_interval(table))
    assert (result.fleiss_items, result.fleiss_raters) == (7, 3)
    close(result.alpha, krippendorff_alpha_units(a.labels, level="nominal").interval(n_resamples=1000, seed=0))
    close(result.ac1, gwet_units(a.labels.T, categories=[0.0, 1.0]).interval(n_resamples=1000, seed=0))
    # the original and bob by hand: both vital on q1 n0 and n1, only the original on q2 n0, 4 okay in both
    original, bob = a.labels[0] == 1, a.labels[2] == 1
    both, o_only, b_only, neither = (
        int((original & bob).sum()),
        int((original & ~bob).sum()),
        int((~original & bob).sum()),
        int((~original & ~bob).sum()),
    )
    assert (both, o_only, b_only, neither) == (2, 1, 0, 4)
    kappa = (
        2
        * (both * neither - o_only * b_only)
        / ((both + o_only) * (o_only + neither) + (both + b_only) * (b_only + neither))
    )
    assert result.pairs[1].kappa.value == pytest.approx(kappa, abs=1e-12)
    fewer = label_agreement(a, IntervalSettings(resamples=250))
    close(fewer.pairs[0].kappa, pairwise_units(a.labels[0] == 1, a.labels[1] == 1).interval(n_resamples=250, seed=0))


def test_the_runs_ranking_stability(labelled):  # noqa: F811
    data = campaign_report(labelled).data
    a = labels_of(labelled)
    expected = ranking_stability(scores(a)["pyramid"], measure="pyramid F (β = 3)", unit="questions")
    assert data.ranking == expected
    assert (data.ranking.systems, data.ranking.units, data.ranking.unit) == (3, 2, "questions")


def test_the_page_and_the_matrix_csv(client, people, labelled):  # noqa: F811
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{labelled.pk}/report/").content.decode()
    assert 'id="labels-fleiss-ci"' in page and "· 7 nuggets" in page and 'id="label-pairs-table"' in page
    assert "too few nuggets to judge (7 of at least 30)" in page  # no signal on 7 nuggets
    assert 'id="ranking-stop"' in page
    response = client.get(
        f"/campaigns/{labelled.pk}/report/matrix.csv",
        {"names": "labellings", "values": "kappa_matrix", "layout": "long"},
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    data = campaign_report(labelled).data
    assert rows[0] == ["first", "second", "value", "low", "high", "units", "unit", "method"]
    assert [r[:2] for r in rows[1:]] == [["original", "alice"], ["original", "bob"], ["alice", "bob"]]
    for row, pair in zip(rows[1:], data.label_agreement.pairs):
        assert float(row[2]) == pair.kappa.value and row[5:7] == ["7", "nuggets"]
        assert (row[3] == "" and pair.kappa.low is None) or float(row[3]) == pair.kappa.low


def test_no_labels_no_intervals():
    from kinds.nuggets.report import Arrays

    a = Arrays([], [], np.zeros(0, np.intp), [], np.zeros((0, 0)), [], np.zeros((0, 0), bool), np.zeros((0, 0)))
    result = label_agreement(a)
    assert result.pairs == [] and result.fleiss.method == "none" and result.ac1.method == "none"
