"""Nugget pyramids: weights, run scores under every model, ranking stability.

Lin & Demner-Fushman, "Will Pyramids Built of Nuggets Topple Over?"
(nugget-pyramids_lin-demner-fushman.txt): Figure 1 (nugget F), section 4
(pyramid weights and recall), section 6: Table 3 (Kendall's tau between run
rankings under the original labels and under each assessor's), Table 4 (the
pyramid against each assessor), Figures 2 and 3 (pyramids of 1..n assessors:
mean tau, zero-median questions), Table 2 (questions with one or two vital
nuggets) and Table 5 (a question's pyramid).

Assessor 0 is the "original" labelling when every nugget of every question
carries a ``label`` in the topic data (the first assessor's, as NIST's).
Run scores and the analyses that compare assessors use the questions some
run answered, and the assessors who labelled every nugget of those.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import chain, combinations
from typing import Any, Literal

import msgspec
import numpy as np

from annotate.models import Campaign, Run, Topic
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Float, Int, ParamsSchema
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.nuggets import stats as m
from kinds.nuggets.stats import response_length
from kinds.spec import Disagreement, Export, ExportFile, Headline
from scoring.csvfiles import neutralise, write_csv
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput
from stats import labelmodels as lm
from stats.agreement import category_counts, fleiss_kappa
from stats.crossing import crossing
from stats.gwet import gwet_units
from stats.intervals import (
    BINARY_FIGURES,
    ChanceTest,
    FigureCI,
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

BETA = 3.0
EXPORTS = {
    "tsv": Export("text/tab-separated-values", "txt"),
    "json": Export("application/json", "json"),
    "csv": Export("text/csv", "csv"),
}
EXPORT_HELP = (
    "answer-key: every question's nuggets with their vital votes, pyramid weight and original label (tsv: "
    "topic, nugget id, original label (none when there is none), votes, weight, text, like TREC nugget files; or json). scores: every run's F "
    "on every question under the original labels, each assessor's labels and the pyramid (csv or json). Label truth "
    "sets, one row per nugget with its vital votes out of the labellings and its provenance (source "
    "adjudicated/model/vote, the model's posterior of the label, who adjudicated when), csv or json: consensus "
    "(vital when at least half of the labellings, the original one included, say vital), dawid-skene / mace / "
    "wawa (the most probable label under a model of the labellers: Dawid & Skene 1979; Hovy et al. 2013; weighted "
    "majority), adjudicated (the question's adjudicated label where it has one, else the consensus; "
    "adjudicated:<truth> chooses another fallback)."
)


@dataclass
class Arrays:
    """A campaign's judgments as arrays over a flat nugget axis."""

    topics: list[Topic]
    nugget_ids: list[str]
    question_index: np.ndarray  # (N,)
    assessors: list[str]  # "original" first when present; complete or not
    labels: np.ndarray  # (A, N): 1 vital, 0 okay, NaN not labelled
    runs: list[str]
    matches: np.ndarray  # (R, N) bool
    lengths: np.ndarray  # (R, Q)

    @property
    def has_original(self) -> bool:
        """Whether the first labelling is the original labels of the topic data."""
        return bool(self.assessors) and self.assessors[0] == "original"

    @property
    def complete(self) -> np.ndarray:
        """Which assessors labelled every nugget."""
        return ~np.isnan(self.labels).any(axis=1)

    def answered(self) -> Arrays:
        """Only the questions some run answered: the ones run scores and
        rankings rest on (a question no run answered scores every run alike)."""
        matched = np.bincount(self.question_index, weights=self.matches.any(axis=0), minlength=len(self.topics)) > 0
        keep_q = np.flatnonzero((self.lengths > 0).any(axis=0) | matched)
        if len(keep_q) == len(self.topics):
            return self
        keep_n = np.isin(self.question_index, keep_q)
        renumber = np.full(len(self.topics), -1)
        renumber[keep_q] = np.arange(len(keep_q))
        return Arrays(
            [self.topics[q] for q in keep_q],
            [n for n, k in zip(self.nugget_ids, keep_n) if k],
            renumber[self.question_index[keep_n]],
            self.assessors,
            self.labels[:, keep_n],
            self.runs,
            self.matches[:, keep_n],
            self.lengths[:, keep_q],
        )

    @property
    def votes(self) -> np.ndarray:
        """Vital votes per nugget from every labelling, the original one
        included ("using all ten sets of judgments", section 6)."""
        return np.nansum(self.labels, axis=0) if len(self.labels) else np.zeros(len(self.nugget_ids))


