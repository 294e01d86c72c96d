"""The nuggets campaign report's running sums (scoring/sums.py): every figure made from counts.

A question's contribution holds, as integers: its nuggets (and those without an original
label: the campaign has original labels when none lacks one), whether some run answered it
and its nuggets if so; per assessor the nuggets labelled (in the answered questions too:
an assessor who labelled every nugget of those is complete); for each nugget the number of
assessors who said vital and okay, with its original label, counted by kind of nugget (per
nugget the labels' category counts are all that Fleiss' kappa, Krippendorff's nominal
alpha and Gwet's AC1 read, so these counts make them exactly); per pair of assessors, and per assessor with the original labels, their
2x2 table over the nuggets both labelled. The runs' F (Lin & Demner-Fushman, Figure 1)
is a mean over the answered questions where the model has a vital nugget (``run_scores``;
a run with no response to a question scores 0 there): per model (the pyramid with and
without the original labels' votes, the original labels, each assessor who labelled every
nugget of the question) the questions where it is defined, and per run and model the sum
of the run's F over the questions it responded to, with their count. Each question's
pyramid (Table 5) is in neither the sums nor the report: it is made from the question's
partial when a page reads it (``Reports.topic_rows``, kinds/nuggets/partials.py ``topic_row``).

:func:`refresh` makes the report from these sums; from ``fits`` (the last full merge,
kinds/nuggets/partials.py ``merge``) it takes what needs every nugget or question at once:
the bootstrap intervals' bounds and Gwet's analytic interval's for Fleiss' kappa (around
the figures as they are now), the chance test of Fleiss' kappa, the Dawid-Skene
reliabilities, the ranking's bootstrap stability and the stability of Tables 3 and 4,
whose pyramid is built from the complete assessors alone (which assessors are complete
moves with every submission, so that pyramid's F would need every question's labels again).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from annotate.models import Campaign, Topic
from kinds.nuggets import stats as m
from kinds.nuggets.partials import UNIT, NuggetsPartial
from kinds.nuggets.report import (
    BETA,
    NuggetsCampaignReport,
    NuggetsLabelAgreement,
    NuggetsLabelPair,
    NuggetsRun,
)
from scoring.partials import MergeInput
from scoring.sums import around
from stats.gwet import gwet_units
from stats.intervals import (
    BINARY_FIGURES,
    FigureCI,
    binary_pair_statistics,
    chance_test,
    no_ci,
)
from stats.uncertainty import fleiss_kappa_test, fleiss_kappa_units, krippendorff_alpha_units

#: Between the two names of a pair's key, and between a run and its model (a name never holds it:
#: names are printable).
SEPARATOR = "\x1f"
#: The models a run's F is kept under: the pyramid of the assessors' votes, of theirs and the
#: original labels', the original labels; an assessor's labels are ``ASSESSOR`` + their name.
PYRAMID, PYRAMID_ORIGINAL, ORIGINAL, ASSESSOR = "pyramid", "pyramid+original", "original", "assessor:"
#: A nugget's original label, as its key in ``NuggetsSums.nuggets_by_votes`` spells it.
NO_LABEL, OKAY, VITAL = 0, 1, 2


@dataclass(frozen=True)
class NuggetsSums:
    """Counts of a question, or summed over the campaign's questions (every field adds)."""

    questions: int = 0
    nuggets: int = 0
    #: nuggets without an original label
    unlabelled: int = 0
    #: questions some run answered (a response with a length, or a match), and their nuggets
    answered: int = 0
    answered_nuggets: int = 0
    #: assessor -> [questions labelled in, nuggets labelled, nuggets labelled in answered questions]
    assessors: dict[str, list[int]] = field(default_factory=dict)
    #: "vital,okay,original" (the assessors' vital and okay labels of a nugget, its original label:
    #: NO_LABEL, OKAY or VITAL) -> [nuggets so labelled]
    nuggets_by_votes: dict[str, list[int]] = field(default_factory=dict)
    #: "first\x1fsecond" (sorted) -> [both vital, first only, second only, neither]
    pairs: dict[str, list[int]] = field(default_factory=dict)
    #: assessor -> the 2x2 table of the original labels (first) and theirs, in questions whose
    #: nuggets all have an original label
    original_pairs: dict[str, list[int]] = field(default_factory=dict)
    #: run -> [questions whose data or the run's mention it]
    runs: dict[str, list[int]] = field(default_factory=dict)
    #: model -> [answered questions where it has a vital nugget (F defined)]
    defined: dict[str, list[int]] = field(default_factory=dict)
    #: "run\x1fmodel" -> [questions the run responded to where the model is defined, their F's sum]
    scores: dict[str, list[float]] = field(default_factory=dict)


