"""Intervals on every figure of the pairs report: each interval equals
a direct call of the metric library's bootstrap (stats/uncertainty.py, seed 0, 1000
resamples) to 1e-12; the ranking's stability; the page's stop signal; the matrix CSV's intervals."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs.partials import campaign_report
from kinds.pairs.report import agreement, votes
from kinds.pairs.stats import consensus
from scoring.selectors import report_input, submitted_judgments
from stats.agreement import category_counts
from stats.gwet import gwet_units
from stats.intervals import IntervalSettings, pair_intervals, ranking_stability
from stats.intervals import ac1_of_cells as _ac1_of_cells
from stats.systems import query_counts
from stats.uncertainty import (
    fleiss_kappa_interval,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
    pairwise_units,
)
from tests.campaigns import pairs_topics

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


def close(ci, interval):
    """A stored FigureCI equals a metric-library Interval to 1e-12."""
    assert ci.method == interval.method and ci.units == interval.units
    for mine, theirs in ((ci.value, interval.value), (ci.low, interval.low), (ci.high, interval.high)):
        assert mine == pytest.approx(theirs, abs=1e-12, rel=0, nan_ok=True)


@pytest.fixture
def judged(people, django_capture_on_commit_callbacks):
    """Three assessors, overlap 3, six topics of five candidates, seeded labels; carol skips q6."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="R", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(6, 5))
    # As after a commit: the import's recompute request is queued (it sets the campaign's flag).
    with django_capture_on_commit_callbacks(execute=True):
        import_runs(
            campaign=campaign,
            runs=[
                {
                    "name": name,
                    "data": {
                        "results": {
                            f"q{t}": [
                                {"id": f"c{c}", "text": f"Candidate {t}.{c}"}
                                for c in range(1, 6)
                                if (t * 7 + c * (s + 2)) % (s + 3) != 0
                            ]
                            for t in range(1, 7)
                        }
                    },
                }
                for s, name in enumerate(("A", "B", "C", "D"))
            ],
        )
    rng = np.random.default_rng(7)
    truth = rng.random((6, 5)) < 0.4
    with django_capture_on_commit_callbacks(execute=True):
        for topic in campaign.topics.all():
            t = int(topic.external_id[1:]) - 1
            for assignment in topic.assignments.select_related("assessor"):
                flips = rng.random(5) < 0.2
                matches = {f"c{c + 1}": bool(truth[t, c] ^ flips[c]) for c in range(5)}
                if assignment.assessor.username == "carol" and t == 5:
                    continue
                save_judgment(
                    topic=topic,
                    assessor=assignment.assessor,
                    payload={"matches": matches},
                    status="submitted",
                    version=0,
                )
    return campaign


def test_every_pair_interval_is_the_library_bootstrap_of_its_shared_items(judged):
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    report = agreement(v)
    assert len(report.pairs) == 3
    for pair in report.pairs:
        i, j = (v.assessors.index(n) for n in pair.assessors)
        shared = ~np.isnan(v.matrix[:, i]) & ~np.isnan(v.matrix[:, j])
        first, second = v.matrix[shared, i] == 1, v.matrix[shared, j] == 1
        for figure in ("kappa", "overlap", "positive", "negative"):
            ci = getattr(pair, f"{figure}_ci")
            close(ci, pairwise_units(first, second, figure=figure).interval(n_resamples=1000, seed=0))
            assert ci.value == pytest.approx(getattr(pair, figure), abs=1e-12)
            assert ci.low <= ci.value <= ci.high and ci.unit == "items" and ci.units == pair.n
        ratings = np.column_stack([first, second]).astype(float)
        close(pair.ac1, gwet_units(ratings, categories=[0.0, 1.0]).interval(n_resamples=1000, seed=0))
    assert [p.kappa_ci.units for p in report.pairs] == [30, 25, 25]  # carol missed one topic of five candidates