def arrays(topics: Sequence[Topic], judgments: Sequence[JudgmentRow], runs: Sequence[Run]) -> Arrays:
    topics = list(topics)
    nugget_ids, question = [], []
    position: dict[tuple[int, str], int] = {}
    for q, topic in enumerate(topics):
        for nugget in topic.data["nuggets"]:
            position[(topic.pk, nugget["id"])] = len(nugget_ids)
            nugget_ids.append(nugget["id"])
            question.append(q)
    n = len(nugget_ids)
    rows, names = [], []
    originals = [nugget.get("label") for topic in topics for nugget in topic.data["nuggets"]]
    if originals and all(label is not None for label in originals):
        rows.append(np.array([label == "vital" for label in originals], float))
        names.append("original")
    by_assessor: dict[str, np.ndarray] = {}
    for row in judgments:
        labels = row.payload.get("labels") or {}
        if labels:
            target = by_assessor.setdefault(row.assessor, np.full(n, np.nan))
            for nugget, label in labels.items():
                target[position[(row.topic_id, nugget)]] = 1.0 if label == "vital" else 0.0
    for name in sorted(by_assessor):
        rows.append(by_assessor[name])
        names.append(name)
    run_names, matches, lengths = _runs(topics, judgments, runs, position)
    return Arrays(
        topics,
        nugget_ids,
        np.array(question, dtype=np.intp),
        names,
        np.vstack(rows) if rows else np.empty((0, n)),
        run_names,
        matches,
        lengths,
    )


