"""The labels campaign report's running sums (scoring/sums.py): every figure made from counts.

Every agreement coefficient over the items (Fleiss, Krippendorff's alpha at the scale's
level, Gwet's AC1 and AC2, percent agreement, Brennan-Prediger, Conger, each label's
specific agreement and kappa) is a function of the items' category counts ``r_ik``
through, for each number ``m`` of labels an item has, three integer sums: the items
so labelled ``N_m``, their counts ``T_m[k] = sum_i r_ik`` and their products
``M_m[k, l] = sum_i r_ik r_il`` (what each coefficient's per-item terms add up to:
stats/gwet.py, stats/ratingtables.py, stats/uncertainty.py). With each assessor's labels
per category and each pair's confusion matrix they make every point figure of the
campaign report. :func:`refresh` feeds these sums to the coefficients' own statistics,
so a figure from the sums is the one a merge of every partial computes, to rounding;
what needs every item at once comes from ``fits`` (the last full merge,
kinds/labels/partials.py ``merge``): the intervals' bounds, the intraclass correlations,
the Dawid-Skene reliabilities, the accuracy tables and the model judges' tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from annotate.models import Campaign, Topic
from kinds.labels.data import Scale
from kinds.labels.partials import LIVE_PAIRS, MATRIX_ASSESSORS, LabelsPartial
from kinds.labels.report import (
    UNIT,
    LabelsAssessor,
    LabelsCampaignReport,
    LabelsCategory,
    LabelsFleiss,
    LabelsPair,
    scale_weights,
)
from kinds.labels.stats import pair_statistics
from scoring.partials import MergeInput
from scoring.sums import PairTables, around
from stats.agreement import kappas_from_confusions, largest, most_partnered, pair_matrix
from stats.gwet import gwet_units
from stats.intervals import FigureCI, no_ci
from stats.ratings import SparseRatings
from stats.ratingtables import rating_table_units
from stats.uncertainty import fleiss_kappa_units, krippendorff_alpha_units


@dataclass(frozen=True)
class LabelsSums:
    """Counts of a topic, or summed over the campaign's topics (every field adds); ``q`` the
    scale's labels."""

    topics: int = 0
    items: int = 0
    #: str(m) -> [N_m, T_m (q), M_m (q x q, row by row)] over the items with m labels, m >= 1
    moments: dict[str, list[int]] = field(default_factory=dict)
    #: assessor -> [topics judged, can't tells, labels of each category (q)]
    assessors: dict[str, list[int]] = field(default_factory=dict)
    #: per pair of assessors sharing an item: their confusion matrix (q x q, row: the first), row by row
    pairs: PairTables = field(default_factory=PairTables)


def contribution(campaign: Campaign, topic: Topic | None, partial: LabelsPartial) -> LabelsSums:
    """The counts of one topic's partial.

    >>> nan = float("nan")
    >>> class C:
    ...     params = {"categories": ["cat", "dog"]}
    >>> p = LabelsPartial(2, ["i1", "i2"], ["a", "b"], [0, 1, 0, nan], [0, 1], [], [], [nan, nan])
    >>> sums = contribution(C(), None, p)
    >>> sums.moments
    {'1': [1, 1, 0, 1, 0, 0, 0], '2': [1, 1, 1, 1, 1, 1, 1]}
    >>> sums.assessors, sums.pairs.names, sums.pairs.arrays()[2].tolist()
    ({'a': [1, 0, 2, 0], 'b': [1, 1, 0, 1]}, ['a', 'b'], [[0, 1, 0, 0]])
    """
    q = len(Scale.of(campaign.params).values)
    width = len(partial.assessors)
    codes = np.array(partial.codes, dtype=np.float64).reshape(partial.items, width)
    given = ~np.isnan(codes)
    counts = np.zeros((partial.items, q), np.int64)
    rows, columns = np.nonzero(given)
    np.add.at(counts, (rows, codes[rows, columns].astype(np.int64)), 1)
    labels = counts.sum(axis=1)
    moments = {}
    for m in np.unique(labels[labels > 0]).tolist():
        on = counts[labels == m]
        moments[str(m)] = [len(on), *on.sum(axis=0).tolist(), *(on.T @ on).ravel().tolist()]
    assessors = {}
    for k, name in enumerate(partial.assessors):
        mine = codes[given[:, k], k].astype(np.int64)
        assessors[name] = [1, int(partial.cant_tell[k]), *np.bincount(mine, minlength=q).tolist()]
    # every pair's confusion matrix in one product of the one-hot labels
    onehot = np.zeros((partial.items, width, q), np.int64)
    onehot[rows, columns, codes[rows, columns].astype(np.int64)] = 1
    first, second = np.triu_indices(width, 1)
    confusions = np.einsum("nia,njb->ijab", onehot, onehot)[first, second].reshape(len(first), q * q)
    pairs = PairTables.of(partial.assessors, first, second, confusions) if len(first) else PairTables()
    return LabelsSums(1, partial.items, moments, assessors, pairs)