def test_campaign_figures_intervals_are_the_library_s(judged):
    data = campaign_report(report_input(judged))
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    complete = v.matrix[~np.isnan(v.matrix).any(axis=1)]
    table = category_counts(complete, categories=[0.0, 1.0])
    close(data.fleiss.bootstrap, fleiss_kappa_units(table).interval(n_resamples=1000, seed=0))
    test = fleiss_kappa_test(table)
    assert (data.fleiss.chance_test.z, data.fleiss.chance_test.p_value, data.fleiss.chance_test.se) == (
        test.z,
        test.p_value,
        test.se,
    )
    close(data.fleiss.analytic_general, fleiss_kappa_interval(table))
    assert data.fleiss.bootstrap.units == 25 and data.fleiss.chance_test.units == 25
    assert data.fleiss.analytic_general.method == "analytic"
    assert data.fleiss.bootstrap.value == pytest.approx(data.fleiss.kappa, abs=1e-12)
    close(data.alpha.ci, krippendorff_alpha_units(v.matrix.T, level="nominal").interval(n_resamples=1000, seed=0))
    assert data.alpha.ci.units == 30
    close(data.ac1, gwet_units(v.matrix, categories=[0.0, 1.0]).interval(n_resamples=1000, seed=0))
    assert data.ac1.units == 30
    for ci in (data.fleiss.bootstrap, data.alpha.ci, data.ac1):
        assert ci.low <= ci.value <= ci.high


def test_the_resamples_param_and_the_seed(judged):
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    fewer = agreement(v, IntervalSettings(resamples=200))
    pair = fewer.pairs[0]
    i, j = (v.assessors.index(n) for n in pair.assessors)
    first, second = v.matrix[:, i] == 1, v.matrix[:, j] == 1
    close(pair.kappa_ci, pairwise_units(first, second).interval(n_resamples=200, seed=0))
    assert agreement(v).pairs[0].kappa_ci == agreement(v).pairs[0].kappa_ci  # seeded: the same twice


def test_pair_intervals_in_one_pass_equal_one_bootstrap_per_pair():
    """Many pairs of several sizes (and a block boundary), each equal to its own bootstrap."""
    rng = np.random.default_rng(3)
    statistics = {"kappa": pairwise_units([True], [True]).statistic, "ac1": _ac1_of_cells}
    sizes = [1, 2, 5, 5, 40, 40, 40, 7]
    pairs = [(rng.random(n) < 0.3, rng.random(n) < 0.4) for n in sizes]
    cells = [np.where(a, np.where(b, 0, 1), np.where(b, 2, 3)) for a, b in pairs]
    found = pair_intervals(cells, 4, statistics, "items", resamples=300, seed=0, min_units=2)
    for (a, b), result in zip(pairs, found):
        close(result["kappa"], pairwise_units(a, b).interval(n_resamples=300, seed=0))
    assert found[0]["kappa"].method == "none" and found[0]["kappa"].units == 1


def test_ac1_of_two_raters_is_gwet_s():
    """Gwet (2014)'s 2x2 example: AC1 of the table [[a, b], [c, d]] from its cells."""
    from stats.gwet import gwet_table

    a, b, c, d = 5, 1, 2, 32
    expected = gwet_table([[d, c], [b, a]]).value  # rows: first rater no / yes
    assert float(_ac1_of_cells(np.array([a, b, c, d], float))) == pytest.approx(expected, abs=1e-12)


def test_ranking_stability_of_the_systems_by_pooled_f1(judged):
    data = campaign_report(report_input(judged))
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    from kinds.pairs.analyses import returned_matrix
    from kinds.pairs.partials import _pooled_f1, system_runs

    runs = system_runs(list(judged.runs.all()))
    counts = query_counts(returned_matrix(v, runs), consensus(v.matrix), [t for t, _ in v.items])
    expected = ranking_stability(counts.astype(float), measure="F1 (consensus)", statistic=_pooled_f1)
    assert data.ranking == expected
    assert (data.ranking.systems, data.ranking.units, data.ranking.unit) == (4, 6, "topics")
    assert data.ranking.method == "bootstrap" and -1 <= data.ranking.p5 <= data.ranking.median <= 1
    # the full-topic F1 the ranking is of is the systems table's consensus F1
    full = _pooled_f1(counts.sum(axis=1).astype(float))
    assert full.tolist() == pytest.approx([s.consensus.f1 for s in data.systems], abs=1e-12)


