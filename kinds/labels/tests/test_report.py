"""The labels reports end to end: campaigns made through the services (create_campaign,
add_member, import_topics, submitted judgments), the reports recomputed and read back
(scoring.selectors), every figure checked against the reference packages to 1e-9 and
against the published values.

Published tables, imported as labels campaigns:

- Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed., as the irrCAC package ships
  them: ``raw_5observers`` (15 units, 5 observers, categories 0-3, missing ratings) and
  ``raw_4raters`` (Krippendorff's 2011 example, 12 units, 4 raters, categories 1-5,
  missing ratings; irrCAC prints Fleiss' kappa 0.76117 and AC1 0.77544 on every unit, and
  on a complete table Fleiss' generalised kappa is Fleiss' 1971 kappa);
- Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychol. Bull.
  76(5):378-382, Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses; kappa = .430,
  and per diagnosis the kappas .245, .245, .520, .471, .566 (as R's
  ``irr::kappam.fleiss(diagnoses, detail = TRUE)`` prints them);
- Shrout & Fleiss (1979), "Intraclass correlations: uses in assessing rater reliability",
  Psychol. Bull. 86(2):420-428, Table 2: 6 targets x 4 judges on a 1-10 scale; ICC(1,1) =
  .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62, ICC(3,4) = .91.

Reference packages: irrCAC 0.4.4 (``CAC.bp``, ``conger``, ``fleiss``, ``gwet`` under the
scale's weights, their ``pa``), krippendorff (alpha at every level), statsmodels
(``fleiss_kappa``), scikit-learn (``cohen_kappa_score`` unweighted and weighted,
``confusion_matrix``) and pingouin (``intraclass_corr``, loaded as
tests/stats/test_ratingtables.py loads it).
"""

from __future__ import annotations

import json
import math
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC import datasets
from irrCAC.raw import CAC
from irrCAC.weights import Weights
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.labels.data import Scale
from kinds.labels.report import headline, weight_values
from kinds.labels.stats import pair_cells, pair_statistics
from scoring.jobs import recompute_reports
from scoring.selectors import campaign_report, topic_report
from stats.agreement import category_counts
from stats.gwet import agreement_weights, gwet_units
from stats.intervals import figure_ci, pair_intervals
from stats.ratings import SparseRatings
from stats.ratingtables import intraclass_correlations, rating_table_units
from stats.uncertainty import UnitStatistics, fleiss_kappa_units, krippendorff_alpha_units
from tests.stats.test_ratingtables import FLEISS_1971, SHROUT_FLEISS, from_counts, pingouin_icc  # noqa: F401

pytestmark = pytest.mark.django_db

nan = float("nan")
DIAGNOSES = ["depression", "personality disorder", "schizophrenia", "neurosis", "other"]


# -- campaigns from tables -------------------------------------------------------------------------


def table_of(frame: pd.DataFrame) -> np.ndarray:
    """An irrCAC data set as items x raters numbers, NaN missing."""
    return frame.to_numpy(dtype=np.float64)


def labels_campaign(make_user, name: str, table, params: dict, sizes: list[int] | None = None, raters=None):
    """A labels campaign of ``table`` (items x raters: the scale's values, NaN no label), its
    items in topics of ``sizes`` items (default: one topic), every rater an assessor of every
    topic. A rater submits every topic where they labelled an item, "can't tell" (null) where
    they did not; a topic where they labelled nothing they never open. Reports recomputed."""
    table = np.asarray(table, dtype=object)
    n_items, n_raters = table.shape
    scale = Scale.of(params)
    organiser = make_user(f"{name}-organiser", organiser=True)
    names = raters or [f"{name}-r{k + 1}" for k in range(n_raters)]
    users = [make_user(n) for n in names]
    campaign = create_campaign(creator=organiser, kind="labels", name=name, overlap=n_raters, params=params)
    for user in users:
        add_member(campaign=campaign, username=user.username, role="assessor")
    sizes = sizes or [n_items]
    assert sum(sizes) == n_items
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    topics = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": f"t{t + 1}",
                "title": f"Batch {t + 1}",
                "data": {"items": [{"id": f"i{i + 1}", "text": f"item {i + 1}"} for i in range(start, start + size)]},
            }
            for t, (start, size) in enumerate(zip(starts, sizes))
        ],
    )
    for topic, start, size in zip(topics, starts, sizes):
        for k, user in enumerate(users):
            labels = {}
            for i in range(start, start + size):
                value = table[i, k]
                missing = value is None or (isinstance(value, float) and math.isnan(value))
                labels[f"i{i + 1}"] = None if missing else (value if not scale.numeric else float(value))
            if all(v is None for v in labels.values()):
                continue
            save_judgment(topic=topic, assessor=user, payload={"labels": labels}, status="submitted", version=0)
    recompute_reports(campaign.pk, everything=True)
    return campaign


