"""A rating table's figures (stats/ratingtables.py) against the published examples and the reference packages.

Worked examples, pasted below with their sources:
- Gwet (2014) "Handbook of Inter-Rater Reliability", 4th ed., as the irrCAC
  package ships and prints them: the 4 raters x 12 units (``raw_4raters``:
  Fleiss' kappa 0.76117, SE 0.15302, interval (0.42438, 1); AC1 0.77544, SE
  0.14295) and the two abstractors' 3x3 table (``cont3x3abstractors``: Cohen's
  kappa 0.7964094, SE 0.05891072; percent agreement 0.89, SE 0.03128898;
  Brennan-Prediger 0.835; Krippendorff's alpha 0.7972585, irrCAC's R vignette);
- Fleiss (1971) Table 1, 30 patients x 6 psychiatrists x 5 diagnoses (R's
  ``irr::diagnoses``; statsmodels' tests hold the same counts): kappa 0.430,
  per-category kappas 0.245, 0.245, 0.520, 0.471, 0.566 with z 5.192, 5.192,
  11.031, 9.994, 12.009 (``irr::kappam.fleiss(diagnoses, detail = TRUE)``);
- Shrout & Fleiss (1979) Table 2, 4 judges x 6 targets: ICC(1,1) .17,
  ICC(2,1) .29, ICC(3,1) .71, ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91.

Reference packages on seeded random tables with missing ratings, to 1e-9:
irrCAC 0.4.4 (``bp``, ``conger``, ``fleiss``, ``gwet``, ``krippendorff`` under
every weighting, values and standard errors; ``cohen`` and ``pa2`` of the
2x2 tables for the pairs), krippendorff (nominal, interval, ratio alpha),
statsmodels (``fleiss_kappa``), scikit-learn (``cohen_kappa_score`` with
weights, ``confusion_matrix``) and pingouin (``intraclass_corr``: the six
forms, F tests, p-values and intervals).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC import datasets
from irrCAC.raw import CAC
from irrCAC.table import CAC as TableCAC
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from stats import agreement
from stats.gwet import agreement_weights, gwet
from stats.ratings import SparseRatings
from stats.ratingtables import (
    brennan_prediger,
    category_agreement,
    conger_kappa,
    intraclass_correlations,
    intraclass_units,
    pair_tables,
    percent_agreement,
    rating_table,
    rating_table_units,
)
from stats.uncertainty import bootstrap

WEIGHTS = ["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
METHODS = {
    "bp": "brennan_prediger",
    "conger": "conger",
    "fleiss": "fleiss",
    "gwet": "gwet",
    "krippendorff": "krippendorff",
}
nan = float("nan")

# Gwet (2014), irrCAC's raw_4raters: Krippendorff's (2011) 4 raters x 12 units.
FOUR_RATERS = [
    [1, 1, nan, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [nan, 5, 5, 5],
    [nan, nan, 1, 1],
    [nan, nan, 3, nan],
]
# Gwet (2014), irrCAC's cont3x3abstractors: 100 pregnant women, two abstractors, ectopic / AIU / NIU.
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
# Fleiss (1971) Table 1: raters per diagnosis (depression, personality disorder,
# schizophrenia, neurosis, other) for each of 30 patients, 6 psychiatrists each.
FLEISS_1971 = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
]  # fmt: skip
# Shrout & Fleiss (1979) Table 2: 6 targets x 4 judges.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]


def expand(table: list[list[int]]) -> np.ndarray:
    """A two-rater contingency table as items x 2 ratings (category positions)."""
    return np.array([(k, el) for k, row in enumerate(table) for el, count in enumerate(row) for _ in range(count)])


def from_counts(counts: list[list[int]]) -> np.ndarray:
    """Items x raters ratings with these category counts (the raters' order is arbitrary)."""
    return np.array([[k for k, count in enumerate(row) for _ in range(count)] for row in counts])


def irrcac(frame: pd.DataFrame, weights, method: str, categories: list) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(CAC(frame, weights=weights, categories=categories, digits=15), method)()["est"]


def random_table(seed: int, *, items: int = 40, raters: int = 6, q: int = 4, missing: float = 0.35) -> np.ndarray:
    """Items x raters category values 1..q (numbers, so every weighting applies), NaN missing;
    every rater rates some item, some items have one rating or none."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, q + 1, items)
    table = np.where(rng.random((items, raters)) < 0.55, truth[:, None], rng.integers(1, q + 1, (items, raters)))
    table = table.astype(np.float64)
    table[rng.random(table.shape) < missing] = np.nan
    table[0, 1:] = np.nan  # one item with a single rating
    table[1] = np.nan  # one item nobody rated
    table[2] = np.arange(raters) % q + 1  # every rater rated something
    return table


# --- the worked examples -----------------------------------------------------------------


def test_handbook_four_raters_as_irrcac_prints_them():
    table = rating_table(FOUR_RATERS)
    assert (round(table.fleiss.value, 5), round(table.fleiss.se, 5)) == (0.76117, 0.15302)
    assert (round(table.fleiss.pa, 5), round(table.fleiss.pe, 5)) == (0.81818, 0.23872)
    interval = table.fleiss.interval()
    assert (round(interval.low, 5), interval.high, interval.units) == (0.42438, 1.0, 12)
    assert (round(table.gwet.value, 5), round(table.gwet.se, 5), table.gwet.name) == (0.77544, 0.14295, "Gwet's AC1")
    bipolar = rating_table(FOUR_RATERS, weights="bipolar").gwet
    assert (round(bipolar.value, 5), round(bipolar.se, 5), bipolar.name) == (0.90037, 0.10582, "Gwet's AC2")
    assert (table.items, table.pairable, table.raters, table.ratings) == (12, 11, 4, 41)


def test_handbook_abstractors_two_raters():
    ratings = expand(ABSTRACTORS)
    pairs = pair_tables(ratings, categories=[0, 1, 2])
    assert pairs.confusion.tolist() == [ABSTRACTORS]
    assert round(float(pairs.kappa()[0]), 7) == 0.7964094
    assert round(float(pairs.kappa_se()[0]), 8) == 0.05891072
    assert (float(pairs.agreement()[0]), round(float(pairs.agreement_se()[0]), 8)) == (0.89, 0.03128898)
    table = rating_table(ratings)
    assert round(table.brennan_prediger.value, 6) == 0.835
    assert round(table.krippendorff.value, 7) == 0.7972585
    # Conger's kappa of two raters who rated every item is Cohen's.
    assert table.conger.value == pytest.approx(0.7964094, abs=5e-8)


def test_fleiss_1971_overall_and_per_category():
    ratings = from_counts(FLEISS_1971)
    table = rating_table(ratings, categories=[0, 1, 2, 3, 4], pairs=False)
    assert round(table.fleiss.value, 3) == 0.430
    assert table.fleiss.value == pytest.approx(statsmodels_fleiss_kappa(np.array(FLEISS_1971)), abs=1e-12)
    by_category = table.by_category
    assert [round(float(k), 3) for k in by_category.kappa] == [0.245, 0.245, 0.520, 0.471, 0.566]
    assert [round(float(z), 3) for z in by_category.z] == [5.192, 5.192, 11.031, 9.994, 12.009]
    assert by_category.se0 == pytest.approx(np.sqrt(2 / (30 * 6 * 5)), abs=1e-15)
    # Fleiss (1971): kappa is the p_j q_j-weighted mean of the kappa_j.
    shares = np.array(FLEISS_1971).sum(axis=0) / 180
    spread = shares * (1 - shares)
    assert table.fleiss.value == pytest.approx(float(spread @ by_category.kappa / spread.sum()), abs=1e-12)


def test_shrout_fleiss_1979_table_2():
    found = intraclass_correlations(SHROUT_FLEISS)
    assert [round(icc.value, 2) for icc in found.forms] == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    assert [icc.mcgraw_wong for icc in found.forms] == [
        "ICC(1)",
        "ICC(A,1)",
        "ICC(C,1)",
        "ICC(k)",
        "ICC(A,k)",
        "ICC(C,k)",
    ]
    assert found["ICC(A,1)"] is found["ICC(2,1)"]
    # Their Table 2's mean squares: BMS 11.24, WMS 6.26, JMS 32.49, EMS 1.02.
    squares = found.mean_squares
    assert [round(squares[key], 2) for key in ("between_items", "within_items", "between_raters", "residual")] == [
        11.24,
        6.26,
        32.49,
        1.02,
    ]
    assert (found.items, found.raters, found.dropped_items) == (6, 4, 0)


# --- irrCAC, every weighting, random tables with missing ratings --------------------------


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_coefficients_equal_irrcac(seed, weights):
    data = random_table(seed)
    categories = [1.0, 2.0, 3.0, 4.0]
    table = rating_table(data, categories=categories, weights=weights, pairs=False)
    frame = pd.DataFrame(data)
    for method, attribute in METHODS.items():
        reference = irrcac(frame, weights, method, categories)
        found = getattr(table, attribute)
        assert found.value == pytest.approx(reference["coefficient_value"], abs=1e-9), method
        assert found.se == pytest.approx(reference["se"], abs=1e-9), method
        assert found.pa == pytest.approx(reference["pa"], abs=1e-9), method
        assert found.pe == pytest.approx(reference["pe"], abs=1e-9), method
        low, high = reference["confidence_interval"]
        interval = found.interval()
        assert (interval.low, interval.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    # Percent agreement is every coefficient's p_a.
    assert table.percent_agreement.value == pytest.approx(irrcac(frame, weights, "gwet", categories)["pa"], abs=1e-9)


@pytest.mark.parametrize("name", ["raw_4raters", "raw_5observers", "raw_ben_gerry", "raw_g1g2", "raw_gender"])
def test_irrcac_datasets(name):
    frame = getattr(datasets, name)()
    categories = sorted(pd.unique(frame.to_numpy().ravel()[frame.notna().to_numpy().ravel()]).tolist())
    ratings = frame.astype(object).where(frame.notna(), None).to_numpy()
    for weights in ("identity", "quadratic", "circular"):
        table = rating_table(ratings, weights=weights, pairs=False)
        for method, attribute in METHODS.items():
            reference = irrcac(frame, weights, method, categories)
            assert getattr(table, attribute).value == pytest.approx(reference["coefficient_value"], abs=1e-9)
            assert getattr(table, attribute).se == pytest.approx(reference["se"], abs=1e-9)


def test_percent_agreement_standard_error_is_brennan_predigers_scaled():
    """Every item rated twice or more: BP's linearised terms are p_a|i's over (1 - p_e)."""
    data = random_table(3, missing=0.0)[2:]
    pa, bp = percent_agreement(data), brennan_prediger(data)
    assert bp.se == pytest.approx(pa.se / (1 - bp.pe), rel=1e-12)
    assert pa.se == pytest.approx(float(np.std(_item_agreement(data), ddof=1) / np.sqrt(len(data))), rel=1e-12)


def _item_agreement(data: np.ndarray) -> np.ndarray:
    counts = agreement.category_counts(data).counts
    raters = counts.sum(axis=1)
    return (np.sum(counts * (counts - 1), axis=1)) / (raters * (raters - 1))


# --- krippendorff, statsmodels, scikit-learn --------------------------------------------


@pytest.mark.parametrize(("weights", "level"), [("identity", "nominal"), ("quadratic", "interval"), ("ratio", "ratio")])
@pytest.mark.parametrize("seed", range(4))
def test_alpha_equals_krippendorff(seed, weights, level):
    data = random_table(seed, q=5)
    found = rating_table(data, weights=weights, pairs=False).krippendorff.value
    assert found == pytest.approx(krippendorff.alpha(data.T, level_of_measurement=level), abs=1e-9)
    assert found == pytest.approx(agreement.krippendorff_alpha(data.T, level=level), abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_complete_tables_fleiss_equals_statsmodels_and_per_category_formula(seed):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 4, (50, 5))
    counts = agreement.category_counts(data, categories=[0, 1, 2, 3]).counts
    table = rating_table(data, categories=[0, 1, 2, 3], pairs=False)
    assert table.fleiss.value == pytest.approx(statsmodels_fleiss_kappa(counts), abs=1e-12)
    n_items, n = 50, 5
    shares = counts.sum(axis=0) / (n_items * n)
    kappa_j = 1 - np.sum(counts * (n - counts), axis=0) / (n_items * n * (n - 1) * shares * (1 - shares))
    assert np.allclose(table.by_category.kappa, kappa_j, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_pairs_equal_scikit_learn(seed):
    data = random_table(seed, items=60, raters=5, q=4)
    categories = [1.0, 2.0, 3.0, 4.0]
    pairs = pair_tables(data, categories=categories)
    confusion = pairs.confusion
    kappas = {name: pairs.kappa(name) for name in ("identity", "linear", "quadratic")}
    custom = 1 - np.abs(np.subtract.outer(np.arange(4), np.arange(4))) ** 1.5 / 3**1.5
    custom_kappa = pairs.kappa(custom)
    checked = 0
    for p, (first, second) in enumerate(zip(pairs.first, pairs.second, strict=True)):
        shared = ~np.isnan(data[:, first]) & ~np.isnan(data[:, second])
        a, b = data[shared, first], data[shared, second]
        assert (confusion[p] == confusion_matrix(a, b, labels=categories)).all()
        assert pairs.agreement()[p] == pytest.approx(np.mean(a == b), abs=1e-12)
        if len(set(a) | set(b)) < 2:
            continue
        for name, sklearn_name in (("identity", None), ("linear", "linear"), ("quadratic", "quadratic")):
            expected = cohen_kappa_score(a, b, weights=sklearn_name, labels=categories)
            assert kappas[name][p] == pytest.approx(expected, abs=1e-9)
        # a custom matrix of agreement weights: Cohen's (1968) weighted kappa with 1 - w as disagreement
        observed = np.sum(custom * confusion[p]) / shared.sum()
        expected_chance = confusion[p].sum(axis=1) @ custom @ confusion[p].sum(axis=0) / shared.sum() ** 2
        assert custom_kappa[p] == pytest.approx((observed - expected_chance) / (1 - expected_chance), abs=1e-12)
        checked += 1
    assert checked >= 8
    assert len(pairs.first) == 10


@pytest.mark.parametrize("weights", ["identity", "linear", "quadratic", "radical"])
def test_pair_standard_errors_equal_irrcac_tables(weights):
    data = random_table(5, items=80, raters=4, q=3, missing=0.1)
    pairs = pair_tables(data, categories=[1.0, 2.0, 3.0])
    for p in range(len(pairs.first)):
        frame = pd.DataFrame(pairs.confusion[p])
        reference = TableCAC(frame, weights=agreement_weights([1.0, 2.0, 3.0], weights), digits=15)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cohen, percent = reference.cohen()["est"], reference.pa2()["est"]
        assert pairs.kappa(weights)[p] == pytest.approx(cohen["coefficient_value"], abs=1e-9)
        assert pairs.kappa_se(weights)[p] == pytest.approx(cohen["se"], abs=1e-9)
        assert pairs.agreement(weights)[p] == pytest.approx(percent["coefficient_value"], abs=1e-9)
        assert pairs.agreement_se(weights)[p] == pytest.approx(percent["se"], abs=1e-9)


# --- pingouin's intraclass correlations ---------------------------------------------------


@pytest.fixture(scope="module")
def pingouin_icc():
    """pingouin.intraclass_corr, loaded without pingouin's package __init__: that imports its
    plotting (matplotlib, seaborn) and pandas_flavor (xarray), none of which the ICC uses;
    pandas_flavor only registers functions as DataFrame methods, so an identity decorator
    stands in for it. The ICC and the ANOVA it calls are pingouin's own code."""
    spec = importlib.util.find_spec("pingouin")
    package = types.ModuleType("pingouin")
    package.__path__ = list(spec.submodule_search_locations)
    flavor = types.ModuleType("pandas_flavor")
    flavor.register_dataframe_method = lambda function: function
    saved = {name: sys.modules.get(name) for name in ("pingouin", "pandas_flavor")}
    sys.modules.update({"pingouin": package, "pandas_flavor": flavor})
    try:
        package.anova = importlib.import_module("pingouin.parametric").anova
        reliability = importlib.import_module("pingouin.reliability")
        config = importlib.import_module("pingouin.config")
        config.set_default_options()

        def icc(data: np.ndarray) -> pd.DataFrame:
            rows, columns = np.nonzero(~np.isnan(data))
            long = pd.DataFrame({"item": rows, "rater": columns, "score": data[rows, columns]})
            with config._no_rounding(), warnings.catch_warnings():  # its CI95 is rounded to 2 digits by default
                warnings.simplefilter("ignore")  # pandas 3 deprecates an argument pingouin's ANOVA passes
                return reliability.intraclass_corr(long, "item", "rater", "score", nan_policy="omit")

        yield icc
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        for name in [name for name in sys.modules if name.startswith("pingouin.")]:
            del sys.modules[name]


@pytest.mark.parametrize("seed", range(4))
def test_intraclass_correlations_equal_pingouin(pingouin_icc, seed):
    rng = np.random.default_rng(seed)
    items, raters = 30, 4
    data = rng.normal(size=(items, 1)) * 2 + rng.normal(size=(1, raters)) + rng.normal(size=(items, raters))
    data[rng.random(data.shape) < 0.05] = np.nan
    dropped = int(np.count_nonzero(np.isnan(data).any(axis=1)))
    reference = pingouin_icc(data)
    found = intraclass_correlations(data)
    assert (found.items, found.raters, found.dropped_items) == (items - dropped, raters, dropped)
    for icc, (_, row) in zip(found.forms, reference.iterrows(), strict=True):
        assert icc.mcgraw_wong.replace("ICC(1)", "ICC(1,1)").replace("ICC(k)", "ICC(1,k)") == row["Type"]
        assert icc.value == pytest.approx(row["ICC"], abs=1e-9)
        assert icc.f == pytest.approx(row["F"], abs=1e-9)
        assert (icc.df1, icc.df2) == (row["df1"], row["df2"])
        assert icc.p_value == pytest.approx(row["pval"], abs=1e-9)
        assert (icc.low, icc.high) == (pytest.approx(row["CI95"][0], abs=1e-9), pytest.approx(row["CI95"][1], abs=1e-9))


def test_intraclass_correlations_of_sparse_ratings_and_what_is_dropped():
    data = np.array(SHROUT_FLEISS, dtype=np.float64)
    padded = np.vstack([data, [[1.0, nan, 2.0, nan]], [[nan] * 4]])
    padded = np.hstack([padded, np.full((8, 1), nan)])  # a rater who rated nothing is no judge
    found = intraclass_correlations(SparseRatings.from_dense(padded))
    assert (found.items, found.raters, found.dropped_items) == (6, 4, 1)
    assert [icc.value for icc in found.forms] == pytest.approx(
        [icc.value for icc in intraclass_correlations(data).forms]
    )
    shifted = intraclass_correlations(data * 3 + 100)
    assert [icc.value for icc in shifted.forms] == pytest.approx([icc.value for icc in found.forms], abs=1e-12)
    empty = intraclass_correlations([[1.0, nan], [nan, 2.0]])
    assert empty.items == 0 and all(np.isnan(icc.value) for icc in empty.forms)
    assert empty.forms[0].interval().method == "none"


# --- per-unit statistics for the bootstrap -------------------------------------------------


@pytest.mark.parametrize("weights", ["identity", "quadratic"])
@pytest.mark.parametrize(
    "figure", ["percent_agreement", "brennan_prediger", "conger", "fleiss", "gwet", "krippendorff"]
)
def test_unit_statistics_give_the_figure(figure, weights):
    data = random_table(7)
    table = rating_table(data, categories=[1.0, 2.0, 3.0, 4.0], weights=weights, pairs=False)
    stats = rating_table_units(data, figure, categories=[1.0, 2.0, 3.0, 4.0], weights=weights)
    expected = getattr(table, figure)
    assert stats.value == pytest.approx(expected.value, abs=1e-12)
    interval = stats.interval(seed=1, n_resamples=400)
    assert interval.method == "bootstrap" and interval.low < expected.value < interval.high
    # Summing the rows of each topic (here: 5 topics of consecutive items) keeps the figure.
    topics = np.arange(stats.per_unit.shape[0]) % 5
    grouped = np.vstack([np.asarray(stats.per_unit[topics == t].sum(axis=0)).ravel() for t in range(5)])
    assert float(stats.statistic(grouped.sum(axis=0))) == pytest.approx(expected.value, abs=1e-12)


def test_unit_statistics_per_category_and_icc():
    ratings = from_counts(FLEISS_1971)
    found = category_agreement(ratings, categories=[0, 1, 2, 3, 4])
    for j in range(5):
        specific = rating_table_units(ratings, "specific_agreement", categories=[0, 1, 2, 3, 4], category=j)
        kappa = rating_table_units(ratings, "category_kappa", categories=[0, 1, 2, 3, 4], category=j)
        assert specific.value == pytest.approx(found.specific[j], abs=1e-12)
        assert kappa.value == pytest.approx(found.kappa[j], abs=1e-12)
    iccs = intraclass_correlations(SHROUT_FLEISS)
    for icc in iccs.forms:
        stats = intraclass_units(SHROUT_FLEISS, icc.form)
        assert stats.value == pytest.approx(icc.value, abs=1e-12)
        assert bootstrap(stats.per_unit, stats.statistic, seed=0).units == 6


# --- invariants -------------------------------------------------------------------------------


def test_sparse_and_dense_give_the_same_table():
    data = random_table(11)
    codes = np.where(np.isnan(data), np.nan, data - 1)
    dense = rating_table(data, categories=[1.0, 2.0, 3.0, 4.0], weights="linear")
    sparse = rating_table(SparseRatings.from_dense(codes), categories=[1.0, 2.0, 3.0, 4.0], weights="linear")
    for first, second in zip(dense.coefficients, sparse.coefficients, strict=True):
        assert first == second
    assert (dense.pairs.confusion == sparse.pairs.confusion).all()
    assert np.array_equal(dense.by_category.kappa, sparse.by_category.kappa, equal_nan=True)
    assert dense.conger == conger_kappa(data, weights="linear")
    assert dense.percent_agreement == percent_agreement(data, weights="linear")


def test_rater_and_label_permutations_change_nothing_unweighted():
    data = random_table(12)
    base = rating_table(data)
    shuffled = rating_table(data[:, [3, 0, 5, 1, 4, 2]])
    relabelled = rating_table(np.where(np.isnan(data), nan, 5 - data))  # categories reversed
    for first, second, third in zip(base.coefficients, shuffled.coefficients, relabelled.coefficients, strict=True):
        assert first.value == pytest.approx(second.value, abs=1e-12)
        assert first.se == pytest.approx(second.se, abs=1e-12)
        assert first.value == pytest.approx(third.value, abs=1e-12)
    assert np.allclose(base.by_category.kappa[::-1], relabelled.by_category.kappa, equal_nan=True)
    assert sorted(base.pairs.kappa().round(12)) == sorted(shuffled.pairs.kappa().round(12))


def test_perfect_agreement_and_degenerate_tables():
    perfect = rating_table([[1, 1, 1], [2, 2, None], [3, 3, 3], [1, None, 1]])
    assert all(c.value == pytest.approx(1.0, abs=1e-12) for c in perfect.coefficients)
    assert (perfect.by_category.specific == 1).all()
    one_category = rating_table([["a", "a"], ["a", "a"]])
    assert one_category.percent_agreement.value == 1.0
    for coefficient in one_category.coefficients[1:]:
        assert np.isnan(coefficient.value) and coefficient.interval().method == "none"
    nobody_twice = rating_table([[1, None], [None, 2]])
    assert np.isnan(nobody_twice.percent_agreement.value) and nobody_twice.pairable == 0
    assert len(nobody_twice.pairs.first) == 0
    nothing = rating_table(SparseRatings.from_entries([], [], [], n_items=3, n_raters=2), categories=["x", "y"])
    assert nothing.items == 0 and np.isnan(nothing.conger.value)
    # Items rated once count in n (the SE's units) but not in p_a.
    once = percent_agreement([[1, 1], [2, 2], [1, None]])
    assert (once.value, once.items) == (1.0, 3)


def test_gwet_is_stats_gwet():
    data = random_table(13)
    for weights in ("identity", "ordinal"):
        found = rating_table(data, weights=weights).gwet
        reference = gwet(data, weights=weights)
        assert (found.value, found.se, found.pa, found.pe) == (
            reference.value,
            reference.se,
            reference.pa,
            reference.pe,
        )


def test_invalid_input():
    with pytest.raises(ValueError, match="figure"):
        rating_table_units([[1, 2]], "scott")
    with pytest.raises(ValueError, match="category"):
        rating_table_units([[1, 2], [1, 1]], "category_kappa", category=2)
    with pytest.raises(ValueError, match="2 x 2"):
        rating_table([[1, 2]], weights=np.eye(3))
    with pytest.raises(ValueError, match="weights"):
        rating_table([[1, 2]], weights="cubic")
    with pytest.raises(ValueError, match="finite"):
        rating_table([[1, 2]], weights=[[1, np.inf], [0, 1]])
    with pytest.raises(ValueError, match="positions"):
        rating_table(SparseRatings.from_dense([[0.5, 1.0]]))
    with pytest.raises(ValueError, match="0 .. 1"):
        rating_table(SparseRatings.from_dense([[0, 2]]), categories=["a", "b"])
    with pytest.raises(ValueError, match="missing from categories"):
        rating_table([[1, 2]], categories=[1, 3])
    with pytest.raises(ValueError, match="2-D"):
        rating_table([1, 2, 3])
    with pytest.raises(ValueError, match="numbers"):
        intraclass_correlations([["a", "b"]])
    with pytest.raises(ValueError, match="form"):
        intraclass_units(SHROUT_FLEISS, "ICC(4,1)")
    with pytest.raises(ValueError, match="level"):
        intraclass_correlations(SHROUT_FLEISS, level=1.5)


@pytest.mark.parametrize("n_raters", [7, 3000])  # the bitmap of pairs, and the sort beyond _PAIR_BITMAP
def test_pair_cells_are_the_pair_confusions(n_raters):
    rng = np.random.default_rng(n_raters)
    items, raters = np.repeat(np.arange(300), 4), rng.integers(0, n_raters, 1200)
    keep = np.unique(items * n_raters + raters, return_index=True)[1]
    ratings = SparseRatings.from_entries(
        items[keep], raters[keep], rng.integers(0, 3, 1200)[keep], n_items=300, n_raters=n_raters
    )
    cells = agreement.sparse_pair_cells(ratings, 3)
    confusions = agreement.sparse_pair_confusions(ratings, 3)
    assert (cells.first == confusions.first).all() and (cells.second == confusions.second).all()
    dense = np.zeros_like(confusions.confusion)
    dense[cells.pair, cells.row, cells.column] = cells.count
    assert (dense == confusions.confusion).all() and (cells.count > 0).all()
    assert confusions.confusion.sum() == sum(
        len(set(ratings.raters[ratings.items == i])) * (len(set(ratings.raters[ratings.items == i])) - 1) // 2
        for i in range(300)
    )