def _code(original: str | None) -> int:
    return NO_LABEL if original is None else VITAL if original == "vital" else OKAY


def contribution(campaign: Campaign | None, topic: Topic, partial: NuggetsPartial) -> NuggetsSums:
    """One question's share of the sums.

    >>> nan = float("nan")
    >>> p = NuggetsPartial("q1", "Q1", "Aspirin", ["n1", "n2"], ["a", "b"], ["vital", "okay"], ["x", "y"],
    ...     [1, 0, 1, nan], ["s"], [40.0], [True, False])
    >>> sums = contribution(None, Topic(pk=7, external_id="q1", position=0), p)
    >>> sums.nuggets_by_votes, sums.pairs, sums.original_pairs
    ({'2,0,2': [1], '0,1,1': [1]}, {'x\\x1fy': [1, 0, 0, 0]}, {'x': [1, 0, 0, 1], 'y': [1, 0, 0, 0]})
    >>> sums.defined, sums.scores["s\\x1fpyramid"]
    ({'pyramid': [1], 'pyramid+original': [1], 'original': [1], 'assessor:x': [1]}, [1, 1.0])
    """
    k = len(partial.nugget_ids)
    names = list(partial.assessors)
    labels = np.array(partial.labels, dtype=np.float64).reshape(len(names), k)
    judged = ~np.isnan(labels)
    vital = (judged & (labels == 1)).astype(np.float64)
    okay = judged - vital
    codes = [_code(label) for label in partial.originals]
    # every nugget of the question has an original label (a question of none: vacuously)
    labelled = NO_LABEL not in codes
    original = np.array([code == VITAL for code in codes], dtype=np.float64)
    lengths = np.array(partial.lengths, dtype=np.float64)
    matches = np.array(partial.matches, dtype=bool).reshape(len(partial.runs), k)
    answered = bool((lengths > 0).any() or matches.any())

    votes = vital.sum(axis=0)
    by_votes: dict[str, list[int]] = {}
    for v, o, c in zip(votes.astype(np.int64).tolist(), okay.sum(axis=0).astype(np.int64).tolist(), codes):
        key = f"{v},{o},{c}"
        by_votes[key] = [by_votes.get(key, [0])[0] + 1]

    counted = judged.sum(axis=1).tolist()
    assessors = {name: [1, n, n if answered else 0] for name, n in zip(names, counted)}
    # every pair's 2x2 table at once (both vital, first only, second only, neither)
    tables = np.stack([vital @ vital.T, vital @ okay.T, okay @ vital.T, okay @ okay.T], axis=-1)
    cells = tables.astype(np.int64).tolist()
    order = sorted(range(len(names)), key=names.__getitem__)
    pairs = {f"{names[i]}{SEPARATOR}{names[j]}": cells[i][j] for i, j in combinations(order, 2) if any(cells[i][j])}
    original_pairs = {}
    if labelled and k:
        first = np.stack([vital @ original, okay @ original, vital @ (1 - original), okay @ (1 - original)], axis=-1)
        original_pairs = {name: table for name, table in zip(names, first.astype(np.int64).tolist()) if any(table)}

    # the pyramid of the assessors' votes, and of theirs and the original labels'
    pyramids = m.question_weights(np.vstack([votes, votes + original]))
    defined: dict[str, list[int]] = {}
    scores: dict[str, list[float]] = {}
    if answered and k:
        models = {PYRAMID: pyramids[0]}
        if labelled:
            models[PYRAMID_ORIGINAL] = pyramids[1]
            models[ORIGINAL] = original
        for a, (name, every) in enumerate(zip(names, judged.all(axis=1).tolist())):
            if every:
                models[ASSESSOR + name] = labels[a]
        weights = np.vstack(list(models.values()))
        f = m.question_f(weights, matches, lengths, beta=BETA).tolist()
        for model, some, row in zip(models, (weights > 0).any(axis=1).tolist(), f):
            if not some:  # no vital nugget: F undefined, left out of the mean
                continue
            defined[model] = [1]
            for run, value in zip(partial.runs, row):
                scores[f"{run}{SEPARATOR}{model}"] = [1, value]

    return NuggetsSums(
        questions=1,
        nuggets=k,
        unlabelled=codes.count(NO_LABEL),
        answered=int(answered),
        answered_nuggets=k if answered else 0,
        assessors=assessors,
        nuggets_by_votes=by_votes,
        pairs=pairs,
        original_pairs=original_pairs,
        runs={run: [1] for run in partial.runs},
        defined=defined,
        scores=scores,
    )


