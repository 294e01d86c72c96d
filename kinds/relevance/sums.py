"""The relevance campaign report's running sums (scoring/sums.py): every figure made from counts.

A topic's contribution holds, as integers unless said: its documents; per assessor the
documents graded, those relevant (grade >= the campaign's threshold), the sum of the grades,
those another assessor graded too, and how often each grade was given; per pair of
assessors their confusion matrix over the documents both graded (every kappa, AC2 and the
pooled overlap of Voorhees (2000) are functions of it) and, where one of them found a
relevant document there, the topic's overlap (a float: the mean overlap is a mean over
topics); for each number ``m`` of grades a document has, the documents so graded, their
grades per value and the products of their grade counts (Krippendorff's alpha, ordinal and
interval, and Gwet's AC2 of every assessor at once are functions of these, as for labels:
kinds/labels/sums.py), and those relevant to all ``m`` graders and to any (every assessor's
overlap: a document every assessor of the campaign graded is one with as many grades as
the campaign has assessors); per qrels set the topics it has and the systems' scores on
them, as exact sums (kinds/relevance/partials.py ``exact_sums``: whole numbers, so that a
mean, and a tie between two systems, does not depend on the order of the changes).

Every width-dependent entry is keyed with its width (``@w``: the scale's grades, or more when
a topic holds a grade stored before the scale was shortened), so that topics of different
widths add up and :func:`refresh` widens them to the campaign's levels.

:func:`refresh` computes every point figure from the sums (the systems' means, their
ranking's stability between qrels sets, every agreement figure) and takes from ``fits``
(the last full merge, kinds/relevance/partials.py ``merge``) only what needs every
document or topic at once: the bounds of the bootstrap intervals, the Dawid-Skene
reliabilities and the bootstrap over topics of the systems' ranking (``ranking``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from annotate.models import Campaign, Topic
from kinds.relevance.data import scale_of, threshold_of
from kinds.relevance.partials import (
    LIMBS,
    MEASURES,
    RelevancePartial,
    evaluation_summary,
    exact_sums,
    exact_totals,
    system_runs,
    vote_truths,
)
from kinds.relevance.report import (
    AC2_WEIGHTS,
    TOPICS,
    UNIT,
    Grades,
    RelevanceAgreement,
    RelevanceAlpha,
    RelevanceAssessor,
    RelevanceCampaignReport,
    RelevanceGroupOverlap,
    RelevanceKappaMatrix,
    RelevancePair,
    agreement_fields,
    pair_statistics,
)
from scoring.partials import MergeInput
from stats import ireval
from stats.agreement import kappas_from_confusions
from stats.gwet import agreement_weights, gwet_units
from stats.intervals import FigureCI, no_ci
from stats.uncertainty import krippendorff_alpha_units

#: Between the two names of a pair's key (a name never holds it: names are printable).
SEPARATOR = "\x1f"
#: Between a key and the width of its entry's grades.
WIDTH = "@"


@dataclass(frozen=True)
class RelevanceSums:
    """Counts of a topic, or summed over the campaign's topics (every field adds)."""

    topics: int = 0
    #: (topic, document) pairs
    items: int = 0
    #: assessor -> [topics judged, documents graded, relevant, the grades' sum, documents graded by another too]
    assessors: dict[str, list[int]] = field(default_factory=dict)
    #: "assessor@w" -> how often they gave each grade 0 .. w - 1
    grades: dict[str, list[int]] = field(default_factory=dict)
    #: "first\x1fsecond@w" (sorted) -> their w x w confusion matrix (row: the first's grade), row by row
    pairs: dict[str, list[int]] = field(default_factory=dict)
    #: "first\x1fsecond" -> [topics where one of them found a relevant document among those both graded,
    #: the sum of those topics' overlaps]
    overlaps: dict[str, list[float]] = field(default_factory=dict)
    #: "m@w" -> [documents with m grades, their grades per value (w), the products of their grade counts
    #: (w x w, row by row)], m >= 1
    moments: dict[str, list[int]] = field(default_factory=dict)
    #: str(m) -> [topics with a document graded m times, relevant to one of its graders, the sum of
    #: those topics' overlaps of the m graders]
    group: dict[str, list[float]] = field(default_factory=dict)
    #: str(m) -> [documents graded m times relevant to all m graders, to any]
    group_pooled: dict[str, list[int]] = field(default_factory=dict)
    #: qrels set -> [topics, then per system and measure the topics scored, then per system and
    #: measure the scores' exact sum (LIMBS whole numbers: partials.exact_sums)]
    evaluation: dict[str, list[int]] = field(default_factory=dict)


