"""Nugget pyramids: the stability analysis an organiser runs as a job (KindSpec ``Analysis``).

Lin & Demner-Fushman, "Will Pyramids Built of Nuggets Topple Over?", section 6:
Tables 3 and 4 (Kendall's tau between run rankings under the original labels,
each assessor's and the pyramid), Figures 2 and 3 (pyramids of 1..n assessors:
mean tau, zero-median questions), Table 2 (questions with one or two vital
nuggets), and where Figure 2's curve reaches a chosen tau.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Float, Int, ParamsSchema
from kinds.nuggets import stats as m
from kinds.nuggets.report import BETA, Arrays, arrays
from scoring.selectors import ReportInput
from stats.crossing import crossing


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


def stability_ready(facts) -> str | None:
    """Why the stability analysis cannot run yet (``Analysis.ready``), or None."""
    if facts.runs < 2:
        return "needs at least two runs to rank"
    return None