@dataclass(frozen=True)
class _Moments:
    """The per-m sums as arrays: the numbers of labels m, N (m), T (m x q), M (m x q x q)."""

    m: np.ndarray
    n: np.ndarray
    t: np.ndarray
    products: np.ndarray

    @classmethod
    def of(cls, moments: dict[str, list[int]], q: int) -> _Moments:
        keys = sorted(moments, key=int)
        rows = np.array([moments[k] for k in keys], dtype=np.float64).reshape(len(keys), 1 + q + q * q)
        return cls(
            np.array([int(k) for k in keys], dtype=np.float64),
            rows[:, 0],
            rows[:, 1 : 1 + q],
            rows[:, 1 + q :].reshape(len(keys), q, q),
        )

    def over(self, keep: np.ndarray) -> _Moments:
        return _Moments(self.m[keep], self.n[keep], self.t[keep], self.products[keep])


def refresh(given: MergeInput, fits: LabelsCampaignReport, sums: LabelsSums) -> LabelsCampaignReport:
    """The campaign report of ``sums``: every point figure from the counts, what needs every
    item at once (intervals' bounds, intraclass correlations, the fits, the model judges)
    from ``fits``."""
    scale = Scale.of(given.campaign.params)
    q = len(scale.values)
    codes = np.arange(q, dtype=np.float64)
    weights = scale_weights(scale)
    names = sorted(name for name, counts in sums.assessors.items() if counts[0] > 0)
    moments = _Moments.of(sums.moments, q)
    rated, several = moments.over(moments.m >= 1), moments.over(moments.m >= 2)
    labelled = [np.array(sums.assessors[name][2:], dtype=np.int64) for name in names]
    # the pairs' names are sorted, as ``names``: their order is the merge's (by assessor column)
    first, second, tables = sums.pairs.arrays()
    place = np.searchsorted(np.array(names, dtype=object), np.array(sums.pairs.names, dtype=object))
    first, second = place[first], place[second]
    confusions = tables.astype(np.float64).reshape(len(first), q, q)
    shared = confusions.sum(axis=(1, 2))
    listed = largest(shared, LIVE_PAIRS)
    statistics = pair_statistics(weights)
    before = {tuple(p.assessors): p for p in fits.pairs}
    pairs = []
    for p in listed.tolist():
        pair = (names[first[p]], names[second[p]])
        cells = confusions[p].ravel()
        old = before.get(pair)
        n = int(shared[p])

        def figure(name: str, old=old, cells=cells, n=n) -> FigureCI:
            value = float(statistics[name](cells))
            return no_ci(value, n, UNIT) if old is None else around(getattr(old, name), value, n)

        pairs.append(
            LabelsPair(
                assessors=pair,
                n=n,
                confusion=confusions[p].astype(int).tolist(),
                observed=figure("observed"),
                kappa=figure("kappa"),
                weighted=figure("weighted"),
            )
        )
    chosen = most_partnered(first, second, len(names), MATRIX_ASSESSORS)
    kappas = kappas_from_confusions(confusions) if len(first) else np.zeros(0)
    total = int(sum(counts.sum() for counts in labelled))
    per_label = np.sum(labelled, axis=0) if labelled else np.zeros(q, np.int64)
    over_rated = _over_rated(rated, several, codes, weights, len(names), labelled, fits)
    return dataclasses.replace(
        fits,
        items=sums.items,
        items_judged=int(rated.n.sum()),
        items_paired=int(several.n.sum()),
        assessors=[
            LabelsAssessor(name, int(counts.sum()), counts.tolist(), sums.assessors[name][1])
            for name, counts in zip(names, labelled)
        ],
        pairs=pairs,
        kappa_matrix=pair_matrix(len(names), first, second, kappas, chosen),
        matrix_names=[names[k] for k in chosen.tolist()],
        fleiss=_fleiss(several, q, fits.fleiss),
        alpha=_alpha(several, scale, fits.alpha),
        **over_rated,
        categories=_categories(several, scale, per_label, total, fits.categories),
        topics=sums.topics,
        pair_count=len(sums.pairs),
    )