def _keyed(key: str, width: int) -> str:
    return f"{key}{WIDTH}{width}"


def _unkeyed(key: str) -> tuple[str, int]:
    name, _, width = key.rpartition(WIDTH)
    return name, int(width)


def contribution(campaign: Campaign, topic: Topic | None, partial: RelevancePartial) -> RelevanceSums:
    """The counts of one topic's partial.

    >>> nan = float("nan")
    >>> class C:
    ...     params = {"scale": ["no", "yes"], "threshold": 1}
    >>> p = RelevancePartial(["d1", "d2"], ["a", "b"], [1, 0, 1, nan], ["consensus"], [], [])
    >>> sums = contribution(C(), None, p)
    >>> sums.assessors, sums.pairs, sums.overlaps
    ({'a': [1, 2, 1, 1, 1], 'b': [1, 1, 1, 1, 1]}, {'a\\x1fb@2': [0, 0, 0, 1]}, {'a\\x1fb': [1, 1.0]})
    >>> sums.moments, sums.group, sums.group_pooled, sums.evaluation
    ({'1@2': [1, 1, 0, 1, 0, 0, 0], '2@2': [1, 0, 2, 0, 0, 0, 4]}, {'2': [1, 1.0]}, {'2': [1, 1]}, {'consensus': [1]})
    """
    scale, threshold = scale_of(campaign.params), threshold_of(campaign.params)
    names, n = partial.assessors, len(partial.documents)
    matrix = np.array(partial.grades, dtype=np.float64).reshape(len(names), n)
    judged = ~np.isnan(matrix)
    codes = np.where(judged, matrix, -1.0).astype(np.int64)
    width = max(len(scale), int(codes.max(initial=-1)) + 1)
    relevant = judged & (codes >= threshold)
    graders = judged.sum(axis=0)
    several = graders >= 2
    # documents x grades: how many graders gave each grade; assessors x documents x grades, one-hot
    one_hot = (codes[:, :, np.newaxis] == np.arange(width)).astype(np.int64)
    counts = one_hot.sum(axis=0)
    # the topic's counts in a few array operations, then one list per assessor and pair: a full
    # rebuild takes every topic's contribution
    flat, r = judged.astype(np.int64), relevant.astype(np.int64)
    per_assessor = np.column_stack(
        [
            np.ones(len(names), np.int64),
            flat.sum(axis=1),
            r.sum(axis=1),
            np.where(judged, codes, 0).sum(axis=1),
            (flat * several).sum(axis=1),
        ]
    ).tolist()
    assessors = dict(zip(names, per_assessor))
    given = one_hot.sum(axis=1)
    grades = {
        _keyed(name, width): row for name, row, any_ in zip(names, given.tolist(), judged.any(axis=1).tolist()) if any_
    }
    pairs, overlaps = {}, {}
    if len(names) >= 2:
        first, second = np.triu_indices(len(names), 1)
        shared = (flat @ flat.T)[first, second] > 0
        first, second = first[shared], second[shared]
        confusions = np.einsum("adk,adl->akl", one_hot[first], one_hot[second]).reshape(len(first), width * width)
        both = np.einsum("ad,ad->a", r[first], r[second])
        union = np.einsum("ad,ad->a", r[first] | r[second], flat[first] * flat[second])
        for a, b, cells, inter, either in zip(
            first.tolist(), second.tolist(), confusions.tolist(), both.tolist(), union.tolist()
        ):
            pair = f"{names[a]}{SEPARATOR}{names[b]}"
            pairs[_keyed(pair, width)] = cells
            if either:
                overlaps[pair] = [1, inter / either]
    moments, group, group_pooled = {}, {}, {}
    relevant_to = relevant.sum(axis=0)
    for m in np.unique(graders[graders > 0]).tolist():
        on = counts[graders == m]
        moments[_keyed(str(m), width)] = [len(on), *on.sum(axis=0).tolist(), *(on.T @ on).ravel().tolist()]
        mine = relevant_to[graders == m]
        all_of, any_of = int((mine == m).sum()), int((mine > 0).sum())
        if any_of:
            group[str(m)] = [1, all_of / any_of]
            group_pooled[str(m)] = [all_of, any_of]
    evaluation = {}
    if partial.sets:
        scores = np.array(partial.scores, dtype=np.float64).reshape(len(partial.sets), -1)
        scored = ~np.isnan(scores)
        limbs = exact_sums(np.where(scored, scores, 0.0)[:, :, np.newaxis], axis=2)
        for q, name in enumerate(partial.sets):
            evaluation[name] = [1, *scored[q].astype(np.int64).tolist(), *limbs[q].ravel().tolist()]
    return RelevanceSums(
        topics=1,
        items=n,
        assessors=assessors,
        grades=grades,
        pairs=pairs,
        overlaps=overlaps,
        moments=moments,
        group=group,
        group_pooled=group_pooled,
        evaluation=evaluation,
    )