def _runs(topics, judgments, runs, position) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each run's matches and lengths: from the run's data when it has them,
    else from the topic's responses and the match judgments (a nugget is in
    a response when at least half of those who judged the response say so)."""

    names = sorted({r.name for r in runs} | {resp["run"] for t in topics for resp in t.data.get("responses", [])})
    index = {name: i for i, name in enumerate(names)}
    matches = np.zeros((len(names), len(position)), bool)
    lengths = np.zeros((len(names), len(topics)))
    votes: dict[str, dict[str, int]] = {}
    judged: dict[str, int] = {}
    for row in judgments:
        for response, found in (row.payload.get("matches") or {}).items():
            judged[f"{row.topic_id}:{response}"] = judged.get(f"{row.topic_id}:{response}", 0) + 1
            for nugget in found:
                counts = votes.setdefault(f"{row.topic_id}:{response}", {})
                counts[nugget] = counts.get(nugget, 0) + 1
    for q, topic in enumerate(topics):
        for response in topic.data.get("responses", []):
            key = f"{topic.pk}:{response['id']}"
            r = index[response["run"]]
            lengths[r, q] = response_length(response["text"])
            for nugget, count in votes.get(key, {}).items():
                if 2 * count >= judged[key]:
                    matches[r, position[(topic.pk, nugget)]] = True
        for run in runs:
            given = run.data.get("responses", {}).get(topic.external_id)
            if given is None:
                continue
            r = index[run.name]
            lengths[r, q] = given["length"]
            if "matches" in given:  # the run's own (e.g. NIST's) matches win over judgments
                own = {position[(topic.pk, nugget["id"])] for nugget in topic.data["nuggets"]}
                matches[r, sorted(own)] = False
                matches[r, [position[(topic.pk, nugget)] for nugget in given["matches"]]] = True
    return names, matches, lengths


def pyramid(a: Arrays) -> np.ndarray:
    return m.pyramid_weights(a.votes, question_index=a.question_index, n_questions=len(a.topics))


def scores(a: Arrays) -> dict[str, np.ndarray]:
    """(R, Q) F under the pyramid, the original labels and each complete
    assessor, over the questions the runs answered (``a.answered()``)."""
    a = a.answered()
    if not a.runs or not a.topics:
        return {}
    models = {"pyramid": pyramid(a)}
    for name, row, complete in zip(a.assessors, a.labels, a.complete):
        if complete:
            models[name] = row
    f = m.pyramid_f_batch(
        np.vstack(list(models.values())),
        a.matches,
        a.lengths,
        question_index=a.question_index,
        n_questions=len(a.topics),
        beta=BETA,
    ).f
    return dict(zip(models, f))


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class NuggetsNugget:
    """One nugget of a question's pyramid (section 4, Table 5): its vital votes
    from every labelling (the original one included), its pyramid weight (votes
    over the question's most votes) and its original label (None: none given)."""

    id: str
    text: str
    original: Literal["vital", "okay"] | None
    votes: int
    weight: float


@dataclass(frozen=True)
class NuggetsTopicReport:
    """A question's pyramid (Table 5) and the assessors who have labelled some of its nuggets."""

    pyramid: list[NuggetsNugget]
    assessors: list[str]


@dataclass(frozen=True)
class NuggetsPyramid:
    """A question's title, target and pyramid (Table 5), in the campaign report."""

    title: str
    target: str
    nuggets: list[NuggetsNugget]


@dataclass(frozen=True)
class NuggetsRun:
    """One run's mean F (beta 3, Figure 1) over the answered questions, per model:
    ``pyramid`` (section 4), ``original`` and each complete assessor's labels
    (None: undefined, e.g. no question with a vital nugget)."""

    run: str
    scores: dict[str, Figure]


@dataclass(frozen=True)
class NuggetsTTest:
    """Two-tailed paired t-test of tau under the pyramid against tau under the
    original labels, over the assessors (section 6; None when undefined)."""

    statistic: Figure
    pvalue: Figure
    df: int


@dataclass(frozen=True)
class NuggetsStability:
    """Tables 3 and 4 (section 6): Kendall's tau between the run rankings under
    each assessor's labels and those under the original labels, and under the
    pyramid; the means leave the original out."""

    assessors: list[str]
    tau_original: list[Figure]
    tau_pyramid: list[Figure]
    mean_tau_original: Figure
    mean_tau_pyramid: Figure
    t_test: NuggetsTTest


@dataclass(frozen=True)
class NuggetsLabelPair:
    """Two labellings (an assessor, or the original labels) on the nuggets both labelled, vital
    as yes: Cohen's kappa, overlap of their vital sets, p+ (vital), p- (okay) and Gwet's AC1,
    each with its 95% bootstrap interval over the ``n`` shared nuggets (seed 0)."""

    labellings: tuple[str, str]
    n: int
    kappa: FigureCI
    overlap: FigureCI
    positive: FigureCI
    negative: FigureCI
    ac1: FigureCI


@dataclass(frozen=True)
class NuggetsLabelAgreement:
    """Agreement of the vital/okay labels (every labelling, the original one included): per pair,
    Fleiss' kappa over the ``fleiss_items`` nuggets with the most common number of labels
    (``fleiss_raters``; bootstrap and Gwet's 2008 analytic interval, and the test of kappa = 0
    with the standard error of Fleiss, Nee & Landis 1979, which holds only at kappa = 0), Krippendorff's alpha (nominal) over the nuggets labelled twice or more, and
    Gwet's AC1 over every labelled nugget; units: nuggets."""

    labellings: list[str]
    pairs: list[NuggetsLabelPair]
    fleiss: FigureCI
    fleiss_chance_test: ChanceTest
    fleiss_analytic_general: FigureCI
    fleiss_items: int
    fleiss_raters: int
    alpha: FigureCI
    ac1: FigureCI


@dataclass(frozen=True)
class NuggetsCampaignReport:
    """The campaign: its size, who labelled how many nuggets, every question's
    pyramid, the runs ranked by pyramid F and the ranking's stability
    (None: fewer than two runs, or no original labels and one complete assessor)."""

    questions: int
    nuggets: int
    #: assessor -> nuggets labelled (the original labels left out)
    assessors: dict[str, int]
    scored_questions: int
    complete_assessors: list[str]
    has_original: bool
    #: topic external id -> its pyramid
    pyramids: dict[str, NuggetsPyramid]
    runs: list[NuggetsRun]
    stability: NuggetsStability | None
    #: each labelling's Dawid-Skene (1979) estimate (vital is yes): sensitivity, specificity
    reliability: list[lm.BinaryReliability]
    #: agreement of the vital/okay labels, with intervals
    label_agreement: NuggetsLabelAgreement
    #: the stability of the runs' ranking by pyramid F (bootstrap over the scored questions), or None
    ranking: RankingStability | None
    kind: Literal["nuggets"] = "nuggets"

    def matrix_intervals(self, field: str) -> dict[tuple[str, str], FigureCI]:
        """Every pair of labellings' kappa interval (the matrix CSV's low/high/units columns)."""
        return {tuple(p.labellings): p.kappa for p in self.label_agreement.pairs} if field == "kappa_matrix" else {}

    @property
    def kappa_matrix(self) -> list[list[Figure]]:
        """labellings x labellings Cohen's kappa of the vital/okay labels (None: no shared nugget)."""
        names = self.label_agreement.labellings
        position = {name: i for i, name in enumerate(names)}
        matrix: list[list[Figure]] = [[1.0 if i == j else None for j in range(len(names))] for i in range(len(names))]
        for pair in self.label_agreement.pairs:
            i, j = (position[name] for name in pair.labellings)
            matrix[i][j] = matrix[j][i] = pair.kappa.value
        return matrix

    @property
    def labellings(self) -> list[str]:
        return self.label_agreement.labellings


def topic_report(input: ReportInput, topic: Topic) -> NuggetsTopicReport:
    judgments, runs = input.judgments_of(topic), input.runs
    a = arrays([topic], judgments, runs)
    return NuggetsTopicReport(
        pyramid=_pyramids(a, [topic.data["nuggets"]])[0], assessors=[x for x in a.assessors if x != "original"]
    )


def _pyramids(a: Arrays, nuggets: Sequence[Sequence[dict[str, Any]]]) -> list[list[NuggetsNugget]]:
    """Every question's pyramid rows (``nuggets``: each question's nuggets, id, text and
    original label); the weights computed once over every question."""
    return _pyramid_rows(
        a,
        [len(question) for question in nuggets],
        [nugget["id"] for question in nuggets for nugget in question],
        [nugget["text"] for question in nuggets for nugget in question],
        [nugget.get("label") for question in nuggets for nugget in question],
    )


def _pyramid_rows(
    a: Arrays, sizes: Sequence[int], ids: Sequence[str], texts: Sequence[str], originals: Sequence[str | None]
) -> list[list[NuggetsNugget]]:
    """Every question's pyramid rows from the flat nugget axis (``sizes``: each question's
    nuggets, in order)."""
    votes = a.votes.astype(np.int64).tolist()
    weights = pyramid(a).tolist()
    # msgspec builds the frozen dataclasses 5x faster than their __init__ (20,000 at 10,000 questions)
    fields = [
        {"id": i, "text": t, "original": o, "votes": v, "weight": w}
        for i, t, o, v, w in zip(ids, texts, originals, votes, weights)
    ]
    try:
        rows = msgspec.convert(fields, list[NuggetsNugget])
    except msgspec.ValidationError:
        # Topic data written around its checks (an original label neither vital nor okay):
        # the rows as given, as the report always built them; the stored report then
        # reads as outdated rather than failing the whole recompute.
        rows = [NuggetsNugget(**row) for row in fields]
    ends = np.cumsum(sizes).tolist()
    return [rows[end - size : end] for size, end in zip(sizes, ends)]


# -- incremental campaign report: per-topic partials and their merge (scoring/partials.py) ---


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
        pyramids={
            p.external_id: NuggetsPyramid(title=p.title, target=p.target, nuggets=rows)
            for p, rows in zip(
                partials,
                _pyramid_rows(
                    a,
                    [len(p.nugget_ids) for p in partials],
                    a.nugget_ids,
                    list(chain.from_iterable(p.texts for p in partials)),
                    list(chain.from_iterable(p.originals for p in partials)),
                ),
            )
        },
        runs=ranking,
        stability=stability(answered) if len(a.runs) >= 2 else None,
        reliability=lm.binary_reliability(a.labels.T, a.assessors, lm.model_truth(a.labels.T, "dawid-skene", 2)),
        label_agreement=label_agreement(a, settings),
        ranking=run_ranking_stability(question_scores, settings),
    )


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