def _statistic(units: Callable[..., object], sums: np.ndarray) -> float:
    return float(units.statistic(np.asarray(sums, dtype=np.float64)))  # type: ignore[attr-defined]


def _fleiss(several: _Moments, q: int, fits: LabelsFleiss) -> LabelsFleiss:
    """Fleiss' kappa over the items with the commonest number of labels (>= 2; ties: the larger)."""
    if not len(several.m):
        return LabelsFleiss(float("nan"), 0, 0, no_ci(float("nan"), 0, UNIT))
    at = max(range(len(several.m)), key=lambda k: (several.n[k], several.m[k]))
    m, n = int(several.m[at]), int(several.n[at])
    # the statistic reads the number of raters from the table's first row: one item of m labels
    units = fleiss_kappa_units(np.array([[m] + [0] * (q - 1)]))
    kappa = _statistic(units, [*several.t[at], np.trace(several.products[at]), n])
    return LabelsFleiss(kappa=kappa, items=n, raters=m, ci=around(fits.ci, kappa, n))


def _alpha(several: _Moments, scale: Scale, fits: FigureCI) -> FigureCI:
    """Krippendorff's alpha at the scale's level over the items labelled twice or more."""
    items = int(several.n.sum())
    if not items:
        return no_ci(float("nan"), 0, UNIT)
    q = len(scale.values)
    numbers = np.asarray(scale.numbers, dtype=np.float64) if scale.numeric else np.arange(q, dtype=np.float64)
    values, position = np.unique(numbers, return_inverse=True)
    # every value once, so that the statistic knows them all (one unit, one label each)
    units = krippendorff_alpha_units(values[:, np.newaxis], level=scale.level)
    v = len(values)
    # the counts and products on the sorted values
    lift = np.zeros((q, v))
    lift[np.arange(q), position] = 1.0
    t = several.t @ lift
    products = np.einsum("ck,mcd,dl->mkl", lift, several.products, lift)
    weight = 1.0 / (several.m - 1)
    if scale.level == "ordinal":
        coincidences = products - t[:, :, np.newaxis] * np.eye(v)[np.newaxis]
        sums = np.einsum("m,mkl->kl", weight, coincidences).ravel()
    else:
        if scale.level == "nominal":
            disagreement = several.m * several.m * several.n - np.einsum("mkk->m", products)
        elif scale.level == "interval":
            disagreement = 2 * several.m * (t @ np.square(values)) - 2 * np.einsum(
                "k,mkl,l->m", values, products, values
            )
        else:
            from stats import agreement as _agreement  # the ratio metric's differences, as alpha's own

            differences = _agreement._ratio_difference(values[:, np.newaxis], values[np.newaxis, :])
            disagreement = np.einsum("kl,mkl->m", differences, products)
        sums = np.concatenate([t.sum(axis=0), [np.dot(weight, disagreement)]])
    return around(fits, _statistic(units, sums), items)