def _widened(
    entries: dict[str, list[int]], levels: int, blocks: tuple[int, ...], lead: int = 0
) -> dict[str, np.ndarray]:
    """Entries keyed ``name@w`` summed by name, each widened to ``levels`` grades: ``lead`` counts
    as they are, then for each of ``blocks`` a row of w counts (1) or a w x w matrix row by row (2)."""
    found: dict[str, np.ndarray] = {}
    for key, values in entries.items():
        name, width = _unkeyed(key)
        row = np.asarray(values, dtype=np.int64)
        parts, at = [row[:lead]], lead
        for shape in blocks:
            block = np.zeros((levels,) * shape, dtype=np.int64)
            block[(slice(0, width),) * shape] = row[at : at + width**shape].reshape((width,) * shape)
            parts.append(block.ravel())
            at += width**shape
        wide = np.concatenate(parts)
        if name in found:
            found[name] += wide
        else:
            found[name] = wide
    return found


def refresh(given: MergeInput, fits: RelevanceCampaignReport, sums: RelevanceSums) -> RelevanceCampaignReport:
    """The campaign report of ``sums``: every point figure from the counts, the intervals'
    bounds, the reliabilities and the ranking's bootstrap from ``fits``."""
    campaign = given.campaign
    scale, threshold = scale_of(campaign.params), threshold_of(campaign.params)
    # the levels the kappas' weights step over: the scale, widened to any grade stored above it
    q = max([len(scale), *(_unkeyed(key)[1] for key in sums.moments)])
    grade_levels = np.arange(q, dtype=np.float64)
    evaluation = _evaluation(given, sums, threshold)
    return dataclasses.replace(
        fits,
        **_agreement(sums, fits, grade_levels, threshold),
        topics=sums.topics,
        scale=scale,
        threshold=threshold,
        evaluation=evaluation,
        runs=len(system_runs(given.runs)),
        # none without an evaluation, as the merge's (the fits' may hold one from grades since withdrawn)
        ranking=fits.ranking if evaluation is not None else None,
    )


def _fresh(interval: FigureCI | None, value: float, units: int, unit: str) -> FigureCI:
    """``interval``'s bounds (as of its fit) around the figure as it is now, over its units now;
    without one (a pair new since the fit), the figure alone."""
    if interval is None:
        return no_ci(value, units, unit)
    return dataclasses.replace(interval, value=value, units=units)


