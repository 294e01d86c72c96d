"""The pairs campaign report's running sums (scoring/sums.py): every figure made from counts.

A topic's contribution holds, as integers: its items, and per number ``r`` of votes an
item got the items so voted with their match votes and those votes' squares (Fleiss'
kappa over the items with the commonest ``r``, Krippendorff's nominal alpha and Gwet's
AC1 are functions of these, section 3.1 of Arehart, Wolf & Miller); per assessor the
items judged and accepted; per pair of assessors their 2x2 table; per system its true
positives, false positives and false negatives under each truth set (section 2.4).
:func:`refresh` computes the campaign report's point figures from the campaign's sums
and takes from ``fits`` (the last full merge, kinds/pairs/partials.py ``merge``) only
what needs every item at once: the bootstrap intervals' bounds, the chance test, the
Dawid-Skene reliabilities and the accuracy table, the ranking's stability.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from annotate.models import Campaign, Topic
from kinds.pairs.partials import LIVE_PAIRS, MATRIX_ASSESSORS, PairsPartial, system_runs
from kinds.pairs.report import (
    PRF,
    UNIT,
    PairsAlpha,
    PairsAssessor,
    PairsCampaignReport,
    PairsFleiss,
    PairsPair,
    PairsSystem,
    kappa_matrix,
)
from kinds.pairs.stats import consensus, intersection, union
from scoring.partials import MergeInput
from scoring.sums import PairTables, around
from stats.agreement import largest, most_partnered, pairwise_of_table
from stats.intervals import FigureCI, no_ci
from stats.systems import scores_from_counts

#: The truth sets the systems are scored under, in the report's order.
TRUTH_SETS = {"consensus": consensus, "union": union, "intersection": intersection}


@dataclass(frozen=True)
class PairsSums:
    """Counts of a topic, or summed over the campaign's topics (every field adds)."""

    topics: int = 0
    items: int = 0
    #: str(r) -> [items with r votes, their match votes, the sum of their match votes squared], r >= 1
    voted: dict[str, list[int]] = field(default_factory=dict)
    #: assessor -> [items judged, matches, votes on items with two or more votes]
    assessors: dict[str, list[int]] = field(default_factory=dict)
    #: per pair of assessors sharing an item: [both match, first only, second only, neither]
    pairs: PairTables = field(default_factory=PairTables)
    #: system -> [tp, fp, fn] under each of TRUTH_SETS in turn
    systems: dict[str, list[int]] = field(default_factory=dict)


def contribution(campaign: Campaign | None, topic: Topic | None, partial: PairsPartial) -> PairsSums:
    """The counts of one topic's partial.

    >>> nan = float("nan")
    >>> p = PairsPartial(2, ["c1", "c2"], ["a", "b"], [1, 1, 0, nan], ["s"], [True, False], [], [], [nan, nan])
    >>> sums = contribution(None, None, p)
    >>> sums.voted, sums.pairs.names, sums.pairs.arrays()[2].tolist(), sums.systems
    ({'1': [1, 0, 0], '2': [1, 2, 4]}, ['a', 'b'], [[1, 0, 0, 0]], {'s': [1, 0, 0, 1, 0, 0, 1, 0, 0]})
    """
    width = len(partial.assessors)
    votes = np.array(partial.votes, dtype=np.float64).reshape(partial.items, width)
    judged = ~np.isnan(votes)
    match = judged & (votes == 1)
    raters = judged.sum(axis=1)
    matches = match.sum(axis=1)
    voted = {}
    for r in np.unique(raters[raters > 0]).tolist():
        on = raters == r
        voted[str(r)] = [int(on.sum()), int(matches[on].sum()), int((matches[on] ** 2).sum())]
    pairable = judged & (raters >= 2)[:, np.newaxis]
    assessors = {
        name: [int(judged[:, k].sum()), int(match[:, k].sum()), int(pairable[:, k].sum())]
        for k, name in enumerate(partial.assessors)
        if judged[:, k].any()
    }
    # every pair's 2x2 table in four products: match and no match of the one against the other's
    yes, no = match.astype(np.int64), (judged & ~match).astype(np.int64)
    first, second = np.triu_indices(width, 1)
    tables = np.stack([(yes.T @ yes), (yes.T @ no), (no.T @ yes), (no.T @ no)], axis=-1)[first, second]
    systems = {}
    if partial.systems and width:
        returned = np.array(partial.returned, dtype=bool).reshape(len(partial.systems), partial.items)
        truths = [truth(votes) for truth in TRUTH_SETS.values()]
        for s, name in enumerate(partial.systems):
            counts = []
            for truth in truths:
                known = ~np.isnan(truth)
                counts += [
                    int((returned[s] & known & (truth == 1)).sum()),
                    int((returned[s] & known & (truth == 0)).sum()),
                    int((~returned[s] & known & (truth == 1)).sum()),
                ]
            systems[name] = counts
    pairs = PairTables.of(partial.assessors, first, second, tables) if len(first) else PairTables()
    return PairsSums(1, partial.items, voted, assessors, pairs, systems)


