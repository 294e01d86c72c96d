"""Nugget pyramids: the campaign report merged from per-question partials (scoring/partials.py).

A question's :class:`NuggetsPartial` holds its nuggets, who labelled them and how,
and the runs' responses to it; :func:`merge` scatters every question's partial into
the campaign's arrays and computes from them the pyramids (Lin & Demner-Fushman,
section 4, Table 5), the runs' F (Figure 1), the stability of their ranking under
each labelling (section 6, Tables 3 and 4) and the agreement of the vital/okay
labels with their intervals. :func:`campaign_report` is that merge over fresh
partials; :func:`partial_disagreement` reads a question's disagreement from its
partial alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, combinations

import msgspec
import numpy as np

from annotate.models import Campaign, Topic
from kinds.nuggets import stats as m
from kinds.nuggets.report import (
    BETA,
    Arrays,
    NuggetsCampaignReport,
    NuggetsLabelAgreement,
    NuggetsLabelPair,
    NuggetsNugget,
    NuggetsPyramid,
    NuggetsRun,
    NuggetsStability,
    NuggetsTopicReport,
    NuggetsTTest,
    arrays,
    scores,
    topic_report,
    vital_disagreement,
)
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats import labelmodels as lm
from stats.agreement import category_counts, fleiss_kappa
from stats.gwet import gwet_units
from stats.intervals import (
    BINARY_FIGURES,
    IntervalSettings,
    RankingStability,
    binary_cells,
    binary_pair_statistics,
    chance_test,
    interval_settings,
    no_ci,
    ranking_stability,
)
from stats.uncertainty import (
    fleiss_kappa_interval,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
)


@dataclass(frozen=True)
class NuggetsPartial:
    """What the campaign report needs of one question (its judgments, the runs' data for it):
    its nuggets (id, text, original label), who labelled some of them and how (``labels``:
    assessors x nuggets, row-major, 1 vital, 0 okay, NaN not labelled), and each run that
    has a response or data here (``runs``, sorted) with its response length and the nuggets
    it matched (``matches``: runs x nuggets, row-major)."""

    external_id: str
    title: str
    target: str
    nugget_ids: list[str]
    texts: list[str]
    originals: list[str | None]
    assessors: list[str]
    labels: list[float]
    runs: list[str]
    lengths: list[float]
    matches: list[bool]


def topic_partial(input: ReportInput, topic: Topic, report: NuggetsTopicReport | None = None) -> NuggetsPartial:
    a = arrays([topic], input.judgments_of(topic), input.runs)
    nuggets = topic.data["nuggets"]
    mentioned = {response["run"] for response in topic.data.get("responses", [])} | {
        run.name for run in input.runs if topic.external_id in run.data.get("responses", {})
    }
    keep = [r for r, name in enumerate(a.runs) if name in mentioned]
    original = bool(nuggets) and all(nugget.get("label") is not None for nugget in nuggets)  # row 0, as in arrays()
    assessors = list(range(int(original), len(a.assessors)))
    return NuggetsPartial(
        external_id=topic.external_id,
        title=topic.title,
        target=topic.data["target"],
        nugget_ids=list(a.nugget_ids),
        texts=[nugget["text"] for nugget in nuggets],
        originals=[nugget.get("label") for nugget in nuggets],
        assessors=[a.assessors[i] for i in assessors],
        labels=a.labels[assessors].ravel().tolist(),
        runs=[a.runs[r] for r in keep],
        lengths=a.lengths[keep, 0].tolist(),
        matches=a.matches[keep].ravel().tolist(),
    )


def _segments(starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The positions ``starts[k] + 0 .. widths[k] - 1`` of every segment k, concatenated.

    >>> _segments(np.array([10, 0, 5]), np.array([2, 0, 3])).tolist()
    [10, 11, 5, 6, 7]
    """
    total = int(widths.sum())
    before = np.cumsum(widths) - widths
    return np.repeat(starts - before, widths) + np.arange(total)


def merged_arrays(input: MergeInput, partials: Sequence[NuggetsPartial]) -> Arrays:
    """The campaign's :class:`Arrays` (what :func:`arrays` builds from every judgment) from
    its questions' partials, scattered into place with numpy."""
    sizes = np.fromiter((len(p.nugget_ids) for p in partials), np.intp, len(partials))
    offsets = np.cumsum(sizes) - sizes
    n = int(sizes.sum())
    nugget_ids = list(chain.from_iterable(p.nugget_ids for p in partials))
    originals = list(chain.from_iterable(p.originals for p in partials))
    rows, names = [], []
    if originals and None not in originals:
        rows.append((np.array(originals, dtype=object) == "vital").astype(float))
        names.append("original")
    who = list(chain.from_iterable(p.assessors for p in partials))
    assessors = sorted(set(who))
    labels = np.full((len(assessors), n), np.nan)
    if who:
        index = {name: i for i, name in enumerate(assessors)}
        counts = np.fromiter((len(p.assessors) for p in partials), np.intp, len(partials))
        widths = np.repeat(sizes, counts)
        values = np.fromiter(chain.from_iterable(p.labels for p in partials), float, int(widths.sum()))
        row = np.fromiter((index[name] for name in who), np.intp, len(who))
        labels[np.repeat(row, widths), _segments(np.repeat(offsets, counts), widths)] = values
    rows.extend(labels)
    names.extend(assessors)
    which = list(chain.from_iterable(p.runs for p in partials))
    run_names = sorted({run.name for run in input.runs} | set(which))
    matches = np.zeros((len(run_names), n), bool)
    lengths = np.zeros((len(run_names), len(partials)))
    if which:
        index = {name: i for i, name in enumerate(run_names)}
        counts = np.fromiter((len(p.runs) for p in partials), np.intp, len(partials))
        run = np.fromiter((index[name] for name in which), np.intp, len(which))
        lengths[run, np.repeat(np.arange(len(partials)), counts)] = np.fromiter(
            chain.from_iterable(p.lengths for p in partials), float, len(which)
        )
        widths = np.repeat(sizes, counts)
        matched = np.fromiter(chain.from_iterable(p.matches for p in partials), bool, int(widths.sum()))
        matches[np.repeat(run, widths), _segments(np.repeat(offsets, counts), widths)] = matched
    return Arrays(
        list(input.topics),
        nugget_ids,
        np.repeat(np.arange(len(partials), dtype=np.intp), sizes),
        names,
        np.vstack(rows) if rows else np.empty((0, n)),
        run_names,
        matches,
        lengths,
    )


def merge(input: MergeInput, partials: Sequence[NuggetsPartial]) -> NuggetsCampaignReport:
    """The campaign report from every question's partial, in topic order."""
    settings = interval_settings(input.campaign.params)
    a = merged_arrays(input, partials)
    answered = a.answered()
    question_scores = scores(answered)
    run_means = {model: m.run_scores(f) for model, f in question_scores.items()}
    ranking = [
        NuggetsRun(run=run, scores={model: float(means[r]) for model, means in run_means.items()})
        for r, run in enumerate(a.runs)
    ]
    ranking.sort(key=lambda row: (-np.nan_to_num(row.scores.get("pyramid", np.nan), nan=-np.inf), row.run))
    labelled = {x: int((~np.isnan(row)).sum()) for x, row in zip(a.assessors, a.labels) if x != "original"}
    return NuggetsCampaignReport(
        questions=len(a.topics),
        nuggets=len(a.nugget_ids),
        assessors=labelled,
        scored_questions=len(answered.topics),
        complete_assessors=[x for x, c in zip(answered.assessors, answered.complete) if c and x != "original"],
        has_original=a.has_original,
        runs=ranking,
        stability=stability(answered) if len(a.runs) >= 2 else None,
        reliability=lm.binary_reliability(a.labels.T, a.assessors, lm.model_truth(a.labels.T, "dawid-skene", 2)),
        label_agreement=label_agreement(a, settings),
        ranking=run_ranking_stability(question_scores, settings),
    )


def topic_row(topic: Topic, partial: NuggetsPartial, report: NuggetsCampaignReport | None) -> NuggetsPyramid:
    """The question's pyramid (Table 5) from its partial: its row of the campaign report's
    per-question list (``Reports.topic_rows``). Its votes count the original labels when the
    question has them all and so does the campaign (``report.has_original``; without a
    report, the question's own); the weights are the votes over the question's most.

    >>> nan = float("nan")
    >>> p = NuggetsPartial("q1", "Q1", "Aspirin", ["n1", "n2"], ["a", "b"], ["vital", "okay"], ["x", "y"],
    ...     [1, 0, 1, nan], [], [], [])
    >>> [(n.id, n.votes, n.weight) for n in topic_row(Topic(external_id="q1"), p, None).nuggets]
    [('n1', 3, 1.0), ('n2', 0, 0.0)]
    """
    k = len(partial.nugget_ids)
    labels = np.array(partial.labels, dtype=np.float64).reshape(len(partial.assessors), k)
    votes = (labels == 1).sum(axis=0).astype(np.float64)
    if all(label is not None for label in partial.originals) and (report is None or report.has_original):
        votes += np.array([label == "vital" for label in partial.originals], dtype=np.float64)
    fields = [
        {"id": i, "text": t, "original": o, "votes": v, "weight": w}
        for i, t, o, v, w in zip(
            partial.nugget_ids,
            partial.texts,
            partial.originals,
            votes.astype(np.int64).tolist(),
            m.question_weights(votes).tolist(),
        )
    ]
    try:
        rows = msgspec.convert(fields, list[NuggetsNugget])
    except msgspec.ValidationError:
        # Topic data written around its checks (an original label neither vital nor okay): the
        # rows as given, as pyramid_rows builds them
        rows = [NuggetsNugget(**row) for row in fields]
    return NuggetsPyramid(topic=topic.external_id, title=partial.title, target=partial.target, nuggets=rows)


def campaign_report(input: ReportInput) -> NuggetsCampaignReport:
    """The campaign report from scratch: the merge of every question's fresh partial."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


#: The units of the label agreement figures, and of the ranking's stability.
UNIT, QUESTIONS = "nuggets", "questions"


def label_agreement(a: Arrays, settings: IntervalSettings | None = None) -> NuggetsLabelAgreement:
    """The vital/okay labels' agreement with intervals (see :class:`NuggetsLabelAgreement`)."""
    settings = settings or IntervalSettings()
    labels = a.labels  # labellings x nuggets: 1 vital, 0 okay, NaN not labelled
    judged = ~np.isnan(labels)
    found, cells = [], []
    for i, j in combinations(range(len(a.assessors)), 2):
        shared = judged[i] & judged[j]
        if shared.any():
            found.append(((a.assessors[i], a.assessors[j]), int(shared.sum())))
            cells.append(binary_cells(labels[i, shared] == 1, labels[j, shared] == 1))
    # pairs sharing GROUPED_FROM nuggets or more: drawn as counts of their table's cells
    intervals = settings.pair_intervals_at_scale(cells, 4, binary_pair_statistics(), UNIT)
    pairs = [
        NuggetsLabelPair(labellings=names, n=n, **{name: ci[name] for name in (*BINARY_FIGURES, "ac1")})
        for (names, n), ci in zip(found, intervals)
    ]
    none = no_ci(float("nan"), 0, UNIT)
    raters = judged.sum(axis=0)
    fleiss = general = none
    test = chance_test(fleiss_kappa_test(np.zeros((0, 2))), UNIT)
    fleiss_items = fleiss_raters = 0
    if (raters >= 2).any():
        counts = np.bincount(raters[raters >= 2])
        fleiss_raters = int(len(counts) - 1 - np.argmax(counts[::-1]))  # ties: the larger count
        table = category_counts(labels[:, raters == fleiss_raters].T, categories=[0.0, 1.0])
        fleiss_items = int((raters == fleiss_raters).sum())
        if np.isfinite(fleiss_kappa(table)):
            fleiss = settings.interval_at_scale(fleiss_kappa_units(table), UNIT)
        else:
            fleiss = no_ci(float("nan"), fleiss_items, UNIT)
        test = chance_test(fleiss_kappa_test(table), UNIT)
        general = settings.analytic(fleiss_kappa_interval(table), UNIT)
    pairable, rated = raters >= 2, raters >= 1
    return NuggetsLabelAgreement(
        labellings=list(a.assessors),
        pairs=pairs,
        fleiss=fleiss,
        fleiss_chance_test=test,
        fleiss_analytic_general=general,
        fleiss_items=fleiss_items,
        fleiss_raters=fleiss_raters,
        alpha=settings.interval_at_scale(krippendorff_alpha_units(labels[:, pairable], level="nominal"), UNIT)
        if pairable.any()
        else none,
        ac1=settings.interval_at_scale(gwet_units(labels[:, rated].T, categories=[0.0, 1.0]), UNIT)
        if rated.any()
        else none,
    )


def run_ranking_stability(
    question_scores: dict[str, np.ndarray], settings: IntervalSettings
) -> RankingStability | None:
    """Kendall's tau between the runs' ranking by mean pyramid F and the rankings on bootstrap
    resamples of the scored questions (a question where F is undefined is left out, as in the
    mean); None without two runs."""
    pyramid_f = question_scores.get("pyramid")
    if pyramid_f is None or len(pyramid_f) < 2:
        return None
    return ranking_stability(
        pyramid_f, measure="pyramid F (β = 3)", unit=QUESTIONS, resamples=settings.resamples, seed=settings.seed
    )


def stability(a: Arrays) -> NuggetsStability | None:
    """Tables 3 and 4 over the original labels and the complete assessors."""
    usable = [i for i, c in enumerate(a.complete) if c]
    if len(a.runs) < 2 or len(usable) < 2 or a.assessors[0] != "original" or usable[0] != 0:
        return None
    agreement = m.assessor_agreement(
        a.labels[usable].astype(bool),
        a.matches,
        a.lengths,
        question_index=a.question_index,
        n_questions=len(a.topics),
        original=0,
        beta=BETA,
    )
    names = [a.assessors[i] for i in usable]
    return NuggetsStability(
        assessors=names,
        tau_original=agreement.tau_original.tolist(),
        tau_pyramid=agreement.tau_pyramid.tolist(),
        mean_tau_original=agreement.mean_tau_original,
        mean_tau_pyramid=agreement.mean_tau_pyramid,
        t_test=NuggetsTTest(**agreement.t_test._asdict()),
    )


def partial_disagreement(partial: NuggetsPartial, campaign: Campaign | None = None) -> Disagreement | None:
    """:func:`topic_disagreement` from the question's partial (its labels), without its report.

    >>> nan = float("nan")
    >>> found = partial_disagreement(NuggetsPartial("q", "", "", ["n1", "n2", "n3"], ["", "", ""],
    ...     ["vital", "okay", "okay"], ["a", "b"], [1, 0, nan, 1, 1, nan], [], [], []))
    >>> round(found.value, 3), found.reason
    (0.306, '1 of 3 nuggets split; most: n2 (2 okay / 1 vital)')
    """
    labels = np.array(partial.labels, dtype=np.float64).reshape(len(partial.assessors), len(partial.nugget_ids))
    votes = np.nansum(labels, axis=0) if len(labels) else np.zeros(len(partial.nugget_ids))
    if partial.originals and all(label is not None for label in partial.originals):
        votes = votes + np.array([label == "vital" for label in partial.originals], float)  # arrays()' row 0
    return vital_disagreement(
        partial.nugget_ids,
        votes.astype(np.int64).tolist(),
        partial.originals,
        sum(name != "original" for name in partial.assessors),
    )