def _agreement(sums: RelevanceSums, fits: RelevanceAgreement, grade_levels: np.ndarray, threshold: int) -> dict:
    """The fields of :class:`RelevanceAgreement` from the sums (report.agreement_fields' figures)."""
    q = len(grade_levels)
    names = sorted(sums.assessors)
    moments = _widened(sums.moments, q, (1, 2), lead=1)
    empty = agreement_fields(Grades([], np.zeros(0, np.intp), [], [], np.zeros((0, 0))), scale=[""] * q, threshold=1)
    items_judged = int(sum(int(row[0]) for row in moments.values()))
    if not names:
        return {**empty, "items": sums.items, "items_judged": items_judged}
    column = {name: a for a, name in enumerate(names)}
    counts = _widened(sums.grades, q, (1,))
    assessors = []
    for name in names:
        _, judged, relevant, total, _ = sums.assessors[name]
        assessors.append(
            RelevanceAssessor(
                assessor=name,
                judged=judged,
                relevant=relevant,
                mean_grade=total / judged if judged else float("nan"),
                counts=counts[name].tolist() if name in counts else [0] * q,
            )
        )
    # the pairs sharing a document, in the order of the kappa matrices' rows and columns
    confusions = _widened(sums.pairs, q, (2,))
    keys = sorted(confusions, key=lambda key: tuple(column[n] for n in key.split(SEPARATOR)))
    tables = np.array([confusions[key] for key in keys], dtype=np.float64).reshape(len(keys), q * q)
    shared = tables.sum(axis=1).astype(np.int64)
    statistics = pair_statistics(grade_levels, threshold)
    figures = {name: np.asarray(statistic(tables), dtype=np.float64) for name, statistic in statistics.items()}
    both = np.outer(grade_levels >= threshold, grade_levels >= threshold).ravel()
    either = np.logical_or.outer(grade_levels >= threshold, grade_levels >= threshold).ravel()
    kappas = {
        weights: kappas_from_confusions(tables.reshape(len(keys), q, q), weights)
        for weights in (None, "linear", "quadratic")
    }
    before = {tuple(p.assessors): p for p in fits.pairs}
    pairs = []
    for p, key in enumerate(keys):
        first, second = key.split(SEPARATOR)
        n = int(shared[p])
        old = before.get((first, second))
        topics, overlap_sum = sums.overlaps.get(key, (0, 0.0))
        topics = int(topics)
        overlap = overlap_sum / topics if topics else float("nan")

        def figure(name: str, p=p, n=n, old=old) -> FigureCI:
            return _fresh(getattr(old, f"{name}_ci" if name != "ac2" else name, None), float(figures[name][p]), n, UNIT)

        pairs.append(
            RelevancePair(
                assessors=(first, second),
                n=n,
                kappa=float(kappas[None][p]),
                linear=float(kappas["linear"][p]),
                quadratic=float(kappas["quadratic"][p]),
                overlap=overlap,
                overlap_pooled=float(figures["overlap_pooled"][p]),
                intersection=int(tables[p] @ both),
                union=int(tables[p] @ either),
                kappa_ci=figure("kappa"),
                linear_ci=figure("linear"),
                quadratic_ci=figure("quadratic"),
                overlap_ci=_fresh(None if old is None else old.overlap_ci, overlap, topics, TOPICS),
                overlap_pooled_ci=figure("overlap_pooled"),
                ac2=figure("ac2"),
            )
        )
    # each assessor with themselves (1 unless they gave one grade only), the pairs sharing a document
    matrix = {weights: np.full((len(names), len(names)), np.nan) for weights in kappas}
    mine = np.zeros((len(names), q, q))
    graded = [a for a, name in enumerate(names) if sums.assessors[name][1]]
    for a in graded:
        np.fill_diagonal(mine[a], counts[names[a]])
    for weights, values in kappas.items():
        if keys:
            places = np.array([[column[n] for n in key.split(SEPARATOR)] for key in keys])
            matrix[weights][places[:, 0], places[:, 1]] = values
            matrix[weights][places[:, 1], places[:, 0]] = values
        matrix[weights][graded, graded] = kappas_from_confusions(mine[graded], weights)
    several = {m: row for m, row in moments.items() if int(m) >= 2}
    items = int(sum(int(row[0]) for row in several.values()))
    ordinal, interval = (_alpha(several, grade_levels, level) for level in ("ordinal", "interval"))
    every = sums.group.get(str(len(names)))
    topics, ratio_sum = (int(every[0]), every[1]) if every else (0, 0.0)
    all_of, any_of = sums.group_pooled.get(str(len(names)), (0, 0))
    group_mean = ratio_sum / topics if topics else float("nan")
    group_pooled = all_of / any_of if any_of else float("nan")
    return {
        "items": sums.items,
        "items_judged": items_judged,
        "names": names,
        "assessors": assessors,
        "pairs": pairs,
        "kappa_matrix": RelevanceKappaMatrix(
            unweighted=matrix[None].tolist(), linear=matrix["linear"].tolist(), quadratic=matrix["quadratic"].tolist()
        ),
        "alpha": RelevanceAlpha(
            ordinal=ordinal,
            interval=interval,
            items=items,
            coders=sum(1 for name in names if sums.assessors[name][4]),
            ordinal_ci=_fresh(fits.alpha.ordinal_ci, ordinal, items, UNIT) if items else empty["alpha"].ordinal_ci,
            interval_ci=_fresh(fits.alpha.interval_ci, interval, items, UNIT) if items else empty["alpha"].interval_ci,
        ),
        "group_overlap": RelevanceGroupOverlap(
            mean=group_mean,
            pooled=group_pooled,
            mean_ci=_fresh(fits.group_overlap.mean_ci, group_mean, topics, TOPICS),
            pooled_ci=_fresh(fits.group_overlap.pooled_ci, group_pooled, topics, TOPICS),
        ),
        "ac2": _fresh(fits.ac2, _ac2(moments, grade_levels), items_judged, UNIT) if items_judged else empty["ac2"],
        "ac2_weights": AC2_WEIGHTS,
    }


