"""Gwet's AC1/AC2 (stats/gwet.py) against the handbook's examples and irrCAC 0.4.4.

Printed values: Gwet (2014) "Handbook of Inter-Rater Reliability", 4th ed.,
as reproduced in irrCAC's documentation (its doctests): the 4 raters x 12 units
(AC1 0.77544, SE 0.14295; bipolar AC2 0.90037, SE 0.10582) and the two
abstractors' 3x3 table (AC1 0.84933, SE 0.04322; quadratic AC2 0.94024, SE
0.01792). Every dataset irrCAC ships is also compared figure by figure with
its output under every weighting. The prevalence paradox is shown on Snow et
al.'s (2008) RTE and temporal data.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from irrCAC import datasets
from irrCAC.raw import CAC
from irrCAC.table import CAC as TableCAC

from stats import agreement
from stats.gwet import agreement_weights, gwet, gwet_ac1, gwet_ac2, gwet_counts, gwet_table, gwet_units
from stats.uncertainty import resample_weights

DATA = Path(__file__).resolve().parents[2] / "data" / "snow2008"
WEIGHTS = ["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
RAW = ["raw_4raters", "raw_5observers", "raw_ben_gerry", "raw_g1g2", "raw_gender"]


def as_ratings(frame: pd.DataFrame) -> np.ndarray:
    """A data frame of ratings as an object array, None where missing."""
    return frame.astype(object).where(frame.notna(), None).to_numpy()


def irrcac(frame: pd.DataFrame, weights: str = "identity") -> dict:
    """irrCAC's AC1/AC2, its categories given: under pandas 3 (irrCAC 0.4.4 wants pandas < 3)
    ``DataFrame.stack`` keeps NaN, which irrCAC would then count as a category."""
    categories = sorted(pd.unique(frame.to_numpy().ravel()[frame.notna().to_numpy().ravel()]).tolist())
    return CAC(frame, weights=weights, categories=categories, digits=12).gwet()["est"]


def snow(name: str) -> tuple[np.ndarray, np.ndarray]:
    by_item: dict[str, list[str]] = defaultdict(list)
    gold: dict[str, str] = {}
    with open(DATA / f"{name}.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            by_item[row["orig_id"]].append(row["response"])
            gold[row["orig_id"]] = row["gold"]
    return np.array(list(by_item.values())), np.array([gold[item] for item in by_item])


# --- the handbook's printed values ------------------------------------------------


def test_handbook_four_raters_ac1():
    result = gwet(as_ratings(datasets.raw_4raters()))
    assert (round(result.value, 5), round(result.pa, 5), round(result.pe, 5)) == (0.77544, 0.81818, 0.19032)
    assert round(result.se, 5) == 0.14295
    assert (result.items, result.weights) == (12, "identity")
    interval = result.interval()
    assert (round(interval.low, 5), interval.high, interval.method) == (0.46081, 1.0, "analytic")


def test_handbook_four_raters_bipolar_ac2():
    result = gwet(as_ratings(datasets.raw_4raters()), weights="bipolar")
    assert (round(result.value, 5), round(result.pa, 5), round(result.pe, 5)) == (0.90037, 0.96836, 0.68244)
    assert round(result.se, 5) == 0.10582
    assert round(result.interval().low, 5) == 0.66747


def test_handbook_abstractors_table():
    table = datasets.table_cont3x3abstractors().to_numpy()
    ac1 = gwet_table(table)
    assert (round(ac1.value, 5), round(ac1.pa, 5), round(ac1.pe, 5), round(ac1.se, 5)) == (
        0.84933,
        0.89,
        0.26992,
        0.04322,
    )
    interval = ac1.interval()
    assert (round(interval.low, 5), round(interval.high, 5), interval.units) == (0.76358, 0.93508, 100)
    ac2 = gwet_table(table, weights="quadratic")
    assert (round(ac2.value, 5), round(ac2.pa, 5), round(ac2.pe, 5), round(ac2.se, 5)) == (
        0.94024,
        0.9725,
        0.53985,
        0.01792,
    )


# --- every irrCAC dataset and weighting -----------------------------------------------


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("name", RAW)
def test_raw_ratings_equal_irrcac(name, weights):
    frame = getattr(datasets, name)()
    if name == "raw_5observers" and weights == "ratio":
        pytest.skip("category 0 has no ratio weight (irrCAC raises too)")
    reference = irrcac(frame, weights)
    result = gwet(as_ratings(frame), weights=weights)
    assert result.value == pytest.approx(reference["coefficient_value"], abs=1e-10)
    assert result.pa == pytest.approx(reference["pa"], abs=1e-10)
    assert result.pe == pytest.approx(reference["pe"], abs=1e-10)
    assert result.se == pytest.approx(reference["se"], abs=1e-10)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_weights_equal_irrcac(weights):
    from irrCAC.weights import Weights

    for categories in ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 4.0, 7.0], ["a", "b", "c"]):
        expected = Weights(categories)[weights]
        assert np.allclose(agreement_weights(categories, weights), expected, atol=1e-12)


@pytest.mark.parametrize("weights", ["identity", "quadratic", "linear"])
def test_two_raters_table_equals_irrcac(weights):
    table = datasets.table_cont4x4diagnosis()
    reference = TableCAC(table, weights=weights, digits=12).gwet()["est"]
    result = gwet_table(table.to_numpy(), weights=weights)
    assert result.value == pytest.approx(reference["coefficient_value"], abs=1e-10)
    assert result.se == pytest.approx(reference["se"], abs=1e-10)
    assert result.items == 223


def test_two_raters_raw_and_table_give_the_same_coefficient():
    table = datasets.table_cont4x4diagnosis().to_numpy()
    pairs = [(k, el) for k in range(4) for el in range(4) for _ in range(table[k, el])]
    assert gwet(np.array(pairs)).value == pytest.approx(gwet_table(table).value, abs=1e-12)
    assert round(gwet_ac1(np.array(pairs)), 5) == 0.45616  # irrCAC's table form: 0.45616


def test_fleiss_1971_distribution_equals_irrcac_on_the_expanded_ratings():
    table = datasets.distrib_6raters().to_numpy()
    ratings = np.array([[k for k in range(5) for _ in range(row[k])] for row in table])
    reference = irrcac(pd.DataFrame(ratings.astype(float)))
    result = gwet_counts(table)
    assert result.value == pytest.approx(reference["coefficient_value"], abs=1e-10)
    assert result.se == pytest.approx(reference["se"], abs=1e-10)
    assert round(result.value, 4) == 0.4448


def test_ac2_defaults_to_quadratic_and_ac1_to_identity():
    ratings = as_ratings(datasets.raw_4raters())
    assert gwet_ac2(ratings) == gwet(ratings, weights="quadratic").value
    assert gwet_ac1(ratings) == gwet(ratings).value


def test_custom_weight_matrix_and_listed_categories():
    ratings = [[1, 1], [2, 3], [3, 3], [1, 2]]
    quadratic = agreement_weights([1, 2, 3], "quadratic")
    assert gwet(ratings, weights=quadratic).value == gwet_ac2(ratings)
    assert gwet(ratings, weights=quadratic).weights == "custom"
    # A fourth category nobody used lowers chance agreement: q = 4.
    wider = gwet(ratings, categories=[1, 2, 3, 4])
    # pi = (3/8, 2/8, 3/8, 0): sum pi (1 - pi) = 42/64; pe = q / (q (q - 1)) * 42/64.
    assert wider.pe == pytest.approx(4 / 12 * 42 / 64, abs=1e-15)
    assert gwet(ratings).pe == pytest.approx(3 / 6 * 42 / 64, abs=1e-15)


def test_undefined_and_invalid():
    one_category = gwet([["a", "a"], ["a", "a"]])
    assert np.isnan(one_category.value) and one_category.interval().method == "none"
    nobody_twice = gwet([[1, None], [None, 2]])
    assert np.isnan(nobody_twice.value)
    with pytest.raises(ValueError, match="weights"):
        gwet([[1, 2]], weights="cubic")
    with pytest.raises(ValueError, match="2 x 2"):
        gwet([[1, 2]], weights=np.eye(3))
    with pytest.raises(ValueError, match="square"):
        gwet_table([[1, 2, 3]])
    with pytest.raises(ValueError, match="ratio"):
        agreement_weights([0, 1, 2], "ratio")


# --- the shared bootstrap -------------------------------------------------------------


@pytest.mark.parametrize("weights", ["identity", "quadratic", "bipolar"])
@pytest.mark.parametrize("name", RAW)
def test_unit_statistic_equals_gwet(name, weights):
    ratings = as_ratings(getattr(datasets, name)())
    if name == "raw_5observers" and weights == "bipolar":
        weights = "linear"
    stats = gwet_units(ratings, weights=weights)
    assert stats.value == pytest.approx(gwet(ratings, weights=weights).value, abs=1e-12)


def test_bootstrap_interval_is_close_to_gwets_variance_on_rte():
    ratings, _ = snow("rte")
    analytic = gwet(ratings).interval()
    stats = gwet_units(ratings)
    boot = stats.interval(seed=0)
    assert boot == stats.interval(weights=resample_weights(800, seed=0))
    assert round(analytic.value, 4) == 0.2727 and analytic.units == 800
    assert boot.low == pytest.approx(analytic.low, abs=0.003)
    assert boot.high == pytest.approx(analytic.high, abs=0.003)


# --- the prevalence paradox on real data ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "gold", "items", "majority_share", "pa", "kappa", "ac1"),
    [
        # RTE items whose gold answer is "entails": 80% of the labels are 1.
        ("rte", "1", 400, 0.8018, 0.7025, 0.0642, 0.5639),
        # Temporal items whose gold answer is "after": 80% of the labels are "after".
        ("temp", "after", 203, 0.7985, 0.6805, 0.0069, 0.5289),
    ],
)
def test_prevalence_paradox(name, gold, items, majority_share, pa, kappa, ac1):
    """Raters agree on 70% of pairs, yet kappa is near 0 because one label dominates; AC1 is not fooled."""
    ratings, golds = snow(name)
    subset = ratings[golds == gold]
    counts = agreement.category_counts(subset).counts
    assert len(subset) == items
    assert round(counts.sum(axis=0).max() / counts.sum(), 4) == majority_share
    result = gwet(subset)
    assert round(result.pa, 4) == pa
    assert round(agreement.fleiss_kappa(counts), 4) == kappa
    assert round(result.value, 4) == ac1
    # On all the items (labels near 50/50) the two coefficients are close.
    everything = gwet(ratings).value - agreement.fleiss_kappa(agreement.category_counts(ratings).counts)
    assert abs(everything) < 0.04