# -- analyses ----------------------------------------------------------------------------


def full_analysis(
    a: Arrays, *, max_subsets: int = 300, seed: int = 0, progress: Callable[[float, str], None] | None = None
) -> dict[str, Any]:
    """Tables 2-4 and Figures 2-3 over the original labels and the complete assessors."""
    usable = [i for i, c in enumerate(a.complete) if c]
    if len(usable) < 2:
        raise InvalidInput("campaign", "needs at least two complete labellings (the original labels count as one)")
    if len(a.runs) < 2:
        raise InvalidInput("campaign", "needs at least two runs to rank")
    labels = a.labels[usable].astype(bool)
    names = [a.assessors[i] for i in usable]
    common = {"question_index": a.question_index, "n_questions": len(a.topics), "beta": BETA}
    if progress:
        progress(0.05, "Tables 3 and 4")
    agreement = m.assessor_agreement(labels, a.matches, a.lengths, original=0, **common)
    if progress:
        progress(0.3, "pyramids of every size (Figures 2 and 3)")
    sizes = m.pyramid_size_analysis(labels, a.matches, a.lengths, max_subsets=max_subsets, seed=seed, **common)
    if progress:
        progress(0.9, "quantisation (Table 2)")
    quantised = m.quantisation(labels, a.matches, a.lengths, **common)
    return {
        "assessors": names,
        "original": names[0],
        "tables_3_4": {
            "tau_original": agreement.tau_original.tolist(),
            "tau_pyramid": agreement.tau_pyramid.tolist(),
            "mean_tau_original": agreement.mean_tau_original,
            "mean_tau_pyramid": agreement.mean_tau_pyramid,
            "t_test": agreement.t_test._asdict(),
        },
        "figures_2_3": json_ready(asdict(sizes)),
        "table_2": json_ready(asdict(quantised)),
    }


