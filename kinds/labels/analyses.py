"""Labels: the analyses an organiser runs as a job (KindSpec ``Analysis``): how many raters an
item needs, and Krippendorff's alpha at every level the scale permits.

A rating study's first question after "how far do they agree?" is "with how
many raters per item would the figure be steady enough?". For m = 2 up to the
most raters any item has, each draw keeps m of every item's labels (chosen at
random, seeded; items with fewer keep theirs) and computes Krippendorff's alpha
at the scale's level; the result is the mean alpha of the draws at each m with
the 5th and 95th percentiles of the draws, and where the mean reaches the
organiser's target (stats.crossing: linear between the two m around it).
Alpha takes any number of raters per item and missing labels (Krippendorff
2011, section 3), so every m is the same figure on fewer labels.

The report computes alpha at the scale's own level; the levels analysis computes it at each
level the scale permits (Krippendorff 2011, section 4: a metric may assume no more than the
data give), each with its bootstrap interval as the report draws the main one: nominal on
any scale; ordinal on ordered categories and numbers; interval and ratio on numbers, ratio
only where every number is above 0 or the scale is itself a ratio scale (the ratio metric
``((c - k) / (c + k))^2`` puts a 0 at the greatest distance from every other number).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from concord import typed
from concord.errors import InvalidInput
from concord.params import Choice, Float, Int, ListOf, ParamsSchema
from kinds.labels.data import LEVELS, Scale
from kinds.labels.report import UNIT, alphas, coded
from scoring.selectors import ReportInput
from stats.agreement import krippendorff_alpha
from stats.crossing import crossing
from stats.draws import ItemDraws
from stats.intervals import interval_settings

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


# -- Krippendorff's alpha at every level the scale permits ----------------------------------------


def permitted_levels(scale: Scale) -> list[str]:
    """The levels of measurement ``scale``'s labels permit alpha at, in :data:`LEVELS`' order.

    >>> permitted_levels(Scale.of({"categories": ["a", "b"]}))
    ['nominal']
    >>> permitted_levels(Scale.of({"level": "ordinal", "categories": ["lo", "hi"]}))
    ['nominal', 'ordinal']
    >>> permitted_levels(Scale.of({"level": "interval", "minimum": 0, "maximum": 4}))
    ['nominal', 'ordinal', 'interval']
    >>> permitted_levels(Scale.of({"level": "interval", "minimum": 1, "maximum": 4}))
    ['nominal', 'ordinal', 'interval', 'ratio']
    """
    found = ["nominal"]
    if scale.ordered:
        found.append("ordinal")
    if scale.numeric:
        found.append("interval")
        if scale.level == "ratio" or min(scale.numbers) > 0:
            found.append("ratio")
    return found


def _levels_param(choices: tuple[str, ...], default: list[str] | None) -> ListOf:
    return ListOf(
        "levels",
        Choice("level", None, choices),
        default,
        min_items=1,
        max_items=len(choices),
        unique=True,
        label="Levels",
        help="The levels of measurement to compute alpha at, among those the scale permits (nominal for any "
        "scale; ordinal for ordered categories and numbers; interval and ratio for numbers, ratio above 0). "
        "Left out: every one the scale permits.",
    )


_LEVELS_HELP = "Krippendorff's alpha at every level the scale permits, each with its interval, beside the report's."
#: The analysis's params as the API documents them (every level); a campaign's own form and
#: check offer only the levels its scale permits (:func:`levels_params`).
LEVELS_PARAMS = ParamsSchema(_levels_param(LEVELS, None), help=_LEVELS_HELP)


def levels_params(campaign_params: dict[str, Any]) -> ParamsSchema:
    """``Analysis.params_for``: the levels ``campaign_params``' scale permits, all ticked."""
    permitted = permitted_levels(Scale.of(campaign_params))
    return ParamsSchema(_levels_param(tuple(permitted), permitted), help=_LEVELS_HELP)


def levels_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Alpha at each level asked for (every one the scale permits when none is), over the items
    labelled twice or more, with the report's intervals (the campaign's resamples, seed and
    minimum of items). A level the scale does not permit is refused naming it."""
    scale = Scale.of(input.campaign.params)
    permitted = permitted_levels(scale)
    asked = params.get("levels") or permitted
    for k, level in enumerate(asked):
        if level not in permitted:
            raise InvalidInput(
                f"params.levels[{k}]",
                f"this campaign's {scale.level} scale permits alpha at {', '.join(permitted)}, not {level}",
            )
    levels = [level for level in LEVELS if level in asked]
    found = coded(input.topics, input.judgments, scale)
    settings = interval_settings(input.campaign.params)
    ratings = found.ratings
    draws = ItemDraws(
        ratings,
        resamples=settings.resamples,
        seed=settings.seed,
        unit=UNIT,
        min_units=settings.min_units,
        n_values=len(scale.values),
    )
    progress(0.1, "labels read")
    figures = alphas(ratings.packed(), ratings.per_item, scale, draws, levels)
    return {
        "scale_level": scale.level,
        "items": int((ratings.per_item >= 2).sum()),
        "levels": [
            {"level": level, "alpha": typed.dump(figure), "report": level == scale.level}
            for level, figure in zip(levels, figures)
        ],
    }
