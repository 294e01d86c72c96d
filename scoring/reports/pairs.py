"""Pair adjudication: agreement between adjudicators and gold standards.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": section 3.1 (overlap, p+, p-, kappa per pair of adjudicators;
base rates of acceptance, Figures 4 and 5) and section 2.3, Table 1 (truth
sets: Consensus, Union, Intersection, Single).

An *item* is one (topic, candidate) pair; a judgment's payload gives one
vote per candidate of its topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from annotate.kinds import InvalidInput
from annotate.models import Campaign, Run, Topic
from scoring.metrics.agreement import category_counts, fleiss_kappa, krippendorff_alpha, pairwise_agreement
from scoring.exports import write_csv
from scoring.metrics.truthsets import consensus, intersection, single, union
from scoring.selectors import JudgmentRow

EXPORTS = {"csv": ("text/csv", "csv"), "qrels": ("text/plain", "qrels")}
EXPORT_HELP = (
    "Consensus: a tie or a majority of the adjudicators who judged an item says match. Union: anyone said match. "
    "Intersection: everyone who judged it said match. Single: one adjudicator's judgments. CSV rows carry the vote "
    "counts (matches, judged); qrels rows are: topic 0 candidate 0|1."
)


@dataclass(frozen=True)
class Votes:
    """items x assessors: 1.0 match, 0.0 no match, NaN not judged."""

    items: list[tuple[str, str]]  # (topic external id, candidate id)
    assessors: list[str]
    matrix: np.ndarray


def votes(topics: Sequence[Topic], judgments: Sequence[JudgmentRow]) -> Votes:
    """The vote matrix of the submitted judgments, items in topic order."""
    external = {t.pk: t.external_id for t in topics}
    index: dict[tuple[str, str], int] = {}
    for topic in topics:
        for candidate in topic.data["candidates"]:
            index[(topic.external_id, candidate["id"])] = len(index)
    assessors = sorted({j.assessor for j in judgments})
    column = {name: i for i, name in enumerate(assessors)}
    rows, cols, values = [], [], []
    for judgment in judgments:
        topic_id = external[judgment.topic_id]
        for candidate, match in judgment.payload["matches"].items():
            rows.append(index[(topic_id, candidate)])
            cols.append(column[judgment.assessor])
            values.append(1.0 if match else 0.0)
    matrix = np.full((len(index), len(assessors)), np.nan)
    matrix[rows, cols] = values
    return Votes(list(index), assessors, matrix)


def agreement(v: Votes) -> dict[str, Any]:
    """Per pair, per assessor and campaign-wide agreement of a vote matrix."""
    judged = ~np.isnan(v.matrix)
    pairs = []
    for i, j in combinations(range(len(v.assessors)), 2):
        shared = judged[:, i] & judged[:, j]
        if not shared.any():
            continue
        figures = pairwise_agreement(v.matrix[shared, i] == 1, v.matrix[shared, j] == 1)
        pairs.append({"assessors": [v.assessors[i], v.assessors[j]], **figures.__dict__})
    per_assessor = [
        {
            "assessor": name,
            "judged": int(judged[:, k].sum()),
            "accepted": int(np.nansum(v.matrix[:, k])),
            "base_rate": float(np.nanmean(v.matrix[:, k])) if judged[:, k].any() else float("nan"),
        }
        for k, name in enumerate(v.assessors)
    ]
    return {
        "items": len(v.items),
        "items_judged": int(judged.any(axis=1).sum()),
        "assessors": per_assessor,
        "pairs": pairs,
        "kappa_matrix": _kappa_matrix(v.assessors, pairs),
        "fleiss": _fleiss(v.matrix, judged),
        "alpha": _alpha(v.matrix, judged),
    }


def _kappa_matrix(assessors: list[str], pairs: list[dict]) -> list[list[float | None]]:
    position = {name: i for i, name in enumerate(assessors)}
    matrix: list[list[float | None]] = [[None] * len(assessors) for _ in assessors]
    for i in range(len(assessors)):
        matrix[i][i] = 1.0
    for pair in pairs:
        i, j = (position[name] for name in pair["assessors"])
        matrix[i][j] = matrix[j][i] = pair["kappa"]
    return matrix


def _fleiss(matrix: np.ndarray, judged: np.ndarray) -> dict[str, Any]:
    """Fleiss' kappa over the items with the most common number of raters (>= 2).

    Fleiss (1971) needs the same number of raters on every item; while a
    campaign is under way items differ, so the figure says which items it is
    over. Ties between rater counts go to the larger count.
    """
    raters = judged.sum(axis=1)
    counts = np.bincount(raters[raters >= 2]) if (raters >= 2).any() else np.zeros(0, int)
    if counts.size == 0:
        return {"kappa": float("nan"), "items": 0, "raters": 0}
    m = int(len(counts) - 1 - np.argmax(counts[::-1]))
    table = category_counts(matrix[raters == m], categories=[0.0, 1.0])
    return {"kappa": fleiss_kappa(table), "items": int((raters == m).sum()), "raters": m}


def _alpha(matrix: np.ndarray, judged: np.ndarray) -> dict[str, Any]:
    pairable = judged.sum(axis=1) >= 2
    if not pairable.any():
        return {"alpha": float("nan"), "items": 0, "coders": int(judged.any(axis=0).sum())}
    return {
        "alpha": krippendorff_alpha(matrix[pairable].T, level="nominal"),
        "items": int(pairable.sum()),
        "coders": int(judged[pairable].any(axis=0).sum()),
    }


def topic_report(topic: Topic, judgments: Sequence[JudgmentRow], *, runs: Sequence[Run] = ()) -> dict[str, Any]:
    v = votes([topic], judgments)
    matches = np.nansum(v.matrix, axis=1)
    judged = (~np.isnan(v.matrix)).sum(axis=1)
    return {
        **agreement(v),
        "candidates": [
            {"id": candidate, "matches": int(m), "judged": int(n)}
            for (_, candidate), m, n in zip(v.items, matches, judged)
        ],
    }


def campaign_report(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, runs: Sequence[Run] = ()
) -> dict[str, Any]:
    return {"kind": "pairs", "topics": len(topics), **agreement(votes(topics, judgments))}


# -- gold standards ------------------------------------------------------------


def truths(assessors: Sequence[str]) -> list[str]:
    """The truth sets of Table 1 that a single export can hold."""
    return ["consensus", "union", "intersection", *(f"single:{name}" for name in assessors)]


def gold_standard(v: Votes, truth: str) -> np.ndarray:
    """One 0/1/NaN label per item under ``truth`` (NaN: not judged)."""
    if truth not in truths(v.assessors):
        raise InvalidInput("truth", f"unknown truth set {truth!r} (known: {', '.join(truths(v.assessors))})")
    if not v.assessors:
        return np.full(len(v.items), np.nan)
    if truth == "consensus":
        return consensus(v.matrix)
    if truth == "union":
        return union(v.matrix)
    if truth == "intersection":
        return intersection(v.matrix)
    return single(v.matrix, v.assessors.index(truth.removeprefix("single:")))


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """The gold standard as CSV (with vote counts) or TREC qrels."""
    v = votes(topics, judgments)
    labels = gold_standard(v, truth)
    matches = np.nansum(v.matrix, axis=1).astype(int)
    judged = (~np.isnan(v.matrix)).sum(axis=1)
    keep = ~np.isnan(labels)
    if format == "qrels":
        return "".join(
            f"{topic} 0 {candidate} {int(label)}\n"
            for (topic, candidate), label, ok in zip(v.items, labels, keep)
            if ok
        )
    return write_csv(
        ["topic", "candidate", "truth", "label", "matches", "judged"],
        (
            [topic, candidate, truth, int(label), int(m), int(n)]
            for (topic, candidate), label, m, n, ok in zip(v.items, labels, matches, judged, keep)
            if ok
        ),
    )