def stability_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:

    a = arrays(input.topics, input.judgments, input.runs)
    result = full_analysis(
        a.answered(),
        max_subsets=int(params.get("max_subsets", 300)),
        seed=int(params.get("seed", 0)),
        progress=progress,
    )
    return {**result, "crossing": tau_crossing(result, float(params.get("tau", 0.9)))}


def tau_crossing(result: dict[str, Any], level: float) -> dict[str, Any]:
    """Where Figure 2's curve (mean tau of pyramids of m assessors against each
    assessor) reaches ``level``: m interpolated linearly, None when not reached
    within the assessors there are (``within``).

    >>> tau_crossing({"figures_2_3": {"sizes": [1, 2, 3], "mean_tau": [0.8, 0.88, 0.92]}}, 0.9)
    {'level': 0.9, 'at': 2.5, 'within': 3}
    """
    figure = result["figures_2_3"]
    return asdict(crossing(figure["sizes"], [np.nan if v is None else v for v in figure["mean_tau"]], level))


ANALYSES = {"stability": stability_analysis}
#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py). Pyramids of every size draw at most max_subsets
#: assessor subsets per size; the demo (6 questions, 5 labellings, 8 runs)
#: takes 0.02 s at 300, and time and memory grow linearly with it.
ANALYSIS_PARAMS = {
    "stability": ParamsSchema(
        Int("max_subsets", 300, min=1, max=5_000, help="Assessor subsets per pyramid size (Figures 2 and 3)."),
        Int("seed", 0, min=0, max=2**32 - 1, help="Seed of the random draws (the same seed, the same result)."),
        Float(
            "tau",
            0.9,
            min=-1.0,
            max=1.0,
            help="The tau whose crossing the page reports: how many assessors' pyramid reaches it (Figure 2).",
        ),
    )
}