def report_of(campaign):
    return campaign_report(campaign).data


def codes_of(table, scale: Scale) -> np.ndarray:
    """The table as codes (positions on the scale), NaN missing."""
    found = np.full(np.shape(table), nan)
    for (i, k), value in np.ndenumerate(np.asarray(table, dtype=object)):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        found[i, k] = scale.code(float(value) if scale.numeric else value)
    return found


def irrcac(codes: np.ndarray, scale: Scale, method: str, weights=None) -> dict:
    """irrCAC's ``method`` on the codes, laid on the numbers the scale's weights measure (its
    numbers, or positions 1..q), with every label of the scale as a category."""
    values = np.asarray(weight_values(scale))
    frame = pd.DataFrame(np.where(np.isnan(codes), nan, values[np.nan_to_num(codes).astype(int)]))
    if weights is None:  # the scale's: a named weighting, or its custom matrix as irrCAC takes one
        weights = scale.weights if scale.matrix is None else np.asarray(scale.matrix)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = CAC(frame, weights=weights, categories=values.tolist(), digits=15)
        return getattr(found, method)()["est"]


def alpha_reference(codes: np.ndarray, scale: Scale) -> float:
    """krippendorff.alpha at the scale's level, on the scale's numbers (a numeric scale) or codes."""
    data = codes
    if scale.numeric:
        numbers = np.asarray(scale.numbers)
        data = np.where(np.isnan(codes), nan, numbers[np.nan_to_num(codes).astype(int)])
    return float(krippendorff.alpha(reliability_data=data.T, level_of_measurement=scale.level))


def close(found, expected, tolerance=1e-9) -> bool:
    return found == pytest.approx(expected, abs=tolerance)


