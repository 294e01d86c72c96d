"""The shared bootstrap over units (stats/uncertainty.py).

Each ready-made statistic equals the library's own figure on all the units
(to 1e-12); intervals are reproducible for a seed and shared between figures
over the same units; Fleiss' analytic standard error is checked against the
bootstrap on Snow et al.'s (2008) RTE and temporal files and against irrCAC.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from scipy import stats

from stats import agreement
from stats.uncertainty import (
    bootstrap,
    cohen_kappa_units,
    fleiss_kappa_interval,
    fleiss_kappa_se,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
    mean_units,
    pairwise_units,
    resample_weights,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "snow2008"
NAN = float("nan")
#: Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (R irr's ``diagnoses`` as counts).
FLEISS_1971 = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
]  # fmt: skip
# Krippendorff (2011), section C: 4 coders x 12 units.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def snow_ratings(name: str) -> np.ndarray:
    """Items x 10 workers' responses of data/snow2008/<name>.csv (every item has 10)."""
    by_item: dict[str, list[str]] = defaultdict(list)
    with open(DATA / f"{name}.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            by_item[row["orig_id"]].append(row["response"])
    return np.array(list(by_item.values()))


@pytest.fixture(scope="module")
def rte_counts() -> np.ndarray:
    return agreement.category_counts(snow_ratings("rte")).counts


# --- resampling ------------------------------------------------------------------


def test_resample_weights_are_seeded_multinomial_counts():
    weights = resample_weights(5, n_resamples=4, seed=7)
    assert weights.shape == (4, 5) and weights.dtype == np.int64
    assert weights.sum(axis=1).tolist() == [5, 5, 5, 5]
    assert np.array_equal(weights, resample_weights(5, n_resamples=4, seed=7))
    assert not np.array_equal(weights, resample_weights(5, n_resamples=4, seed=8))
    # The draws themselves: the same generator calls, counted.
    draws = np.random.default_rng(7).integers(0, 5, size=(4, 5))
    assert np.array_equal(weights, np.stack([np.bincount(row, minlength=5) for row in draws]))
    # A longer run starts with the rows of a shorter one.
    assert np.array_equal(resample_weights(5, n_resamples=10, seed=7)[:4], weights)


def test_blocks_give_the_same_interval_as_one_weight_matrix(monkeypatch):
    stats = mean_units(np.random.default_rng(0).normal(size=50))
    whole = stats.interval(n_resamples=200, seed=4)
    shared = stats.interval(weights=resample_weights(50, n_resamples=200, seed=4))
    import stats.uncertainty as module

    monkeypatch.setattr(module, "_BLOCK_CELLS", 7 * 50)  # blocks of 7 resamples
    blocked = stats.interval(n_resamples=200, seed=4)
    assert whole == shared == blocked


def test_bootstrap_of_a_mean_is_the_percentile_interval():
    values = np.array([0.1, 0.4, 0.35, 0.8, 0.6, 0.2, 0.9, 0.55])
    stats = mean_units(values)
    interval = stats.interval(n_resamples=500, seed=11)
    means = resample_weights(8, n_resamples=500, seed=11) @ values / 8
    low, high = np.quantile(means, [0.025, 0.975])
    assert (interval.units, interval.method, interval.level) == (8, "bootstrap", 0.95)
    assert interval.low == pytest.approx(low, abs=1e-14) and interval.high == pytest.approx(high, abs=1e-14)
    assert interval.value == pytest.approx(0.4875, abs=1e-15)


def test_intervals_are_reproducible_for_a_seed_and_differ_between_seeds(rte_counts):
    stats = fleiss_kappa_units(rte_counts)
    first = stats.interval(seed=3)
    assert first == stats.interval(seed=3)
    assert first != stats.interval(seed=4)
    assert (first.units, first.method, first.level, first.dropped) == (800, "bootstrap", 0.95, 0.0)
    assert first.low < first.value < first.high


def test_sparse_per_unit_statistics_give_the_same_interval():
    from scipy import sparse

    stats = cohen_kappa_units([0, 1, 1, 2, 0, 2, 1, 0, 1, 2], [0, 1, 2, 2, 0, 1, 1, 0, 0, 2])
    dense = bootstrap(stats.per_unit, stats.statistic, n_resamples=300, seed=2)
    sparse_interval = bootstrap(sparse.csr_array(stats.per_unit), stats.statistic, n_resamples=300, seed=2)
    assert dense.value == sparse_interval.value
    assert dense.low == pytest.approx(sparse_interval.low, abs=1e-12)
    assert dense.high == pytest.approx(sparse_interval.high, abs=1e-12)


def test_undefined_resamples_are_dropped_and_counted():
    # Two raters who agree on 9 "a" and disagree once: a resample without the
    # disagreement has a single category, where kappa is 0/0.
    a = ["a"] * 9 + ["a"]
    b = ["a"] * 9 + ["b"]
    interval = cohen_kappa_units(a, b).interval(n_resamples=1000, seed=0)
    assert interval.value == 0.0
    # P(the one disagreement is never drawn) = 0.9 ** 10 = 0.349
    assert interval.dropped == pytest.approx(0.9**10, abs=0.04)
    assert interval.method == "bootstrap"


def test_no_interval_when_the_figure_is_undefined_or_rests_on_one_unit():
    undefined = cohen_kappa_units(["a", "a"], ["a", "a"]).interval()
    assert undefined.method == "none" and np.isnan(undefined.value) and not undefined.defined
    single = mean_units([0.3, NAN]).interval()
    assert (single.value, single.units, single.method) == (0.3, 1, "none")
    assert np.isnan(single.low) and np.isnan(single.high)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="n_resamples"):
        resample_weights(3, n_resamples=0)
    with pytest.raises(ValueError, match="n_units"):
        resample_weights(-1)
    with pytest.raises(ValueError, match="level"):
        mean_units([1.0, 2.0]).interval(level=1.0)
    with pytest.raises(ValueError, match="weights must have shape"):
        mean_units([1.0, 2.0]).interval(weights=np.ones((3, 4)))
    with pytest.raises(ValueError, match="figure"):
        pairwise_units([1, 0], [1, 1], figure="f1")
    with pytest.raises(ValueError, match="form"):
        fleiss_kappa_se([[1, 1]], form="exact")
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa_units([[2, 0], [1, 2]])


