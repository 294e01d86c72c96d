r"""Precise enough to stop? The organiser's signal per figure (issue 15, section 2).

A campaign's ``precision`` param is the wanted half-width ``d`` of a figure's
95% interval (default 0.05: kappa to within +-0.05). With the current
interval of half-width ``h`` on ``n`` units:

* ``reached`` when ``h <= d``;
* otherwise about ``n_needed - n`` more units, where

  .. math:: n_{needed} = \left\lceil n \, (h / d)^2 \right\rceil

  because the width of an interval of a figure that is a smooth function of
  means over units shrinks like :math:`1/\sqrt{n}` (the standard error of a
  mean, :math:`\sigma/\sqrt{n}`; Efron & Tibshirani 1993, "An Introduction to
  the Bootstrap", ch. 2 and 5): ``h = c / sqrt(n)`` for a constant ``c``
  fixed by the data so far, so ``h`` reaches ``d`` at ``n (h/d)^2``. This is
  the classical sample-size rule for a wanted margin of error,
  :math:`n = (z S / d)^2` (Cochran 1977, "Sampling Techniques", 3rd ed.,
  section 4.4), with :math:`z S` estimated from the current interval rather
  than assumed. It is an extrapolation: it assumes the new units resemble
  the judged ones (same mix of labels, same assessors), so it says "about".

For a ranking (``ranking_tau``, default 0.9): ``reached`` when the 5th
percentile ``p5`` of the bootstrap distribution of Kendall's tau between the
current ranking and the rankings of resampled topics is at least ``tau``;
otherwise ``1 - p5`` is treated as the spread to shrink, with the same
``1/sqrt(n)`` decay: ``n_needed = ceil(n ((1 - p5) / (1 - tau))^2)``. That is
a heuristic (tau is bounded and its distribution skewed), shown as such.

Computed when a page renders (arithmetic on the stored interval), so a new
``precision`` takes effect at once; the intervals themselves come with the
report from the background task.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["StopSignal", "ranking_signal", "stop_signal", "units_needed"]


@dataclass(frozen=True)
class StopSignal:
    """Whether a figure is precise enough, and about how many more units would make it so.

    ``half_width``: the interval's (None without one); ``more_units``: 0 when
    reached, None when it cannot be told (no interval yet).
    """

    reached: bool
    half_width: float | None
    more_units: int | None


def units_needed(units: int, spread: float, target: float) -> int:
    """``ceil(units * (spread / target)^2)``: the units at which ``spread`` (decaying like
    ``1/sqrt(units)``) reaches ``target``.

    >>> units_needed(100, 0.1, 0.05)
    400
    >>> units_needed(800, 0.037, 0.05)
    439
    """
    if units < 0 or spread < 0 or target <= 0:
        raise ValueError("units and spread must be >= 0 and target > 0")
    # rounded to 9 places first so that 100 * (0.1 / 0.05)^2 is 400, not 401 through float error
    return math.ceil(round(units * (spread / target) ** 2, 9))


def stop_signal(interval, precision: float) -> StopSignal:
    """The stop signal of a figure's interval (anything with ``low``, ``high``, ``units``:
    :class:`scoring.intervals.FigureCI` or :class:`scoring.metrics.uncertainty.Interval`).

    >>> from scoring.intervals import FigureCI
    >>> stop_signal(FigureCI(0.6, 0.5, 0.7, units=100, unit="items", method="bootstrap"), 0.05)
    StopSignal(reached=False, half_width=0.09999999999999998, more_units=300)
    >>> stop_signal(FigureCI(0.6, 0.57, 0.64, units=900, unit="items", method="bootstrap"), 0.05)
    StopSignal(reached=True, half_width=0.03500000000000003, more_units=0)
    >>> stop_signal(FigureCI(0.6, None, None, units=1, unit="items", method="none"), 0.05)
    StopSignal(reached=False, half_width=None, more_units=None)
    """
    if not precision > 0:
        raise ValueError(f"precision must be > 0, got {precision!r}")
    low, high, units = interval.low, interval.high, int(interval.units)
    if not (_finite(low) and _finite(high)) or units < 1:
        return StopSignal(False, None, None)
    half_width = (high - low) / 2
    if half_width <= precision + 1e-12:  # a half-width equal to the precision, up to float error
        return StopSignal(True, half_width, 0)
    return StopSignal(False, half_width, max(1, units_needed(units, half_width, precision) - units))


def ranking_signal(stability, tau: float) -> StopSignal:
    """The stop signal of a ranking's stability (``p5``, ``units``: a
    :class:`scoring.intervals.RankingStability`) against a wanted ``tau``;
    ``half_width`` here is ``1 - p5``.

    >>> from scoring.intervals import RankingStability
    >>> ranking_signal(RankingStability("F1", 5, 40, "topics", 0.9, 0.8, 1000, "bootstrap"), 0.9)
    StopSignal(reached=False, half_width=0.19999999999999996, more_units=120)
    >>> ranking_signal(RankingStability("F1", 5, 40, "topics", 1.0, 0.9, 1000, "bootstrap"), 0.9).reached
    True
    """
    if not -1 < tau < 1:
        raise ValueError(f"tau must be strictly between -1 and 1, got {tau!r}")
    p5, units = stability.p5, int(stability.units)
    if not _finite(p5) or units < 1:
        return StopSignal(False, None, None)
    spread = 1 - p5
    if p5 >= tau:
        return StopSignal(True, spread, 0)
    return StopSignal(False, spread, max(1, units_needed(units, spread, 1 - tau) - units))


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)