# -- exports ---------------------------------------------------------------------------------


#: The label truth sets (vital / okay per nugget), beside the answer key and the scores.
LABEL_TRUTHS = ["consensus", *lm.MODELS, lm.ADJUDICATED]


def truths(assessors: Sequence[str]) -> list[str]:
    return ["answer-key", "scores", *LABEL_TRUTHS]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The answer key (tsv, json, csv), every run's F (csv, json) or a truth set's nugget labels (csv, json)."""
    if truth == "answer-key":
        return ExportFile("answer-key", "gold", by_truth=False) if format in EXPORTS else None
    if format not in ("csv", "json"):
        return None
    return (
        ExportFile("run-scores", "scores", by_truth=False) if truth == "scores" else ExportFile("nugget-gold", "gold")
    )


def check_truth(truth: str) -> None:
    """400 naming ``truth`` unless it is on offer (or ``adjudicated:<label truth set>``)."""
    adjudicated, behind = lm.split_truth(truth)
    if adjudicated:
        lm.check_fallback(truth, behind, LABEL_TRUTHS[:-1], lambda t: t in LABEL_TRUTHS)
    elif truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))}, adjudicated:<truth>)")


def gold_provenance(a: Arrays, truth: str, adjudicated: Sequence[lm.Adjudicated | None] = ()) -> lm.Provenance:
    """1 vital / 0 okay per nugget under ``truth`` with its provenance (``adjudicated``:
    per nugget, see :func:`adjudicated_items`)."""
    check_truth(truth)
    is_adjudicated, behind = lm.split_truth(truth)
    votes = a.labels.T
    if behind in lm.MODELS:
        fit = lm.model_truth(votes, behind, 2)
        labels, posterior, model = fit.labels, fit.posterior, True
    else:
        labels, posterior, model = lm.majority_variants(votes, draws=0)["ties as match"], None, False
    return lm.with_provenance(
        labels, model=model, posterior=posterior, adjudicated=adjudicated if is_adjudicated else None
    )


def adjudicated_items(a: Arrays, curated: dict) -> list[lm.Adjudicated | None]:
    """Per nugget the label of its question's adjudicated gold (the ``consensus`` curation), or None."""

    def value(data, nugget):
        label = (data.get("labels") or {}).get(nugget)
        return {"vital": 1.0, "okay": 0.0}.get(label) if isinstance(label, str) else None

    return lm.curated_items([(a.topics[q].pk, n) for q, n in zip(a.question_index, a.nugget_ids)], curated, value)


#: The provenance columns every gold-standard CSV ends with.
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