def refresh(given: MergeInput, fits: NuggetsCampaignReport, sums: NuggetsSums) -> NuggetsCampaignReport:
    """The campaign report of ``sums``; from ``fits`` the intervals' bounds, the chance test,
    the reliabilities, the ranking's stability and Tables 3 and 4."""
    has_original = sums.nuggets > 0 and sums.unlabelled == 0
    names = sorted(sums.assessors)
    complete = [name for name in names if sums.assessors[name][2] == sums.answered_nuggets]
    return dataclasses.replace(
        fits,
        questions=sums.questions,
        nuggets=sums.nuggets,
        assessors={name: sums.assessors[name][1] for name in names},
        scored_questions=sums.answered,
        complete_assessors=complete,
        has_original=has_original,
        runs=_runs(given, sums, has_original, complete),
        label_agreement=_label_agreement(sums, names, has_original, fits.label_agreement),
    )


def _runs(given: MergeInput, sums: NuggetsSums, has_original: bool, complete: list[str]) -> list[NuggetsRun]:
    """Every run's mean F under each model (``kinds.nuggets.report.scores``' models, in its
    order), ranked by the pyramid's as the merge ranks them."""
    runs = sorted({run.name for run in given.runs} | set(sums.runs))
    models: dict[str, str] = {}
    if runs and sums.answered:
        models["pyramid"] = PYRAMID_ORIGINAL if has_original else PYRAMID
        if has_original:
            models["original"] = ORIGINAL
        for name in complete:
            models[name] = ASSESSOR + name

    def mean(run: str, model: str) -> float:
        questions = sums.defined.get(model, [0])[0]
        summed = sums.scores.get(f"{run}{SEPARATOR}{model}", [0, 0.0])[1]
        return float(summed / questions) if questions > 0 else float("nan")

    ranking = [NuggetsRun(run=run, scores={name: mean(run, model) for name, model in models.items()}) for run in runs]
    ranking.sort(key=lambda row: (-np.nan_to_num(row.scores.get("pyramid", np.nan), nan=-np.inf), row.run))
    return ranking