def check_every_figure(report, codes: np.ndarray, scale: Scale, names: list[str]) -> None:
    """Every figure of a campaign (or topic) report of ``codes`` (items x raters in ``names``'
    order, NaN none) against the reference packages and by hand."""
    q = len(scale.values)
    given = ~np.isnan(codes)
    per_item = given.sum(axis=1)
    assert report.names == names
    assert (report.items, report.items_judged, report.items_paired) == (
        len(codes),
        int((per_item > 0).sum()),
        int((per_item > 1).sum()),
    )
    assert report.scale.labels == scale.labels and report.scale.level == scale.level
    for k, row in enumerate(report.assessors):
        assert row.judged == int(given[:, k].sum())
        assert row.counts == np.bincount(codes[given[:, k], k].astype(int), minlength=q).tolist()
    # irrCAC's coefficients under the scale's weights, on every labelled item
    labelled = codes[per_item > 0]
    assert close(report.percent.value, irrcac(labelled, scale, "gwet", "identity")["pa"])
    assert close(report.brennan_prediger.value, irrcac(labelled, scale, "bp")["coefficient_value"])
    assert close(report.conger.value, irrcac(labelled, scale, "conger")["coefficient_value"])
    assert close(report.ac1.value, irrcac(labelled, scale, "gwet", "identity")["coefficient_value"])
    assert close(report.ac2.value, irrcac(labelled, scale, "gwet")["coefficient_value"])
    # Krippendorff's alpha at the scale's level
    assert close(report.alpha.value, alpha_reference(codes, scale))
    # Fleiss' kappa over the items with the most common number of raters (two or more)
    counted = np.bincount(per_item[per_item >= 2])
    m = int(len(counted) - 1 - np.argmax(counted[::-1]))
    rows = codes[per_item == m]
    counts = np.stack([np.bincount(r[~np.isnan(r)].astype(int), minlength=q) for r in rows])
    assert (report.fleiss.raters, report.fleiss.items) == (m, len(rows))
    assert close(report.fleiss.kappa, statsmodels_fleiss_kappa(counts))
    assert close(report.fleiss.kappa, irrcac(rows, scale, "fleiss", "identity")["coefficient_value"])
    # every pair: its confusion matrix, Cohen's kappa unweighted and weighted
    assert len(report.pairs) == sum(
        (given[:, i] & given[:, j]).any() for i in range(len(names)) for j in range(i + 1, len(names))
    )
    sklearn_weights = {"identity": None, "linear": "linear", "quadratic": "quadratic"}.get(scale.weights, "other")
    for pair in report.pairs:
        i, j = (names.index(n) for n in pair.assessors)
        assert i < j
        shared = given[:, i] & given[:, j]
        a, b = codes[shared, i].astype(int), codes[shared, j].astype(int)
        assert pair.n == int(shared.sum())
        assert pair.confusion == confusion_matrix(a, b, labels=list(range(q))).tolist()
        assert close(pair.observed.value, float(np.mean(a == b)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a pair who both gave one label: 0/0, NaN both sides
            kappa = cohen_kappa_score(a, b, labels=list(range(q)))
            if sklearn_weights == "other":
                weighted = weighted_kappa(a, b, irrcac_weights(scale))
            else:
                weighted = cohen_kappa_score(a, b, labels=list(range(q)), weights=sklearn_weights)
        assert np.isclose(pair.kappa.value if pair.kappa.value is not None else nan, kappa, atol=1e-9, equal_nan=True)
        assert np.isclose(
            pair.weighted.value if pair.weighted.value is not None else nan, weighted, atol=1e-9, equal_nan=True
        )
        found = report.kappa_matrix[i][j]
        assert report.kappa_matrix[j][i] == found
        assert np.isclose(found if found is not None else nan, kappa, atol=1e-9, equal_nan=True)
    assert all(report.kappa_matrix[k][k] == 1.0 for k in range(len(names)))
    # per label: its count, share, specific agreement and kappa on the items labelled twice or more
    several = codes[per_item >= 2]
    r_ij = np.stack([np.bincount(r[~np.isnan(r)].astype(int), minlength=q) for r in several]).astype(float)
    r_i = r_ij.sum(axis=1)
    total = given.sum()
    for k, category in enumerate(report.categories):
        assert category.label == scale.labels[k]
        assert category.count == int((codes == k).sum())
        assert close(category.share, category.count / total)
        opportunities = float(r_ij[:, k] @ (r_i - 1))
        specific = float(r_ij[:, k] @ (r_ij[:, k] - 1)) / opportunities if opportunities else nan
        share = r_ij[:, k].sum() / r_ij.sum()
        expected_kappa = (specific - share) / (1 - share) if opportunities and share < 1 else nan
        assert np.isclose(_value(category.specific), specific, atol=1e-12, equal_nan=True)
        assert np.isclose(_value(category.kappa), expected_kappa, atol=1e-12, equal_nan=True)


def irrcac_weights(scale: Scale) -> np.ndarray:
    """irrCAC's matrix of the scale's weights (over its numbers, or positions 1..q), or its custom matrix."""
    if scale.matrix is not None:
        return np.asarray(scale.matrix, dtype=np.float64)
    return np.asarray(Weights(weight_values(scale))[scale.weights], dtype=np.float64)


def weighted_kappa(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """Cohen's (1968) weighted kappa with agreement weights ``w`` of two raters' codes, by hand."""
    q = len(w)
    table = np.zeros((q, q))
    np.add.at(table, (a, b), 1)
    table /= table.sum()
    observed = float((w * table).sum())
    expected = float(table.sum(axis=1) @ w @ table.sum(axis=0))
    return (observed - expected) / (1 - expected) if expected < 1 else nan


def _value(figure) -> float:
    return nan if figure.value is None else figure.value


# -- the irrCAC data sets -------------------------------------------------------------------------

LEVELS = {
    "nominal": {"level": "nominal", "categories": ["0", "1", "2", "3"], "cant_tell": True},
    "ordinal": {"level": "ordinal", "categories": ["0", "1", "2", "3"], "cant_tell": True, "weights": "linear"},
    "interval": {"level": "interval", "minimum": 0, "maximum": 3, "step": 1, "cant_tell": True},
    "ratio": {"level": "ratio", "minimum": 0, "maximum": 3, "step": 1, "cant_tell": True, "weights": "linear"},
}


def five_observers(level: str) -> np.ndarray:
    """raw_5observers as the scale's values: categories "0".."3" or the numbers 0..3."""
    table = table_of(datasets.raw_5observers())
    if LEVELS[level].get("categories"):
        return np.array([[None if math.isnan(v) else str(int(v)) for v in row] for row in table], dtype=object)
    return table


@pytest.mark.parametrize("sizes", [None, [4, 6, 5]], ids=["one topic", "three topics"])
@pytest.mark.parametrize("level", list(LEVELS))
def test_five_observers_every_figure_at_every_level(make_user, level, sizes):
    params = LEVELS[level]
    table = five_observers(level)
    campaign = labels_campaign(make_user, f"obs-{level}", table, params, sizes)
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    names = [f"obs-{level}-r{k + 1}" for k in range(5)]
    codes = codes_of(table, scale)
    check_every_figure(report, codes, scale, names)
    assert report.topics == (len(sizes) if sizes else 1)
    # each rater's "can't tell"s: the missing cells of the topics where they labelled something
    missing = np.isnan(codes)
    expected = []
    bounds = np.cumsum([0, *(sizes or [15])])
    for k in range(5):
        count = 0
        for start, end in zip(bounds[:-1], bounds[1:]):
            if (~missing[start:end, k]).any():
                count += int(missing[start:end, k].sum())
        expected.append(count)
    assert [a.cant_tell for a in report.assessors] == expected
    assert headline(report).figure == report.alpha and level in headline(report).label


#: Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units
#: example (irrCAC's raw_4raters): alpha at each level, as the paper gives them.
KRIPPENDORFF_2011 = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
FIVE = ["1", "2", "3", "4", "5"]
FOUR_RATERS_LEVELS = {
    "nominal": {"level": "nominal", "categories": FIVE, "cant_tell": True},
    "ordinal": {"level": "ordinal", "categories": FIVE, "cant_tell": True, "weights": "quadratic"},
    "interval": {"level": "interval", "minimum": 1, "maximum": 5, "cant_tell": True, "weights": "linear"},
    "ratio": {"level": "ratio", "minimum": 1, "maximum": 5, "cant_tell": True, "weights": "ratio"},
}


@pytest.mark.parametrize("level", list(FOUR_RATERS_LEVELS))
def test_four_raters_alpha_is_krippendorffs_published_value(make_user, level):
    """Krippendorff's own example, in three topics, at each level of measurement; irrCAC's
    AC1 of it (0.77544, Gwet 2014) does not depend on the level."""
    params = FOUR_RATERS_LEVELS[level]
    table = table_of(datasets.raw_4raters())
    if params.get("categories"):
        table = np.array([[None if math.isnan(v) else str(int(v)) for v in row] for row in table], dtype=object)
    campaign = labels_campaign(make_user, f"k-{level}", table, params, [5, 4, 3])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    check_every_figure(report, codes_of(table, scale), scale, [f"k-{level}-r{k + 1}" for k in range(4)])
    assert round(report.alpha.value, 3) == KRIPPENDORFF_2011[level]
    assert round(report.ac1.value, 5) == 0.77544
    assert (report.items, report.items_judged, report.items_paired) == (12, 12, 11)
    # the first rater labelled none of units 10-12 (topic t3): no judgment of t3, so no "can't
    # tell" there; the others said it of the units they left out of a topic they submitted
    assert [a.cant_tell for a in report.assessors] == [0, 2, 1, 1]
    assert [a.judged for a in report.assessors] == [9, 10, 11, 11]


#: Custom agreement weights over the grades 0-3 that no named weighting gives: neighbours 0-1
#: agree more than 2-3, and 0 with 3 not at all.
CUSTOM_WEIGHTS = [[1, 0.9, 0.3, 0], [0.9, 1, 0.5, 0.2], [0.3, 0.5, 1, 0.6], [0, 0.2, 0.6, 1]]


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_custom_weights_give_irrcacs_figures_with_that_matrix(make_user, level):
    """Every weighted figure (AC2, Brennan-Prediger, Conger, each pair's weighted kappa) under
    the campaign's own matrix equals irrCAC's (``CAC(weights=matrix)``) and Cohen's (1968) by
    hand with it, in three topics; the report names the weights and keeps the matrix."""
    params = {**LEVELS[level], "weights": CUSTOM_WEIGHTS}
    table = five_observers(level)
    campaign = labels_campaign(make_user, f"custom-{level}", table, params, [4, 6, 5])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    assert (scale.weights, scale.matrix) == ("custom", CUSTOM_WEIGHTS)
    check_every_figure(report, codes_of(table, scale), scale, [f"custom-{level}-r{k + 1}" for k in range(5)])
    assert (report.scale.weights, report.scale.matrix) == ("custom", CUSTOM_WEIGHTS)
    # the weights change the weighted figures: they are not the named ones'
    labelled = codes_of(table, scale)
    labelled = labelled[(~np.isnan(labelled)).any(axis=1)]
    assert not close(report.ac2.value, irrcac(labelled, scale, "gwet", "quadratic")["coefficient_value"], 1e-3)
    assert not close(report.ac2.value, irrcac(labelled, scale, "gwet", "linear")["coefficient_value"], 1e-3)


def test_a_custom_matrix_equal_to_the_quadratic_one_gives_the_quadratic_figures(make_user):
    table = five_observers("ordinal")
    named = labels_campaign(make_user, "named", table, LEVELS["ordinal"] | {"weights": "quadratic"}, [4, 6, 5])
    quadratic = agreement_weights([1.0, 2.0, 3.0, 4.0], "quadratic").tolist()
    custom = labels_campaign(make_user, "own", table, LEVELS["ordinal"] | {"weights": quadratic}, [4, 6, 5])
    first, second = typed.dump(report_of(named)), typed.dump(report_of(custom))
    assert second["scale"].pop("matrix") == quadratic and first["scale"].pop("matrix") is None
    assert (first["scale"].pop("weights"), second["scale"].pop("weights")) == ("quadratic", "custom")

    def renamed(data):  # the assessors' names differ by campaign
        return json.loads(json.dumps(data).replace("named-r", "r").replace("own-r", "r"))

    assert renamed(first) == renamed(second)


def test_fleiss_1971_diagnoses(make_user, pingouin_icc):  # noqa: F811
    """Fleiss (1971) Table 1: 30 patients, each diagnosed by 6 of the psychiatrists (not the
    same 6: the rows' raters are arbitrary, so only the figures that ignore who said what are
    Fleiss'), in three topics of ten. Kappa .430; per diagnosis .245, .245, .520, .471,
    .566; kappa is the p_j q_j-weighted mean of the per-diagnosis kappas (his eq. 12)."""
    codes = from_counts(FLEISS_1971).astype(np.float64)
    table = np.array([[DIAGNOSES[int(c)] for c in row] for row in codes], dtype=object)
    campaign = labels_campaign(make_user, "fleiss", table, {"categories": DIAGNOSES}, [10, 10, 10])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    check_every_figure(report, codes, scale, [f"fleiss-r{k + 1}" for k in range(6)])
    assert (report.fleiss.raters, report.fleiss.items) == (6, 30)
    assert round(report.fleiss.kappa, 3) == 0.430
    kappas = [category.kappa.value for category in report.categories]
    assert [round(k, 3) for k in kappas] == [0.245, 0.245, 0.520, 0.471, 0.566]
    shares = np.array(FLEISS_1971).sum(axis=0) / 180
    assert [c.count for c in report.categories] == np.array(FLEISS_1971).sum(axis=0).tolist()
    spread = shares * (1 - shares)
    assert report.fleiss.kappa == pytest.approx(float(spread @ kappas / spread.sum()), abs=1e-12)
    # with every item rated by six, Fleiss' generalised kappa (irrCAC) and Krippendorff's alpha
    # differ from Fleiss' only by alpha's small-sample correction
    assert close(irrcac(codes, scale, "fleiss")["coefficient_value"], report.fleiss.kappa)
    assert report.alpha.value == pytest.approx(1 - (1 - report.fleiss.kappa) * (180 - 1) / 180, abs=1e-12)


# -- intraclass correlations on a numeric scale -----------------------------------------------------

#: Shrout & Fleiss (1979), Table 2's ICCs as published (two decimals).
SHROUT_FLEISS_ICCS = {
    "ICC(1,1)": 0.17,
    "ICC(2,1)": 0.29,
    "ICC(3,1)": 0.71,
    "ICC(1,k)": 0.44,
    "ICC(2,k)": 0.62,
    "ICC(3,k)": 0.91,
}
ONE_TO_TEN = {"level": "interval", "minimum": 1, "maximum": 10, "step": 1}


@pytest.mark.parametrize("sizes", [None, [2, 4]], ids=["one topic", "two topics"])
def test_shrout_fleiss_1979_through_a_numeric_campaign(make_user, pingouin_icc, sizes):  # noqa: F811
    campaign = labels_campaign(make_user, "sf", SHROUT_FLEISS, ONE_TO_TEN, sizes)
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    codes = codes_of(SHROUT_FLEISS, scale)
    check_every_figure(report, codes, scale, [f"sf-r{k + 1}" for k in range(4)])
    found = report.intraclass
    assert (found.items, found.raters, found.dropped_items) == (6, 4, 0)
    assert {icc.form: round(icc.ci.value, 2) for icc in found.forms} == SHROUT_FLEISS_ICCS
    reference = pingouin_icc(np.array(SHROUT_FLEISS, dtype=np.float64))
    for icc, (_, row) in zip(found.forms, reference.iterrows(), strict=True):
        assert icc.mcgraw_wong.replace("ICC(1)", "ICC(1,1)").replace("ICC(k)", "ICC(1,k)") == row["Type"]
        assert close(icc.ci.value, row["ICC"]) and close(icc.f, row["F"]) and close(icc.p_value, row["pval"])
        # six targets: too few for an interval (stats.intervals.MIN_UNITS), F-based or not
        assert (icc.ci.method, icc.ci.low, icc.ci.high, icc.ci.units) == ("too few", None, None, 6)


def test_intraclass_intervals_are_pingouins_where_intervals_are_drawn(make_user, pingouin_icc, intervals_on_few_units):  # noqa: F811
    campaign = labels_campaign(make_user, "sf", SHROUT_FLEISS, ONE_TO_TEN)
    reference = pingouin_icc(np.array(SHROUT_FLEISS, dtype=np.float64))
    for icc, (_, row) in zip(report_of(campaign).intraclass.forms, reference.iterrows(), strict=True):
        assert icc.ci.method == "analytic" and icc.ci.units == 6
        assert close(icc.ci.low, row["CI95"][0]) and close(icc.ci.high, row["CI95"][1])


def test_items_some_judges_left_out_are_dropped_from_the_intraclass_table(make_user, pingouin_icc):  # noqa: F811
    """Two more targets: one rated by three judges (the fourth said "can't tell"), one by one
    judge. The ICCs are the complete table's (Shrout & Fleiss's six targets), the two counted
    as dropped; the other figures take every label."""
    table = [*SHROUT_FLEISS, [3, 4, None, 5], [None, 7, None, None]]
    campaign = labels_campaign(make_user, "sfd", table, {**ONE_TO_TEN, "cant_tell": True}, [4, 4])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    check_every_figure(report, codes_of(table, scale), scale, [f"sfd-r{k + 1}" for k in range(4)])
    found = report.intraclass
    assert (found.items, found.raters, found.dropped_items) == (6, 4, 2)
    assert {icc.form: round(icc.ci.value, 2) for icc in found.forms} == SHROUT_FLEISS_ICCS
    assert [a.cant_tell for a in report.assessors] == [1, 0, 2, 1]


@pytest.mark.parametrize(
    ("table", "icc"),
    [([[2, 2], [4, 4], [3, 3]], 1.0), ([[3, 3], [3, 3], [3, 3]], None)],
    ids=["perfect agreement", "one number throughout"],
)
def test_intraclass_correlations_of_tables_without_error_variance(make_user, table, icc):
    """Two assessors who give every item the same number: no variance within the items, so
    every ICC is 1 (F infinite, p 0); the same number on every item: no variance at all, every
    ICC undefined. Either way the campaign's report is computed, every other figure with it."""
    found = intraclass_correlations(np.array(table, dtype=np.float64))
    if icc is None:
        assert all(math.isnan(form.value) and form.interval().method == "none" for form in found.forms)
    else:
        assert all((form.value, form.f, form.p_value) == (1.0, math.inf, 0.0) for form in found.forms)
    campaign = labels_campaign(make_user, "flat", table, {"level": "interval", "minimum": 1, "maximum": 5})
    report = report_of(campaign)
    assert [form.ci.value for form in report.intraclass.forms] == [icc] * 6
    assert report.percent.value == 1.0 and report.intraclass.items == 3


def test_a_category_scale_has_no_intraclass_correlations(make_user):
    campaign = labels_campaign(make_user, "cat", [["a", "b"], ["b", "b"]], {"categories": ["a", "b"]})
    assert report_of(campaign).intraclass is None


# -- the intervals: the library's bootstrap, none under the minimum of items --------------------


def library_intervals(codes: np.ndarray, scale: Scale, resamples: int = 1000) -> dict:
    """Each campaign figure's interval as the library draws it (stats.uncertainty's seeded
    bootstrap of the figure's per-item statistics), from the dense table of codes."""
    q = len(scale.values)
    positions = np.arange(q, dtype=np.float64)
    weights = agreement_weights(weight_values(scale), scale.weights)
    per_item = (~np.isnan(codes)).sum(axis=1)
    rated = codes[per_item > 0]
    sparse = SparseRatings.from_dense(rated)

    def drawn(stats: UnitStatistics):
        return figure_ci(stats.interval(n_resamples=resamples, seed=0), "items")

    modal = np.bincount(per_item[per_item >= 2])
    m = int(len(modal) - 1 - np.argmax(modal[::-1]))
    pairable = codes[per_item >= 2]
    if scale.numeric:
        numbers = np.asarray(scale.numbers)
        pairable = np.where(np.isnan(pairable), nan, numbers[np.nan_to_num(pairable).astype(int)])
    found = {
        "percent": drawn(rating_table_units(sparse, "percent_agreement", categories=positions)),
        "brennan_prediger": drawn(
            rating_table_units(sparse, "brennan_prediger", categories=positions, weights=weights)
        ),
        "conger": drawn(rating_table_units(sparse, "conger", categories=positions, weights=weights)),
        "ac1": drawn(gwet_units(rated, categories=positions)),
        "ac2": drawn(gwet_units(rated, weights=weights, categories=positions)),
        "alpha": drawn(krippendorff_alpha_units(pairable.T, level=scale.level)),
        "fleiss": drawn(fleiss_kappa_units(category_counts(codes[per_item == m], categories=positions))),
    }
    for k in range(q):
        for figure in ("specific_agreement", "category_kappa"):
            found[(figure, k)] = drawn(rating_table_units(sparse, figure, categories=positions, category=k))
    return found


def same_interval(found, expected) -> None:
    assert (found.method, found.units, found.unit) == (expected.method, expected.units, expected.unit)
    for mine, theirs in ((found.value, expected.value), (found.low, expected.low), (found.high, expected.high)):
        assert np.isclose(nan if mine is None else mine, theirs, atol=1e-12, rtol=0, equal_nan=True)


def figures_of(report) -> dict:
    found = {name: getattr(report, name) for name in ("percent", "brennan_prediger", "conger", "ac1", "ac2", "alpha")}
    found["fleiss"] = report.fleiss.ci
    for k, category in enumerate(report.categories):
        found[("specific_agreement", k)] = category.specific
        found[("category_kappa", k)] = category.kappa
    return found


def test_thirty_items_get_the_librarys_bootstrap_intervals(make_user):
    """Fleiss' 30 patients: as many items as an interval needs (stats.intervals.MIN_UNITS), so
    every campaign figure and every pair (30 shared items) has its 95% percentile bootstrap
    interval, and it is the library's (seed 0, 1,000 resamples) to 1e-12."""
    codes = from_counts(FLEISS_1971).astype(np.float64)
    table = np.array([[DIAGNOSES[int(c)] for c in row] for row in codes], dtype=object)
    campaign = labels_campaign(make_user, "ci", table, {"categories": DIAGNOSES}, [10, 10, 10])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    expected = library_intervals(codes, scale)
    for name, figure in figures_of(report).items():
        assert figure.method == "bootstrap" and figure.units == 30, name
        assert figure.low <= figure.value <= figure.high, name
        same_interval(figure, expected[name])
    statistics = pair_statistics(agreement_weights(weight_values(scale), scale.weights))
    for pair in report.pairs:
        i, j = (int(name.rsplit("r", 1)[1]) - 1 for name in pair.assessors)
        cells = pair_cells(codes[:, i].astype(int), codes[:, j].astype(int), len(DIAGNOSES))
        (drawn,) = pair_intervals([cells], len(DIAGNOSES) ** 2, statistics, "items", resamples=1000, seed=0)
        for figure in ("observed", "kappa", "weighted"):
            same_interval(getattr(pair, figure), drawn[figure])
            assert getattr(pair, figure).method == "bootstrap"


def test_fewer_items_than_the_minimum_get_no_interval(make_user):
    """raw_5observers' 15 units: every figure keeps its value and its count of items, and no
    interval is drawn ("too few"); a topic's report over 4 of them likewise."""
    campaign = labels_campaign(make_user, "few", five_observers("ordinal"), LEVELS["ordinal"], [4, 11])
    report = report_of(campaign)
    units = {"alpha": 15, "fleiss": 11}
    for name, figure in figures_of(report).items():
        assert (figure.method, figure.low, figure.high) == ("too few", None, None), name
        assert figure.units == units.get(name, 15), name
        assert figure.value is not None or name[0] in ("specific_agreement", "category_kappa")
    for pair in report.pairs:
        assert {getattr(pair, f).method for f in ("observed", "kappa", "weighted")} == {"too few"}
        assert pair.kappa.units == pair.n
    topic = topic_report(campaign.topics.get(external_id="t1")).data
    assert topic.items == 4 and topic.percent.method == "too few" and topic.percent.units == 4


def test_with_a_lower_minimum_the_same_items_get_the_librarys_intervals(make_user, intervals_on_few_units):
    campaign = labels_campaign(make_user, "fewer", five_observers("interval"), LEVELS["interval"], [4, 11])
    report = report_of(campaign)
    scale = Scale.of(campaign.params)
    codes = codes_of(five_observers("interval"), scale)
    expected = library_intervals(codes, scale)
    for name, figure in figures_of(report).items():
        same_interval(figure, expected[name])
        assert figure.method in ("bootstrap", "none"), name
    assert report.alpha.method == "bootstrap" and report.fleiss.ci.method == "bootstrap"
    assert all(pair.kappa.method == "bootstrap" for pair in report.pairs if pair.n >= 2)


# -- a topic's report, the headline ---------------------------------------------------------------------


def test_a_topics_report_counts_each_items_labels_and_cant_tells(make_user):
    """Three assessors on four items of a three-label ordinal scale, "can't tell" allowed:
    each row counts the labels in the scale's order and the "can't tell"s."""
    table = [
        ["low", "low", "high"],
        ["mid", None, "mid"],
        [None, None, "low"],
        ["high", "high", "high"],
    ]
    params = {"level": "ordinal", "categories": ["low", "mid", "high"], "cant_tell": True}
    campaign = labels_campaign(make_user, "rows", table, params)
    topic = campaign.topics.get()
    data = topic_report(topic).data
    assert [(row.id, row.text, row.counts, row.cant_tell) for row in data.rows] == [
        ("i1", "item 1", [2, 0, 1], 0),
        ("i2", "item 2", [0, 2, 0], 1),
        ("i3", "item 3", [1, 0, 0], 2),
        ("i4", "item 4", [0, 0, 3], 0),
    ]
    assert [a.cant_tell for a in data.assessors] == [1, 2, 0]
    assert [a.counts for a in data.assessors] == [[1, 1, 1], [1, 0, 1], [1, 1, 2]]
    scale = Scale.of(campaign.params)
    check_every_figure(data, codes_of(table, scale), scale, [f"rows-r{k + 1}" for k in range(3)])
    # the campaign's report of its one topic has the same figures
    campaign_data = report_of(campaign)
    for name in ("percent", "alpha", "ac1", "ac2", "conger", "brennan_prediger"):
        assert typed.dump(getattr(campaign_data, name)) == typed.dump(getattr(data, name))
    assert campaign_data.items_paired == data.items_paired == 3
    # Krippendorff's alpha, ordinal, by hand from the coincidences of items 1, 2 and 4
    assert close(data.alpha.value, krippendorff.alpha(codes_of(table, scale).T, level_of_measurement="ordinal"))


def test_the_headline_is_alpha_at_the_scales_level(make_user):
    campaign = labels_campaign(make_user, "head", SHROUT_FLEISS, {**ONE_TO_TEN, "level": "ratio"})
    report = report_of(campaign)
    found = headline(report)
    assert found.label == "Krippendorff's alpha (ratio)" and found.figure == report.alpha
    expected = krippendorff.alpha(np.array(SHROUT_FLEISS, dtype=np.float64).T, level_of_measurement="ratio")
    assert close(found.figure.value, expected)