def _over_rated(
    rated: _Moments,
    several: _Moments,
    codes: np.ndarray,
    weights: np.ndarray,
    n_raters: int,
    labelled: list[np.ndarray],
    fits: LabelsCampaignReport,
) -> dict[str, FigureCI]:
    """Gwet's AC1 and AC2, percent agreement, Brennan-Prediger and Conger over the labelled items."""
    names = ("ac1", "ac2", "percent", "brennan_prediger", "conger")
    items = int(rated.n.sum())
    if not items:
        return {name: no_ci(float("nan"), 0, UNIT) for name in names}
    q = len(codes)
    dummy = SparseRatings.from_entries(
        np.zeros(max(n_raters, 1), np.int64),
        np.arange(max(n_raters, 1)),
        np.zeros(max(n_raters, 1)),
        n_items=1,
        n_raters=max(n_raters, 1),
    )
    packed = np.zeros((1, 1))
    found = {}
    shares = (rated.t / rated.m[:, np.newaxis]).sum(axis=0)
    for name, w in (("ac1", np.eye(q)), ("ac2", weights)):
        units = gwet_units(packed, weights=w, categories=codes)
        found[name] = [_agreement_sum(several, w), several.n.sum(), *shares, items]
        found[name] = around(getattr(fits, name), _statistic(units, found[name]), items)
    observed = {
        "percent": [_agreement_sum(several, np.eye(q)), several.n.sum()],
        "brennan_prediger": [_agreement_sum(several, weights), several.n.sum()],
    }
    for name, figure, w in (
        ("percent", "percent_agreement", "identity"),
        ("brennan_prediger", "brennan_prediger", weights),
    ):
        units = rating_table_units(dummy, figure, categories=codes, weights=w)
        found[name] = around(getattr(fits, name), _statistic(units, observed[name]), items)
    units = rating_table_units(dummy, "conger", categories=codes, weights=weights)
    by_rater = np.array(labelled, dtype=np.float64).reshape(len(labelled), q) if labelled else np.zeros((1, q))
    conger = _statistic(units, [*observed["brennan_prediger"], *by_rater.ravel()])
    found["conger"] = around(fits.conger, conger, items)
    return found


def _agreement_sum(several: _Moments, w: np.ndarray) -> float:
    """The sum over the items labelled twice or more of p_a|i = sum_k r_ik (r*_ik - 1) / (m (m - 1))."""
    pairs = np.einsum("kl,mkl->m", w, several.products) - several.t.sum(axis=1) * 1.0
    return float(np.sum(pairs / (several.m * (several.m - 1))))


def _categories(
    several: _Moments, scale: Scale, per_label: np.ndarray, total: int, fits: list[LabelsCategory]
) -> list[LabelsCategory]:
    """Each label's count and share, and its specific agreement and kappa on the items labelled
    twice or more (stats.ratingtables ``_category_units``' sums)."""
    q = len(scale.values)
    before = {c.label: c for c in fits}
    dummy = SparseRatings.from_entries(np.zeros(2, np.int64), np.arange(2), np.zeros(2), n_items=1, n_raters=2)
    found = []
    for k, label in enumerate(scale.labels):
        n = int(per_label[k]) if k < len(per_label) else 0
        share = float(n / total) if total else float("nan")
        diagonal = several.products[:, k, k] if len(several.m) else np.zeros(0)
        t = several.t[:, k] if len(several.m) else np.zeros(0)
        sums = [
            float(np.sum(diagonal - t)),
            float(np.sum(t * (several.m - 1))),
            float(np.sum(t)),
            float(np.sum(several.n * several.m)),
        ]
        old = before.get(label)
        items = int(several.n.sum())
        figures = []
        for figure in ("specific_agreement", "category_kappa"):
            value = _statistic(
                rating_table_units(dummy, figure, categories=np.arange(q, dtype=np.float64), category=k), sums
            )
            if old is None or not items:
                figures.append(no_ci(value if items else float("nan"), items, UNIT))
            else:
                figures.append(around(old.specific if figure == "specific_agreement" else old.kappa, value, items))
        found.append(LabelsCategory(label, n, share, *figures))
    return found
