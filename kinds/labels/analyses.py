"""Labels: the analysis an organiser runs as a job (KindSpec ``Analysis``): how many raters an
item needs.

A rating study's first question after "how far do they agree?" is "with how
many raters per item would the figure be steady enough?". For m = 2 up to the
most raters any item has, each draw keeps m of every item's labels (chosen at
random, seeded; items with fewer keep theirs) and computes Krippendorff's alpha
at the scale's level; the result is the mean alpha of the draws at each m with
the 5th and 95th percentiles of the draws, and where the mean reaches the
organiser's target (stats.crossing: linear between the two m around it).
Alpha takes any number of raters per item and missing labels (Krippendorff
2011, section 3), so every m is the same figure on fewer labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.params import Float, Int, ParamsSchema
from kinds.labels.data import Scale
from kinds.labels.report import coded
from scoring.selectors import ReportInput
from stats.agreement import krippendorff_alpha
from stats.crossing import crossing

RATERS_PARAMS = ParamsSchema(
    Int("draws", 50, min=1, max=500, label="Draws", help="Random draws of m raters per item at each m."),
    Float("target", 0.8, min=0.0, max=1.0, label="Target alpha", help="The alpha the curve is read at."),
    Int("seed", 0, min=0, max=2**31 - 1, label="Seed", help="Of the draws: the same seed gives the same result."),
    help="Krippendorff's alpha with m raters per item, for m from 2 up: how many raters an item needs.",
)


def raters_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    scale = Scale.of(input.campaign.params)
    found = coded(input.topics, input.judgments, scale)
    packed = found.ratings.packed()
    if scale.numeric:
        numbers = np.asarray(scale.numbers)
        packed = np.where(np.isnan(packed), np.nan, numbers[np.nan_to_num(packed).astype(np.int64)])
    counts = (~np.isnan(packed)).sum(axis=1)
    keep = counts >= 2
    if not keep.any():
        raise InvalidInput("campaign", "needs items labelled by two raters or more")
    return alpha_by_raters(
        packed[keep],
        level=scale.level,
        draws=int(params["draws"]),
        target=float(params["target"]),
        seed=int(params["seed"]),
        progress=progress,
    )


def alpha_by_raters(
    packed: np.ndarray,
    *,
    level: str,
    draws: int,
    target: float,
    seed: int,
    progress: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Mean alpha of ``draws`` draws of m labels of every item (items x labels packed left, NaN
    none), m from 2 to the most an item has; the draws' 5th and 95th percentiles; the crossing.

    >>> packed = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]], float)
    >>> found = alpha_by_raters(packed, level="nominal", draws=3, target=0.5, seed=0)
    >>> found["sizes"], round(found["mean_alpha"][-1], 4)  # every label: krippendorff.alpha's 0.5802
    ([2, 3], 0.5802)
    """
    width = int((~np.isnan(packed)).sum(axis=1).max())
    rng = np.random.default_rng(seed)
    sizes = list(range(2, width + 1))
    means, low, high = [], [], []
    given = ~np.isnan(packed)
    for s, m in enumerate(sizes):
        found = []
        for _ in range(draws if m < width else 1):
            # each item's labels in a random order, the first m kept (the others dropped)
            order = np.argsort(np.where(given, rng.random(packed.shape), np.inf), axis=1)
            kept = np.take_along_axis(packed, order, axis=1)[:, :m]
            found.append(krippendorff_alpha(kept.T, level=level))
        values = np.array(found, dtype=np.float64)
        finite = values[np.isfinite(values)]
        means.append(float(finite.mean()) if finite.size else None)
        low.append(float(np.quantile(finite, 0.05)) if finite.size else None)
        high.append(float(np.quantile(finite, 0.95)) if finite.size else None)
        if progress:
            progress((s + 1) / len(sizes), f"{m} raters per item")
    reached = crossing(sizes, [np.nan if v is None else v for v in means], target)
    return {"sizes": sizes, "mean_alpha": means, "p5": low, "p95": high, "draws": draws, "crossing": asdict(reached)}


def raters_ready(facts) -> str | None:
    """Why the analysis cannot run yet (``Analysis.ready``), or None."""
    if facts.most_per_topic < 2:
        return "needs a topic labelled by two raters or more"
    return None