# --- each statistic of the full sums is the library's figure --------------------------


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(4))
def test_cohen_kappa_statistic_equals_cohen_kappa(weights, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, 200)
    b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 5, 200))
    assert cohen_kappa_units(a, b, weights=weights).value == pytest.approx(
        agreement.cohen_kappa(a, b, weights=weights), abs=1e-12
    )
    labels = [4, 0, 2]
    stats = cohen_kappa_units(a, b, weights=weights, labels=labels)
    assert stats.value == pytest.approx(agreement.cohen_kappa(a, b, weights=weights, labels=labels), abs=1e-12)
    assert stats.units == int(np.sum(np.isin(a, labels) & np.isin(b, labels)))


@pytest.mark.parametrize("name", ["rte", "temp"])
def test_fleiss_statistic_equals_fleiss_kappa_on_snow2008(name):
    counts = agreement.category_counts(snow_ratings(name)).counts
    assert fleiss_kappa_units(counts).value == pytest.approx(agreement.fleiss_kappa(counts), abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", range(3))
def test_krippendorff_statistic_equals_krippendorff_alpha(level, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 6, 150)
    data = np.where(rng.random((5, 150)) < 0.5, truth, rng.integers(0, 6, (5, 150))).astype(float)
    data[rng.random(data.shape) < 0.4] = np.nan
    data += 0.5  # non-integer values, positive for ratio
    stats = krippendorff_alpha_units(data, level=level)
    assert stats.value == pytest.approx(agreement.krippendorff_alpha(data, level=level), abs=1e-12)
    assert stats.units == int(np.sum(np.sum(~np.isnan(data), axis=0) >= 2))


@pytest.mark.parametrize(
    ("level", "alpha"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_krippendorff_statistic_on_krippendorff_2011(level, alpha):
    stats = krippendorff_alpha_units(KRIPPENDORFF_2011, level=level)
    assert round(stats.value, 3) == alpha
    assert stats.units == 11  # unit 12 has a single value
    interval = stats.interval(seed=0)
    assert interval.low < interval.value <= interval.high <= 1


@pytest.mark.parametrize("figure", ["observed", "overlap", "positive", "negative", "kappa"])
def test_pairwise_statistics_equal_pairwise_agreement(figure):
    rng = np.random.default_rng(5)
    a = rng.random(120) < 0.3
    b = np.where(rng.random(120) < 0.7, a, rng.random(120) < 0.3)
    expected = getattr(agreement.pairwise_agreement(a, b), figure)
    assert pairwise_units(a, b, figure=figure).value == pytest.approx(expected, abs=1e-12)


def test_mean_statistic_skips_missing_units():
    stats = mean_units([0.5, NAN, 0.25, 1.0])
    assert stats.value == pytest.approx(0.5833333333333334, abs=1e-15)
    assert stats.units == 3


def test_one_draw_serves_every_figure_over_the_same_units():
    rng = np.random.default_rng(9)
    a = rng.integers(0, 2, 60)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    weights = resample_weights(60, seed=1)
    for figure in ("overlap", "positive", "negative", "kappa"):
        stats = pairwise_units(a, b, figure=figure)
        assert stats.interval(weights=weights) == stats.interval(seed=1)
    # Cohen's kappa and the 2x2 kappa are the same figure, so the same interval.
    cohen = cohen_kappa_units(a, b).interval(seed=1)
    two_by_two = pairwise_units(a, b, figure="kappa").interval(seed=1)
    assert cohen.value == pytest.approx(two_by_two.value, abs=1e-12)
    assert cohen.low == pytest.approx(two_by_two.low, abs=1e-12)
    assert cohen.high == pytest.approx(two_by_two.high, abs=1e-12)


# --- Fleiss' kappa: analytic standard errors --------------------------------------------


def test_fleiss_analytic_interval_is_close_to_the_bootstrap_on_rte(rte_counts):
    """Snow et al. (2008) RTE: 800 items x 10 workers, kappa 0.2414.

    The general (Gwet 2008) interval's bounds are within 0.002 of the
    1000-resample percentile bootstrap's (Monte Carlo error of a 2.5%
    quantile at 1000 resamples is about 0.001 here); the null-hypothesis
    form of Fleiss, Nee & Landis (1979) is about half as wide: it is the
    standard error when kappa is 0, not here.
    """
    kappa = agreement.fleiss_kappa(rte_counts)
    assert round(kappa, 4) == 0.2414
    boot = fleiss_kappa_units(rte_counts).interval(seed=0)
    general = fleiss_kappa_interval(rte_counts)
    assert general.method == "analytic" and general.units == 800
    assert general.low == pytest.approx(boot.low, abs=0.002)
    assert general.high == pytest.approx(boot.high, abs=0.002)
    assert general.width == pytest.approx(boot.width, rel=0.05)
    assert round(fleiss_kappa_se(rte_counts), 4) == 0.0105
    assert round(fleiss_kappa_se(rte_counts, form="null"), 4) == 0.0053
    assert 2 * 1.96 * fleiss_kappa_se(rte_counts, form="null") < 0.55 * boot.width


def test_fleiss_analytic_interval_is_close_to_the_bootstrap_on_temporal():
    counts = agreement.category_counts(snow_ratings("temp")).counts
    boot = fleiss_kappa_units(counts).interval(seed=0)
    general = fleiss_kappa_interval(counts)
    assert general.low == pytest.approx(boot.low, abs=0.003)
    assert general.high == pytest.approx(boot.high, abs=0.003)


def test_fleiss_null_standard_error_by_hand():
    # p = (1/2, 1/2): sum pq = 1/2, sum pq(q - p) = 0, so SE0 = sqrt(2)/(1/2 sqrt(N n (n-1))) * 1/2.
    counts = [[3, 0], [0, 3], [2, 1], [1, 2], [3, 0], [0, 3]]
    assert fleiss_kappa_se(counts, form="null") == pytest.approx(np.sqrt(2) / np.sqrt(6 * 3 * 2), abs=1e-15)


@pytest.mark.parametrize("name", ["rte", "temp"])
def test_fleiss_general_standard_error_equals_irrcac(name):
    ratings = snow_ratings(name)
    reference = CAC(pd.DataFrame(ratings), digits=10).fleiss()["est"]
    counts = agreement.category_counts(ratings).counts
    assert fleiss_kappa_se(counts) == pytest.approx(reference["se"], abs=1e-9)
    assert agreement.fleiss_kappa(counts) == pytest.approx(reference["coefficient_value"], abs=1e-9)


def test_fleiss_kappa_test_is_r_irr_s_on_fleiss_1971():
    """R 4, irr 0.84: ``kappam.fleiss(diagnoses)`` prints

        Fleiss' Kappa for m Raters
         Subjects = 30
           Raters = 6
            Kappa = 0.43
                z = 17.7
          p-value = 0

    (irr's z is kappa over the square root of Fleiss, Nee & Landis's null
    variance; its p-value two-sided). ``diagnoses`` is Fleiss (1971), Table 1.
    """
    test = fleiss_kappa_test(FLEISS_1971)
    assert (round(test.value, 2), round(test.z, 1), test.units) == (0.43, 17.7, 30)
    assert test.se == fleiss_kappa_se(FLEISS_1971, form="null") and test.z == test.value / test.se
    assert test.p_value == pytest.approx(2 * stats.norm.sf(test.z), rel=1e-12)


def test_fleiss_kappa_test_holds_its_size_when_kappa_is_zero():
    """Raters labelling at random (kappa 0): the test rejects at 5% about 5% of the time,
    which is what its standard error is for (and all it is for)."""
    rng = np.random.default_rng(11)
    rejected = [
        fleiss_kappa_test(
            np.array([np.bincount(row, minlength=3) for row in rng.choice(3, (200, 5), p=[0.5, 0.3, 0.2])])
        ).p_value
        < 0.05
        for _ in range(800)
    ]
    assert 0.03 <= np.mean(rejected) <= 0.07


def test_fleiss_kappa_interval_never_uses_the_null_standard_error():
    """The interval is Gwet's (2008) general form only: the null form of Fleiss, Nee & Landis
    is the SE at kappa = 0 and covers too rarely elsewhere (benchmarks.coverage)."""
    interval = fleiss_kappa_interval(FLEISS_1971)
    half = (interval.high - interval.low) / 2
    assert half == pytest.approx(stats.norm.ppf(0.975) * fleiss_kappa_se(FLEISS_1971), rel=1e-12)
    with pytest.raises(TypeError):
        fleiss_kappa_interval(FLEISS_1971, form="null")  # type: ignore[call-arg]


def test_fleiss_kappa_test_undefined():
    test = fleiss_kappa_test([[2, 0], [2, 0]])  # one category: kappa is 0/0
    assert np.isnan(test.z) and np.isnan(test.p_value) and not test.defined
    assert not fleiss_kappa_test(np.zeros((0, 2))).defined


def test_fleiss_standard_error_undefined_cases():
    assert np.isnan(fleiss_kappa_se([[2, 0], [2, 0]]))  # one category: kappa is 0/0
    assert np.isnan(fleiss_kappa_se([[1, 1]]))  # general form needs two items
    assert fleiss_kappa_interval([[2, 0], [2, 0]]).method == "none"