def test_the_page_shows_intervals_and_the_stop_signal(client, people, judged):
    from scoring.selectors import campaign_report as stored
    from stats.stopping import stop_signal

    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{judged.pk}/report/").content.decode()
    assert 'id="fleiss-kappa-ci"' in page and "· 25 items" in page
    assert "Fleiss, Nee &amp; Landis 1979" in page
    # the null standard error is shown as a test of kappa = 0, not as an interval
    test = stored(judged).data.fleiss.chance_test
    assert f"z = {test.z:.2f}, p" in page.split('id="fleiss-kappa-test"')[1].split("</span></span>")[0]
    # Fleiss' kappa rests on 25 items: too few for its interval's width to judge precision by
    assert "too few items to judge (25 of at least 30)" in page.split('id="fleiss-kappa-stop"')[1][:200]
    # the first pair shares 30 items, a kappa interval far wider than +-0.05: the signal says how many more
    kappa = stored(judged).data.pairs[0].kappa_ci
    more = stop_signal(kappa, 0.05).more_units
    assert kappa.units == 30 and more > 100
    assert f"about {more} more items" in page
    # 6 topics and 4 systems: too few topics to judge the ranking's stability
    assert "too few topics to judge (6 of at least 10)" in page.split('id="ranking-stop"')[1][:200]
    # a precision of 0.9 is reached at once (no new report needed: the signal is arithmetic)
    judged.params = {**judged.params, "precision": 0.9}
    judged.save(update_fields=["params"])
    page = client.get(f"/campaigns/{judged.pk}/report/").content.decode()
    assert "✓ reached" in page and f"about {more} more items" not in page


def test_the_matrix_csv_has_every_pair_s_interval(client, people, judged):
    client.force_login(people["organiser"])
    url = f"/campaigns/{judged.pk}/report/matrix.csv"
    response = client.get(url, {"names": "names", "values": "kappa_matrix", "layout": "long"})
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["first", "second", "value", "low", "high", "units", "unit", "method"]
    from scoring.selectors import campaign_report as stored

    data = stored(judged).data
    by_pair = {tuple(p.assessors): p for p in data.pairs}
    assert len(rows) == 4
    for first, second, value, low, high, units, unit, method in rows[1:]:
        pair = by_pair[(first, second)]
        assert (float(value), float(low), float(high)) == (pair.kappa, pair.kappa_ci.low, pair.kappa_ci.high)
        assert (int(units), unit, method) == (pair.n, "items", "bootstrap")
    # the square matrix is unchanged; an unknown layout is a 400 naming it
    square = client.get(url, {"names": "names", "values": "kappa_matrix"})
    assert next(csv.reader(io.StringIO(square.content.decode()))) == ["", *data.names]
    bad = client.get(url, {"names": "names", "values": "kappa_matrix", "layout": "wide"})
    assert bad.status_code == 400 and "layout: expected matrix or long" in bad.content.decode()


def test_the_agreement_api_carries_every_interval(api, people, judged):
    from scoring.selectors import campaign_report as stored

    data = stored(judged).data
    body = api(people["organiser"]).get(f"/api/campaigns/{judged.pk}/agreement/").json()["data"]
    pair = data.pairs[0]
    assert body["pairs"][0]["kappa_ci"] == {
        "value": pair.kappa_ci.value,
        "low": pair.kappa_ci.low,
        "high": pair.kappa_ci.high,
        "units": pair.n,
        "unit": "items",
        "method": "bootstrap",
        "level": 0.95,
    }
    assert body["fleiss"]["analytic_general"]["method"] == "analytic" and body["fleiss"]["bootstrap"]["units"] == 25
    # the null standard error is a test of kappa = 0, not an interval
    assert set(body["fleiss"]["chance_test"]) == {"z", "p_value", "se", "units", "unit"}
    assert body["fleiss"]["chance_test"]["z"] == data.fleiss.chance_test.z and "analytic" not in body["fleiss"]
    assert body["ac1"]["units"] == 30 and body["alpha"]["ci"]["units"] == 30
    assert body["ranking"]["unit"] == "topics" and body["ranking"]["p5"] == data.ranking.p5
    schema = api(people["organiser"]).get("/api/schema/").content.decode()
    assert "FigureCI" in schema and "RankingStability" in schema and "ChanceTest" in schema