def refresh(given: MergeInput, fits: PairsCampaignReport, sums: PairsSums) -> PairsCampaignReport:
    """The campaign report of ``sums``: every point figure from the counts, what needs every
    item at once (intervals' bounds, the chance test, the fits, the ranking) from ``fits``."""
    names = sorted(sums.assessors)
    voted = {int(r): counts for r, counts in sums.voted.items()}
    per_assessor = [
        PairsAssessor(
            assessor=name,
            judged=judged,
            accepted=accepted,
            base_rate=accepted / judged if judged else float("nan"),
        )
        for name, (judged, accepted, _) in ((n, sums.assessors[n]) for n in names)
    ]
    # the pairs' names are sorted, as ``names``: their order is the merge's (by assessor column)
    first, second, tables = sums.pairs.arrays()
    column = np.searchsorted(np.array(names, dtype=object), np.array(sums.pairs.names, dtype=object))
    first, second = column[first], column[second]
    listed = largest(tables.sum(axis=1), LIVE_PAIRS)
    before = {tuple(p.assessors): p for p in fits.pairs}
    pairs = [_pair((names[first[p]], names[second[p]]), tables[p].tolist(), before) for p in listed.tolist()]
    chosen = most_partnered(first, second, len(names), MATRIX_ASSESSORS)
    fleiss = _fleiss(voted, fits.fleiss)
    alpha_value, alpha_items = _alpha(voted)
    return dataclasses.replace(
        fits,
        items=sums.items,
        items_judged=sum(counts[0] for counts in voted.values()),
        assessors=per_assessor,
        pairs=pairs,
        kappa_matrix=kappa_matrix(len(names), first, second, tables, chosen),
        matrix_names=[names[k] for k in chosen.tolist()],
        fleiss=fleiss,
        alpha=PairsAlpha(
            alpha=alpha_value,
            items=alpha_items,
            # over the pairable items; with none, whoever voted (as kinds.pairs.report._alpha)
            coders=sum(1 for counts in sums.assessors.values() if counts[2 if alpha_items else 0] > 0),
            ci=around(fits.alpha.ci, alpha_value, alpha_items),
        ),
        ac1=around(fits.ac1, _ac1(voted), sum(counts[0] for counts in voted.values())),
        topics=sums.topics,
        systems=_systems(given, names, sums),
        pair_count=len(sums.pairs),
    )


def _pair(assessors: tuple[str, str], table: list[int], before: dict[tuple[str, str], PairsPair]) -> PairsPair:
    figures = pairwise_of_table(*table)
    n = sum(table)
    a, b, c, d = table
    pa = (a + d) / n
    share = (2 * a + b + c) / (2 * n)
    pe = 2 * share * (1 - share)
    ac1 = (pa - pe) / (1 - pe) if pe != 1 else float("nan")
    old = before.get(assessors)

    def interval(name: str, value: float) -> FigureCI:
        if old is None:  # a pair the last fit did not list: no interval until the next
            return no_ci(value, n, UNIT)
        return around(getattr(old, name), value, n)

    return PairsPair(
        assessors=assessors,
        **vars(figures),
        kappa_ci=interval("kappa_ci", figures.kappa),
        overlap_ci=interval("overlap_ci", figures.overlap),
        positive_ci=interval("positive_ci", figures.positive),
        negative_ci=interval("negative_ci", figures.negative),
        ac1=interval("ac1", ac1),
    )


