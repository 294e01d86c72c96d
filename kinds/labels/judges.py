"""Labels: each model judge against the people (the campaign report's model-judge section).

A model judge is a member marked ``Membership.model_judge`` (an LLM used as a rater;
annotate/judges.py). Its labels reach the campaign report through every topic's partial
(``LabelsPartial.judges``, ``judge_codes``), kept apart from the people's, and the merge
(kinds/labels/partials.py) calls :func:`model_judges` with both. The people are the
assessors who are not model judges, whether or not the campaign counts the model judges
with the people's figures (``model_judges_count``): a judge is never compared with itself.
Per model judge:

- its percent agreement, Cohen's (1960) kappa and weighted kappa (Cohen 1968, the scale's
  weights) with each person and with the people's consensus (the label most people gave an
  item, none on a tie, over the items two or more people labelled: kinds.labels.stats.consensus),
  on the items both labelled, each with its 95% bootstrap interval over those items (as the
  report's pairs of assessors, kinds.labels.report.agreement_of);
- where its mean kappa with the people falls among the people's own pairwise kappas (their
  lowest, median and highest), over the pairs sharing at least ``min_units`` items (the
  minimum below which no interval is drawn, stats.intervals.IntervalSettings);
- the alternative annotator test (Calderon, Reichart & Dror 2025, stats.alttest.alt_test):
  leave one person out at a time, compare the judge's and the left-out person's alignment
  with the rest (ACC on a nominal or ordinal scale, -RMSE on the numbers of a numeric one),
  the cost-benefit margin epsilon the campaign's ``alt_test_epsilon`` (default 0.2, the
  paper's for experts), paired one-sided t-tests, Benjamini-Yekutieli over the people at
  q = 0.05, the winning rate omega and its verdict (passes when omega >= 0.5), and the
  average advantage probability rho with its bootstrap interval over the items. A person
  is tested on at least 30 items (the paper's minimum for the t-test); with nobody tested
  the verdict is "too few items".

With two or more model judges, :func:`stats.alttest.compare_judges` ranks them by rho on
the items every one of them labelled (section 3.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from concord.typed import Figure
from kinds.base import ALT_TEST_EPSILON
from kinds.labels.data import Scale
from kinds.labels.stats import consensus, pair_cells, pair_statistics
from stats import alttest
from stats.agreement import kappas_from_confusions, sparse_pair_confusions
from stats.intervals import FigureCI, IntervalSettings, no_ci
from stats.ratings import SparseRatings

__all__ = [
    "CONSENSUS",
    "LISTED_PEOPLE",
    "LabelsAltPerson",
    "LabelsAltTest",
    "LabelsJudgeComparison",
    "LabelsJudgePair",
    "LabelsJudgeRank",
    "LabelsModelJudge",
    "LabelsPeopleRange",
    "alt_test_epsilon",
    "model_judges",
]

#: Units of every figure: the (topic, item) pairs (kinds.labels.report.UNIT).
UNIT = "items"
#: The name the people's consensus goes by among a judge's pairs.
CONSENSUS = "people's majority"
#: The most people a judge's agreement and alternative annotator test list (those sharing the
#: most items with it); its mean kappa, omega and rho count every person.
LISTED_PEOPLE = 500
#: The verdicts of the alternative annotator test (:attr:`LabelsAltTest.state`).
PASSES, FAILS, TOO_FEW = "passes", "fails", "too few items"
#: Where a judge's mean kappa falls against the people's own pairwise range.
BELOW, WITHIN, ABOVE, UNKNOWN = "below", "within", "above", "unknown"


@dataclass(frozen=True)
class LabelsJudgePair:
    """The model judge and one person (or the people's consensus, :data:`CONSENSUS`) on the
    ``n`` items both labelled: percent agreement, Cohen's (1960) kappa and weighted kappa
    (Cohen 1968, the scale's weights), each with its 95% bootstrap interval over those items
    (none under the minimum of items)."""

    name: str
    n: int
    observed: FigureCI
    kappa: FigureCI
    weighted: FigureCI


@dataclass(frozen=True)
class LabelsPeopleRange:
    """The people's own pairwise Cohen's kappa over the ``pairs`` pairs of people sharing at
    least ``min_items`` items: the lowest, the median and the highest (undefined without any)."""

    pairs: int
    min_items: int
    low: Figure
    median: Figure
    high: Figure


@dataclass(frozen=True)
class LabelsAltPerson:
    """The alternative annotator test's comparison with one left-out person (section 3.2-3.3):
    ``instances`` the items they labelled that the judge and another person labelled too;
    ``rho_judge`` and ``rho_person`` the advantage probabilities (the share of those items on
    which the judge, resp. the person, agrees with the other people at least as well as the
    other does); the one-sided paired t statistic and p-value of H0: rho_judge <= rho_person -
    epsilon, the Benjamini-Yekutieli adjusted p-value; ``tested``: at least ``min_instances``
    items; ``wins``: H0 rejected after the correction (the judge may stand in for this person)."""

    person: str
    instances: int
    rho_judge: Figure
    rho_person: Figure
    t: Figure
    p_value: Figure
    p_adjusted: Figure
    tested: bool
    wins: bool


@dataclass(frozen=True)
class LabelsAltTest:
    """The alternative annotator test of one model judge (Calderon, Reichart & Dror 2025).

    ``state``: ``passes`` (the winning rate omega, the share of the ``tested`` people the
    judge wins against, is at least ``threshold``), ``fails``, or ``too few items`` (no person
    has ``min_instances`` items shared with the judge and another person: nothing is tested).
    ``average_advantage``: rho, the mean over the tested people of the judge's advantage
    probability (section 3.4: the measure to compare judges by), with its 95% bootstrap
    interval over the items. ``alignment``: ``accuracy`` (ACC) or ``neg_rmse`` (-RMSE);
    ``persons`` the people with an instance, the :data:`LISTED_PEOPLE` with the most,
    ``person_count`` all of them."""

    state: str
    winning_rate: Figure
    passes: bool
    average_advantage: FigureCI
    tested: int
    wins: int
    epsilon: float
    q: float
    threshold: float
    min_instances: int
    alignment: str
    persons: list[LabelsAltPerson]
    person_count: int


@dataclass(frozen=True)
class LabelsModelJudge:
    """One model judge against the people: the items it ``labelled``; its agreement with each
    person (``people``: the :data:`LISTED_PEOPLE` sharing the most items with it, of
    ``people_count`` sharing any) and with the people's ``consensus``; ``mean_kappa``, its mean
    Cohen's kappa with the people it shares at least ``people_range.min_items`` items with, and
    where that falls against the people's own pairwise range (``position``: below, within,
    above, or unknown without any such pair); and its alternative annotator test."""

    judge: str
    labelled: int
    people: list[LabelsJudgePair]
    people_count: int
    consensus: LabelsJudgePair
    mean_kappa: Figure
    people_range: LabelsPeopleRange
    position: str
    alt_test: LabelsAltTest


@dataclass(frozen=True)
class LabelsJudgeRank:
    """One model judge in :class:`LabelsJudgeComparison`: its rho on the common items, and its
    winning rate and verdict there."""

    judge: str
    average_advantage: Figure
    winning_rate: Figure
    passes: bool


@dataclass(frozen=True)
class LabelsJudgeComparison:
    """Two or more model judges ranked by their average advantage probability rho on the
    ``items`` every one of them labelled (section 3.4: rho, not the winning rate, compares
    judges; :func:`stats.alttest.compare_judges`), the highest first."""

    items: int
    ranking: list[LabelsJudgeRank]


def alt_test_epsilon(params: Mapping[str, object] | None) -> float:
    """The campaign's cost-benefit margin (``alt_test_epsilon``), else the paper's default for experts.

    >>> alt_test_epsilon({"alt_test_epsilon": 0.1}), alt_test_epsilon(None)
    (0.1, 0.2)
    """
    value = (params or {}).get(ALT_TEST_EPSILON)
    return alttest.DEFAULT_EPSILON if value is None else float(value)


def model_judges(
    people: SparseRatings,
    people_names: Sequence[str],
    judges: np.ndarray,
    judge_names: Sequence[str],
    scale: Scale,
    weights: np.ndarray,
    settings: IntervalSettings,
    epsilon: float,
) -> tuple[list[LabelsModelJudge], LabelsJudgeComparison | None]:
    """Every model judge against the people.

    ``people``: the people's codes, items x people (``people_names``), held sparse;
    ``judges``: judges x items, each judge's code (NaN: none); codes are positions on
    ``scale``, ``weights`` its q x q agreement weights (the weighted kappas'). Returns one
    :class:`LabelsModelJudge` per judge (``judge_names``' order) and, with two or more
    judges, their :class:`LabelsJudgeComparison`.

    The alternative annotator test reads the codes: on a numeric scale the numbers are
    evenly spaced (``minimum + code * step``), so -RMSE on the codes is -RMSE on the numbers
    divided by the step, and every comparison of two alignments, all the test reads, is the
    same (and exact: integer codes give integer sums, stats.alttest)."""
    q = len(scale.values)
    statistics = pair_statistics(weights)
    people_range = _people_range(people, q, settings.min_units)
    majority = consensus(people.packed(), q) if people.n_items and people.n_raters else np.full(people.n_items, np.nan)
    majority[people.per_item < 2] = np.nan
    found = []
    for row, name in zip(judges, judge_names):
        pairs, people_count, mean_kappa = _with_people(row, people, people_names, q, statistics, settings)
        [with_majority] = _pairs([(CONSENSUS, row, majority)], q, statistics, settings)
        found.append(
            LabelsModelJudge(
                judge=name,
                labelled=int(np.count_nonzero(~np.isnan(row))),
                people=pairs,
                people_count=people_count,
                consensus=with_majority,
                mean_kappa=mean_kappa,
                people_range=people_range,
                position=_position(mean_kappa, people_range),
                alt_test=_alt_test(people, people_names, row, scale, settings, epsilon),
            )
        )
    comparison = None
    if len(judge_names) >= 2 and people.n_raters >= 2:
        compared = alttest.compare_judges(people, judges, level=scale.level, epsilon=epsilon)
        common = int(np.count_nonzero(~np.isnan(judges).any(axis=0)))
        comparison = LabelsJudgeComparison(
            items=common,
            ranking=[
                LabelsJudgeRank(
                    judge=judge_names[k],
                    average_advantage=compared.results[k].average_advantage,
                    winning_rate=compared.results[k].winning_rate,
                    passes=compared.results[k].passes,
                )
                for k in compared.ranking
            ],
        )
    return found, comparison


def _with_people(
    row: np.ndarray,
    people: SparseRatings,
    names: Sequence[str],
    q: int,
    statistics,
    settings: IntervalSettings,
) -> tuple[list[LabelsJudgePair], int, float]:
    """The judge's pairs with the people sharing an item (the :data:`LISTED_PEOPLE` sharing the
    most, with intervals), how many people share one, and its mean kappa with those sharing at
    least ``min_units`` items. Every person's confusion matrix comes from one pass over the ratings."""
    judged = ~np.isnan(row)
    mine = judged[people.items]
    person, theirs = people.raters[mine], people.values[mine].astype(np.int64)
    said = row[people.items[mine]].astype(np.int64)
    confusion = np.zeros((people.n_raters, q, q), np.int64)
    np.add.at(confusion, (person, said, theirs), 1)
    shared = confusion.sum(axis=(1, 2))
    kappas = kappas_from_confusions(confusion) if people.n_raters else np.zeros(0)
    enough = (shared >= settings.min_units) & np.isfinite(kappas)
    mean_kappa = float(kappas[enough].mean()) if enough.any() else float("nan")
    sharing = np.flatnonzero(shared > 0)
    listed = sharing[np.argsort(-shared[sharing], kind="stable")[:LISTED_PEOPLE]]
    listed.sort()
    chosen = []
    for k in listed.tolist():
        items, codes = people.rater(k)
        labels = np.full(people.n_items, np.nan)
        labels[items] = codes
        chosen.append((names[k], row, labels))
    return _pairs(chosen, q, statistics, settings), int(sharing.size), mean_kappa


def _pairs(
    pairs: Sequence[tuple[str, np.ndarray, np.ndarray]], q: int, statistics, settings: IntervalSettings
) -> list[LabelsJudgePair]:
    """Each (name, the judge's codes, the other's codes) pair's figures on the items both
    labelled, with the intervals the report's pairs of assessors get."""
    cells, sizes = [], []
    for _, first, second in pairs:
        both = ~np.isnan(first) & ~np.isnan(second)
        cells.append(pair_cells(first[both], second[both], q))
        sizes.append(int(both.sum()))
    intervals = settings.pair_intervals_at_scale(cells, q * q, statistics, UNIT) if cells else []
    return [
        LabelsJudgePair(name, n, found["observed"], found["kappa"], found["weighted"])
        for (name, _, _), n, found in zip(pairs, sizes, intervals)
    ]


def _people_range(people: SparseRatings, q: int, min_items: int) -> LabelsPeopleRange:
    """The people's pairwise Cohen's kappa over the pairs sharing at least ``min_items`` items."""
    nan = float("nan")
    if people.n_raters < 2:
        return LabelsPeopleRange(0, min_items, nan, nan, nan)
    every = sparse_pair_confusions(people, q)
    kappas = kappas_from_confusions(every.confusion) if len(every.confusion) else np.zeros(0)
    shared = every.confusion.sum(axis=(1, 2)) if len(every.confusion) else np.zeros(0)
    kept = kappas[(shared >= min_items) & np.isfinite(kappas)]
    if not kept.size:
        return LabelsPeopleRange(0, min_items, nan, nan, nan)
    return LabelsPeopleRange(int(kept.size), min_items, float(kept.min()), float(np.median(kept)), float(kept.max()))


def _position(kappa: float, people: LabelsPeopleRange) -> str:
    """Where a judge's mean kappa falls against the people's range."""
    if not (np.isfinite(kappa) and people.pairs):
        return UNKNOWN
    return BELOW if kappa < people.low else ABOVE if kappa > people.high else WITHIN


def _alt_test(
    ratings: SparseRatings,
    names: Sequence[str],
    judge: np.ndarray,
    scale: Scale,
    settings: IntervalSettings,
    epsilon: float,
) -> LabelsAltTest:
    """The alternative annotator test of one judge, as the report stores it."""
    if ratings.n_raters < 2:
        return _untested(epsilon, "accuracy" if scale.level in ("nominal", "ordinal") else "neg_rmse")
    result = alttest.alt_test(ratings, judge, level=scale.level, epsilon=epsilon)
    if result.tested:
        rho = settings.interval(alttest.advantage_units(result), UNIT)
    else:
        rho = no_ci(float("nan"), 0, UNIT)
    seen = [a for a in result.annotators if a.instances > 0]
    listed = sorted(seen, key=lambda a: (-a.instances, a.annotator))[:LISTED_PEOPLE]
    listed.sort(key=lambda a: a.annotator)
    state = TOO_FEW if not result.tested else PASSES if result.passes else FAILS
    return LabelsAltTest(
        state=state,
        winning_rate=result.winning_rate,
        passes=result.passes,
        average_advantage=rho,
        tested=result.tested,
        wins=sum(a.rejected for a in result.annotators),
        epsilon=result.epsilon,
        q=result.q,
        threshold=result.threshold,
        min_instances=result.min_instances,
        alignment=result.alignment,
        persons=[
            LabelsAltPerson(
                person=names[a.annotator],
                instances=a.instances,
                rho_judge=a.rho_judge,
                rho_person=a.rho_human,
                t=a.t,
                p_value=a.p_value,
                p_adjusted=a.p_adjusted,
                tested=a.tested,
                wins=a.rejected,
            )
            for a in listed
        ],
        person_count=len(seen),
    )


def _untested(epsilon: float, alignment: str) -> LabelsAltTest:
    """The test where fewer than two people labelled anything: nobody to leave out."""
    nan = float("nan")
    return LabelsAltTest(
        state=TOO_FEW,
        winning_rate=nan,
        passes=False,
        average_advantage=no_ci(nan, 0, UNIT),
        tested=0,
        wins=0,
        epsilon=float(epsilon),
        q=alttest.DEFAULT_Q,
        threshold=alttest.PASS_RATE,
        min_instances=alttest.MIN_INSTANCES,
        alignment=alignment,
        persons=[],
        person_count=0,
    )