def labels_export(campaign: Campaign, a: Arrays, *, format: str, truth: str) -> str:
    if format not in ("csv", "json"):
        raise InvalidInput("format", "label truth sets come as csv or json")
    curated = adjudicated_items(a, lm.adjudications(campaign)) if lm.split_truth(truth)[0] else ()
    gold = gold_provenance(a, truth, curated)
    labelled = (~np.isnan(a.labels)).sum(axis=0)
    columns = ["topic", "nugget", "truth", "label", "vital", "labelled", *PROVENANCE]
    rows = [
        [
            a.topics[q].external_id,
            nugget,
            truth,
            "vital" if gold.labels[n] == 1 else "okay",
            int(np.nansum(a.labels[:, n])) if len(a.labels) else 0,
            int(labelled[n]) if len(a.labels) else 0,
            gold.source[n],
            None if np.isnan(gold.posterior[n]) else float(gold.posterior[n]),
            gold.by[n],
            gold.at[n],
        ]
        for n, (q, nugget) in enumerate(zip(a.question_index, a.nugget_ids))
        if not np.isnan(gold.labels[n])
    ]
    if format == "json":
        return json.dumps([dict(zip(columns, row)) for row in rows], indent=1)
    return write_csv(columns, ([("" if v is None else v) for v in row] for row in rows))


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    check_truth(truth)
    runs = list(campaign.runs.all())
    a = arrays(topics, judgments, runs)
    if truth not in ("answer-key", "scores"):
        return labels_export(campaign, a, format=format, truth=truth)
    if truth == "answer-key":
        pyramids = _pyramids(a, [t.data["nuggets"] for t in a.topics])
        rows = [{"topic": t.external_id, **asdict(row)} for t, question in zip(a.topics, pyramids) for row in question]
        if format == "json":
            return json.dumps(rows, indent=1)
        if format == "tsv":
            return "".join(
                f"{neutralise(r['topic'])}\t{neutralise(r['id'])}\t{r['original'] or 'none'}\t{r['votes']}\t{r['weight']:.6f}\t"
                f"{neutralise(' '.join(r['text'].split()))}\n"
                for r in rows
            )
        return write_csv(
            ["topic", "nugget", "original", "votes", "weight", "text"],
            ([r["topic"], r["id"], r["original"] or "", r["votes"], r["weight"], r["text"]] for r in rows),
        )
    answered = a.answered()
    rows = [
        {"run": run, "topic": t.external_id, "model": model, "f": float(f[r, q])}
        for model, f in scores(answered).items()
        for r, run in enumerate(answered.runs)
        for q, t in enumerate(answered.topics)
    ]
    if format == "json":
        return json.dumps(rows, indent=1)
    if format == "tsv":
        raise InvalidInput("format", "scores come as csv or json")
    return write_csv(["run", "topic", "model", "f"], ([r["run"], r["topic"], r["model"], r["f"]] for r in rows))


def stability_ready(facts) -> str | None:
    """Why the stability analysis cannot run yet (``Analysis.ready``), or None."""
    if facts.runs < 2:
        return "needs at least two runs to rank"
    return None


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: NuggetsTopicReport) -> Disagreement | None:
    """Vote entropy: for each nugget labelled twice or more (the original labelling counts),
    the entropy of its vital / okay labels (1: split evenly, 0: unanimous), averaged over the
    question's nuggets.

    >>> n = lambda name, votes, original: NuggetsNugget(name, "", original, votes, 0.0)
    >>> found = topic_disagreement(NuggetsTopicReport([n("n1", 3, "vital"), n("n2", 1, "okay"), n("n3", 0, None)], ["a", "b"]))
    >>> round(found.value, 3), found.reason
    (0.306, '1 of 3 nuggets split; most: n2 (2 okay / 1 vital)')
    """
    return _vital_disagreement(
        [n.id for n in report.pyramid],
        [n.votes for n in report.pyramid],
        [n.original for n in report.pyramid],
        len(report.assessors),
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
    return _vital_disagreement(
        partial.nugget_ids,
        votes.astype(np.int64).tolist(),
        partial.originals,
        sum(name != "original" for name in partial.assessors),
    )


def _vital_disagreement(
    ids: Sequence[str], votes: Sequence[int], originals: Sequence[str | None], labellings: int
) -> Disagreement | None:
    """The vote entropy of each nugget's ``votes`` (vital) out of the ``labellings`` and its original label."""
    totals = [labellings + (original is not None) for original in originals]
    return label_disagreement(
        list(ids), [[v, total - v] for v, total in zip(votes, totals)], ["vital", "okay"], noun="nuggets"
    )


def headline(report: NuggetsCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``)."""
    return Headline("Fleiss' kappa of the vital/okay labels", report.label_agreement.fleiss)
