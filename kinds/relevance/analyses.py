"""The relevance kind's analysis: ranking stability at any cutoff.

Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness": the systems evaluated under every qrels set at the
cutoff asked (the consensus keeping only the documents graded by enough
assessors), and Kendall's tau-b between the system rankings under every two
sets (:func:`~kinds.relevance.stats.ranking_stability`) with the system pairs
they swap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from annotate.models import Run
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Int, ParamsSchema
from concord.typed import dump
from kinds.relevance.data import threshold_of
from kinds.relevance.partials import CUTOFF, evaluation_summary, exact_means, qrels_sets, system_runs
from kinds.relevance.report import Grades, grades
from scoring.selectors import ReportInput
from stats import ireval


def evaluation(
    g: Grades, runs: Sequence[Run], *, threshold: int, cutoff: int = CUTOFF, min_assessors: int = 1
) -> ireval.Evaluation | None:
    """Every system under every qrels set (None: no runs or no grades yet); the means are the
    campaign report's, of the exact sums of the topics' scores (partials.exact_means), so that
    both rank tied systems alike."""
    systems = system_runs(runs)
    sets = qrels_sets(g, min_assessors=min_assessors)
    if not systems or not sets:
        return None
    e = ireval.evaluate(sets, systems, relevance_threshold=threshold, cutoff=cutoff)
    return dataclasses.replace(e, means=exact_means(e.per_topic))


def with_swapped_systems(summary: dict[str, Any], e: ireval.Evaluation) -> dict[str, Any]:
    """A stored evaluation summary (``dump`` of :class:`~kinds.relevance.report.RelevanceEvaluation`) with each
    pair of qrels sets' swapped system pairs (``swapped``), as the stability analysis shows them."""
    for block, measure in zip(summary["stability"], e.measures):
        scores = e.scores(measure)
        for pair in block["pairs"]:
            a, b = (e.qrels_sets.index(name) for name in pair["sets"])
            pair["swapped"] = swapped_systems(scores[a], scores[b], e.systems)
    return summary


def swapped_systems(first: np.ndarray, second: np.ndarray, systems: Sequence[str]) -> list[list[str]]:
    """The system pairs the two score rows order oppositely (ties excluded), better-under-``first`` first."""
    sign = np.sign(first[:, np.newaxis] - first[np.newaxis, :]) * np.sign(second[:, np.newaxis] - second[np.newaxis, :])
    i, j = np.nonzero(np.triu(sign < 0, k=1))
    return [[systems[x], systems[y]] if first[x] > first[y] else [systems[y], systems[x]] for x, y in zip(i, j)]


#: Measured on the demo (8 topics, 4 assessors, 6 systems): about 0.05 s at
#: cutoff 10; time grows with qrels sets x systems x topics, little with the cutoff.
STABILITY_PARAMS = ParamsSchema(
    Int("cutoff", CUTOFF, min=1, max=1000, help="The depth of nDCG and P (nDCG@k, P@k)."),
    Int(
        "min_assessors",
        1,
        min=1,
        max=50,
        help="The consensus qrels keep only the documents graded by at least this many assessors.",
    ),
)


def stability_analysis(
    input: ReportInput, params: Mapping[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Systems under every qrels set and the Kendall's tau of every pair of their rankings, per measure, with the swapped pairs."""
    campaign = input.campaign
    topics = input.topics
    g = grades(topics, input.judgments)
    if not g.assessors:
        raise InvalidInput("campaign", "no submitted grades yet")
    runs = input.runs
    if len(system_runs(runs)) < 2:
        raise InvalidInput("campaign", "needs the ranked runs of at least two systems to compare their rankings")
    progress(0.1, "evaluating the systems under every qrels set")
    e = evaluation(
        g, runs, threshold=threshold_of(campaign.params), cutoff=params["cutoff"], min_assessors=params["min_assessors"]
    )
    if e is None or len(e.qrels_sets) < 2:
        raise InvalidInput("params.min_assessors", "fewer than two qrels sets have grades")
    progress(0.8, "ranking stability")
    summary = with_swapped_systems(dump(evaluation_summary(e)), e)
    return json_ready({"params": dict(params), "assessors": g.assessors, **summary})


def stability_ready(facts) -> str | None:
    """Why the stability analysis cannot run yet (``Analysis.ready``), or None."""
    if not facts.judgments:
        return "no submitted grades yet"
    if facts.runs_with("ranking") < 2:
        return "needs the ranked runs of at least two systems to compare their rankings"
    return None