def _moments(moments: dict[str, np.ndarray], q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-m sums as arrays: m, the documents N (m), their grades T (m x q), products M (m x q x q)."""
    keys = sorted(moments, key=int)
    rows = np.array([moments[k] for k in keys], dtype=np.float64).reshape(len(keys), 1 + q + q * q)
    m = np.array([int(k) for k in keys], dtype=np.float64)
    return m, rows[:, 0], rows[:, 1 : 1 + q], rows[:, 1 + q :].reshape(len(keys), q, q)


def _alpha(several: dict[str, np.ndarray], grade_levels: np.ndarray, level: str) -> float:
    """Krippendorff's alpha (``level``: ordinal or interval) over the documents graded twice or
    more, from their per-m sums: the statistic of stats.uncertainty.krippendorff_alpha_units
    on its units' summed contributions (kinds/labels/sums.py ``_alpha``, the grades' values
    being their positions)."""
    if not several:
        return float("nan")
    m, _, t, products = _moments(several, len(grade_levels))
    # every grade once, so that the statistic knows them all (one unit, one grade each)
    units = krippendorff_alpha_units(grade_levels[:, np.newaxis], level=level)
    weight = 1.0 / (m - 1)
    if level == "ordinal":
        coincidences = products - t[:, :, np.newaxis] * np.eye(len(grade_levels))[np.newaxis]
        summed = np.einsum("m,mkl->kl", weight, coincidences).ravel()
    else:
        disagreement = 2 * m * (t @ np.square(grade_levels)) - 2 * np.einsum(
            "k,mkl,l->m", grade_levels, products, grade_levels
        )
        summed = np.concatenate([t.sum(axis=0), [np.dot(weight, disagreement)]])
    return float(units.statistic(summed))


def _ac2(moments: dict[str, np.ndarray], grade_levels: np.ndarray) -> float:
    """Gwet's AC2 of every assessor at once over the graded documents (stats.gwet.gwet_units'
    statistic of the per-document sums: agreement of those graded twice or more, their count,
    the grades' shares of each document, the documents)."""
    m, n, t, products = _moments(moments, len(grade_levels))
    weights = agreement_weights(grade_levels, AC2_WEIGHTS)
    units = gwet_units(np.zeros((1, 1)), weights=AC2_WEIGHTS, categories=grade_levels)
    several = m >= 2
    agreement = (np.einsum("kl,mkl->m", weights, products) - t.sum(axis=1)) / np.where(several, m * (m - 1), 1.0)
    shares = (t / m[:, np.newaxis]).sum(axis=0)
    summed = [float(agreement[several].sum()), float(n[several].sum()), *shares, float(n.sum())]
    return float(units.statistic(np.asarray(summed, dtype=np.float64)))


def _evaluation(given: MergeInput, sums: RelevanceSums, threshold: int):
    """The systems' means under every qrels set from the exact sums of their topics' scores,
    and the stability of their rankings between the sets (partials.evaluation_summary)."""
    systems = list(system_runs(given.runs))
    sets = [name for name in vote_truths(sorted(sums.assessors)) if name in sums.evaluation]
    if not systems or not sets:
        return None
    cells = len(systems) * len(MEASURES)
    rows = np.array([sums.evaluation[name] for name in sets], dtype=np.int64).reshape(
        len(sets), 1 + cells * (1 + LIMBS)
    )
    counts = rows[:, 1 : 1 + cells]
    totals = exact_totals(rows[:, 1 + cells :].reshape(len(sets), cells, LIMBS))
    with np.errstate(divide="ignore", invalid="ignore"):
        means = (totals / counts).reshape(len(sets), len(systems), len(MEASURES))
    e = ireval.Evaluation(
        tuple(sets),
        tuple(systems),
        (),
        MEASURES,
        means,
        np.zeros((len(sets), len(systems), 0, len(MEASURES))),
        threshold,
    )
    return evaluation_summary(e, counts[:, 0].tolist())