def _fleiss(voted: dict[int, list[int]], fits: PairsFleiss) -> PairsFleiss:
    """Fleiss' kappa over the items with the commonest number of votes (>= 2; ties: the larger)."""
    several = {r: counts for r, counts in voted.items() if r >= 2}
    if not several:
        return PairsFleiss(
            kappa=float("nan"),
            items=0,
            raters=0,
            bootstrap=around(fits.bootstrap, float("nan"), 0),
            chance_test=fits.chance_test,
            analytic_general=around(fits.analytic_general, float("nan"), 0),
        )
    m = max(several, key=lambda r: (several[r][0], r))
    items, matches, squares = several[m]
    totals = np.array([items * m - matches, matches], dtype=np.float64)
    if np.count_nonzero(totals) < 2:
        kappa = float("nan")
    else:
        square_sum = 2 * squares - 2 * m * matches + items * m * m
        agreement = (square_sum / items - m) / (m * (m - 1.0))
        chance = float(np.sum(np.square(totals / (items * m))))
        kappa = float((agreement - chance) / (1 - chance))
    return PairsFleiss(
        kappa=kappa,
        items=items,
        raters=m,
        bootstrap=around(fits.bootstrap, kappa, items),
        chance_test=fits.chance_test,
        analytic_general=around(fits.analytic_general, kappa, items),
    )


def _alpha(voted: dict[int, list[int]]) -> tuple[float, int]:
    """Krippendorff's nominal alpha over the items with two or more votes, and their number."""
    matches = no_matches = 0
    observed = 0.0
    items = 0
    for r, (n, ones, squares) in voted.items():
        if r < 2:
            continue
        items += n
        matches += ones
        no_matches += n * r - ones
        # sum over the items of n1 * n0 = r n1 - n1^2, each pair counted both ways, over r - 1
        observed += 2 * (r * ones - squares) / (r - 1)
    if matches == 0 or no_matches == 0:
        return float("nan"), items
    expected = 2 * matches * no_matches
    return float(1 - (matches + no_matches - 1) * observed / expected), items


def _ac1(voted: dict[int, list[int]]) -> float:
    """Gwet's AC1 over the voted items (stats.gwet.gwet_units with the categories no match, match)."""
    rated = sum(counts[0] for counts in voted.values())
    several = sum(counts[0] for r, counts in voted.items() if r >= 2)
    if not several:
        return float("nan")
    agreement = 0.0
    share = 0.0
    for r, (n, ones, squares) in voted.items():
        share += ones / r
        if r >= 2:
            # sum over the items of n1 (n1 - 1) + n0 (n0 - 1)
            pairs = 2 * squares - 2 * r * ones + n * r * r - n * r
            agreement += pairs / (r * (r - 1))
    pa = agreement / several
    pi = share / rated
    pe = pi * (1 - pi) + (1 - pi) * pi
    return float((pa - pe) / (1 - pe)) if pe != 1 else float("nan")


def _systems(given: MergeInput, names: list[str], sums: PairsSums) -> list[PairsSystem]:
    systems = [run.name for run in system_runs(given.runs)]
    if not systems or not names:
        return []
    found = []
    for name in systems:
        counts = np.array(sums.systems.get(name, [0] * 9), dtype=np.int64).reshape(len(TRUTH_SETS), 3)
        scored = scores_from_counts(counts)
        found.append(
            PairsSystem(
                system=name,
                **{
                    truth: PRF(
                        precision=float(np.atleast_1d(scored.precision)[t]),
                        recall=float(np.atleast_1d(scored.recall)[t]),
                        f1=float(np.atleast_1d(scored.f1)[t]),
                    )
                    for t, truth in enumerate(TRUTH_SETS)
                },
            )
        )
    return found
