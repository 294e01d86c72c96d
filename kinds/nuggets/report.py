"""Nugget pyramids: the judgments as arrays, weights, run scores, the reports' types and a question's report.

Lin & Demner-Fushman, "Will Pyramids Built of Nuggets Topple Over?"
(nugget-pyramids_lin-demner-fushman.txt): Figure 1 (nugget F), section 4
(pyramid weights and recall), Table 5 (a question's pyramid); the campaign
report's types carry section 6's Tables 3 and 4 (Kendall's tau between run
rankings under the original labels, under each assessor's and under the
pyramid). The campaign report is the merge of the questions' partials
(partials.py); the answer key and truth sets are in exports.py, the stability
analysis (Tables 2-4, Figures 2 and 3) in analyses.py.

Assessor 0 is the "original" labelling when every nugget of every question
carries a ``label`` in the topic data (the first assessor's, as NIST's).
Run scores and the analyses that compare assessors use the questions some
run answered, and the assessors who labelled every nugget of those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import numpy as np

from annotate.models import Run, Topic
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.nuggets import stats as m
from kinds.nuggets.stats import response_length
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats import labelmodels as lm
from stats.intervals import ChanceTest, FigureCI, RankingStability
from stats.plain import LANDIS_KOCH_HELP, Reading

BETA = 3.0


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
    """A question's title, target and pyramid (Table 5): its row of the campaign report's
    per-question list, made from its stored partial when read (``Reports.topic_rows``), not
    stored in the campaign report. The votes count the original labels when every nugget of
    the campaign has one (the report's ``has_original``)."""

    #: the question's external id
    topic: str
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
    """The campaign: its size, who labelled how many nuggets, the runs ranked by pyramid F
    and the ranking's stability (None: fewer than two runs, or no original labels and one
    complete assessor). Each question's pyramid is not in it: the ``questions`` rows of
    :class:`NuggetsPyramid` are read a page at a time from the questions' partials
    (``scoring.selectors.topic_rows``)."""

    questions: int
    nuggets: int
    #: assessor -> nuggets labelled (the original labels left out)
    assessors: dict[str, int]
    scored_questions: int
    complete_assessors: list[str]
    has_original: bool
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
        pyramid=pyramids(a, [topic.data["nuggets"]])[0], assessors=[x for x in a.assessors if x != "original"]
    )


def pyramids(a: Arrays, nuggets: Sequence[Sequence[dict[str, Any]]]) -> list[list[NuggetsNugget]]:
    """Every question's pyramid rows (``nuggets``: each question's nuggets, id, text and
    original label); the weights computed once over every question."""
    return pyramid_rows(
        a,
        [len(question) for question in nuggets],
        [nugget["id"] for question in nuggets for nugget in question],
        [nugget["text"] for question in nuggets for nugget in question],
        [nugget.get("label") for question in nuggets for nugget in question],
    )


def pyramid_rows(
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
    return vital_disagreement(
        [n.id for n in report.pyramid],
        [n.votes for n in report.pyramid],
        [n.original for n in report.pyramid],
        len(report.assessors),
    )


def vital_disagreement(
    ids: Sequence[str], votes: Sequence[int], originals: Sequence[str | None], labellings: int
) -> Disagreement | None:
    """The vote entropy of each nugget's ``votes`` (vital) out of the ``labellings`` and its original label."""
    totals = [labellings + (original is not None) for original in originals]
    return label_disagreement(
        list(ids), [[v, total - v] for v, total in zip(votes, totals)], ["vital", "okay"], noun="nuggets"
    )


def headline(report: NuggetsCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): Fleiss' kappa of the
    vital/okay labels, read on Landis & Koch's scale."""
    return Headline(
        "Fleiss' kappa of the vital/okay labels",
        report.label_agreement.fleiss,
        Reading("kappa", "kappa", LANDIS_KOCH_HELP),
    )