def _label_agreement(
    sums: NuggetsSums, names: list[str], has_original: bool, fits: NuggetsLabelAgreement
) -> NuggetsLabelAgreement:
    """Every labelling's agreement (kinds/nuggets/partials.py ``label_agreement``) from the
    counts: per kind of nugget (its labels, vital and okay) the coefficients' per-nugget
    statistics once, times the nuggets of that kind."""
    labellings = (["original"] if has_original else []) + names
    before = {tuple(p.labellings): p for p in fits.pairs}
    column = {name: k for k, name in enumerate(names)}
    statistics = binary_pair_statistics()
    tables = [(("original", name), sums.original_pairs[name]) for name in names if has_original] + [
        (tuple(key.split(SEPARATOR)), cells)
        for key, cells in sorted(
            sums.pairs.items(), key=lambda item: tuple(column[n] for n in item[0].split(SEPARATOR))
        )
    ]
    pairs = []
    for labelled, cells in tables:
        n = int(sum(cells))
        summed = np.array(cells, dtype=np.float64)
        old = before.get(labelled)
        figures = {}
        for name in (*BINARY_FIGURES, "ac1"):
            value = float(statistics[name](summed))
            figures[name] = no_ci(value, n, UNIT) if old is None else around(getattr(old, name), value, n)
        pairs.append(NuggetsLabelPair(labellings=labelled, n=n, **figures))

    # labels per nugget: (labellings, vital) -> nuggets
    kinds: dict[tuple[int, int], int] = {}
    for key, (count,) in sums.nuggets_by_votes.items():
        v, o, c = (int(x) for x in key.split(","))
        if has_original:
            v, o = v + (c == VITAL), o + (c == OKAY)
        if v + o:
            kinds[(v + o, v)] = kinds.get((v + o, v), 0) + count
    none = no_ci(float("nan"), 0, UNIT)
    fleiss = general = none
    test = chance_test(fleiss_kappa_test(np.zeros((0, 2))), UNIT)  # no nugget labelled twice: undefined
    fleiss_items = fleiss_raters = 0
    per_raters: dict[int, int] = {}
    for (raters, _), count in kinds.items():
        if raters >= 2:
            per_raters[raters] = per_raters.get(raters, 0) + count
    if per_raters:
        fleiss_raters = max(per_raters, key=lambda r: (per_raters[r], r))  # ties: the larger
        fleiss_items = per_raters[fleiss_raters]
        votes = sorted(v for raters, v in kinds if raters == fleiss_raters)
        # one nugget of each kind (okay, vital), its statistics times the nuggets of that kind
        units = fleiss_kappa_units(np.array([[fleiss_raters - v, v] for v in votes], dtype=np.int64))
        counts = np.array([kinds[(fleiss_raters, v)] for v in votes], dtype=np.float64)
        kappa = float(units.statistic(counts @ units.per_unit))
        fleiss = around(fits.fleiss, kappa, fleiss_items) if np.isfinite(kappa) else no_ci(kappa, fleiss_items, UNIT)
        # the test's standard error and the analytic interval's read every nugget's terms: the fits'
        test = fits.fleiss_chance_test
        general = around(fits.fleiss_analytic_general, kappa, fleiss_items)
    pairable = {key: count for key, count in kinds.items() if key[0] >= 2}
    return NuggetsLabelAgreement(
        labellings=labellings,
        pairs=pairs,
        fleiss=fleiss,
        fleiss_chance_test=test,
        fleiss_analytic_general=general,
        fleiss_items=fleiss_items,
        fleiss_raters=fleiss_raters,
        alpha=_alpha(pairable, fits.alpha) if pairable else none,
        ac1=_ac1(kinds, fits.ac1) if kinds else none,
    )


def _nuggets(kinds: Mapping[tuple[int, int], int]) -> tuple[np.ndarray, np.ndarray]:
    """One nugget of each kind as labels (labellings x kinds: its vital labels, then its okay
    ones, then none; which labelling gave which does not matter to these coefficients), and
    how many nuggets are of that kind."""
    keys = sorted(kinds)
    width = max(raters for raters, _ in keys)
    labels = np.full((width, len(keys)), np.nan)
    for column, (raters, v) in enumerate(keys):
        labels[:v, column] = 1.0
        labels[v:raters, column] = 0.0
    return labels, np.array([kinds[key] for key in keys], dtype=np.float64)


def _alpha(pairable: Mapping[tuple[int, int], int], fits: FigureCI) -> FigureCI:
    """Krippendorff's nominal alpha over the nuggets labelled twice or more."""
    labels, counts = _nuggets(pairable)
    units = krippendorff_alpha_units(labels, level="nominal")
    return around(fits, float(units.statistic(counts @ units.per_unit)), int(counts.sum()))


def _ac1(kinds: Mapping[tuple[int, int], int], fits: FigureCI) -> FigureCI:
    """Gwet's AC1 over every labelled nugget."""
    labels, counts = _nuggets(kinds)
    units = gwet_units(labels.T, categories=[0.0, 1.0])
    return around(fits, float(units.statistic(counts @ units.per_unit)), int(counts.sum()))
