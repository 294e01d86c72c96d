r"""Precise enough to stop? The organiser's signal per figure.

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

Too few to judge. Neither estimate says anything on a handful of units, and a
signal that says "reached" there misleads (three topics and two systems gave
"reached (5th percentile tau 1.000)": with two systems tau is always +-1). So
each signal first asks for a minimum, and below it says "too few <units> to
judge (n of at least N)" instead of "reached" or "about N more":

* a figure's interval: :data:`MIN_UNITS` = 30 units. In the known-kappa
  simulation of ``python -m benchmarks.coverage`` (Cohen 2 raters, Fleiss,
  AC1 and alpha 5 raters, two labels 70/30, kappa 0.4 and 0.8, 1,000
  replications a cell) Concord's 95% intervals (the percentile bootstrap,
  Gwet's analytic ones) cover 56-93% at 10 units and 82-94% at 20, 90-94%
  at 30, 91-95% at 50 and 94-96% from 200 on: 30 is the first size at which
  every one covers 90% or more; below it the half-width the signal compares
  with the precision is too unreliable to act on;
* a ranking's stability: :data:`MIN_SYSTEMS` = 3 systems and
  :data:`MIN_RANKING_UNITS` = 10 topics. With two systems Kendall's tau is
  +-1, so "5th percentile tau >= 0.9" only says the two keep their order in
  95% of resamples; in ``python -m benchmarks.coverage --ranking --replications
  300 --resamples 500`` (systems whose true scores are equal or evenly spaced,
  topic and system noise) two systems are called "reached" in the wrong order
  up to 19% of the time, and equal ones 11-42% whatever the number of topics.
  From three systems on a wrong ranking is called "reached" up to 6% of the
  time at 3 topics, 1.7% at 5 and at most 1% from 8 topics on; 10 is the
  first round number past that.

Computed when a page renders (arithmetic on the stored interval), so a new
``precision`` takes effect at once; the intervals themselves come with the
report from the background task.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "MIN_RANKING_UNITS",
    "MIN_SYSTEMS",
    "MIN_UNITS",
    "StopSignal",
    "TooFew",
    "ranking_signal",
    "stop_signal",
    "units_needed",
]

#: Fewest units behind an interval before its stop signal may say "reached" or "about N more".
MIN_UNITS = 30
#: Fewest systems a ranking's stop signal judges (two systems: tau is +-1).
MIN_SYSTEMS = 3
#: Fewest topics (or questions) a ranking's stop signal judges.
MIN_RANKING_UNITS = 10


@dataclass(frozen=True)
class TooFew:
    """What a signal has too few of: ``have`` of at least ``need`` ``unit`` (items, topics, systems)."""

    unit: str
    have: int
    need: int

    def describe(self) -> str:
        """The page's words.

        >>> TooFew("topics", 3, 10).describe()
        'too few topics to judge (3 of at least 10)'
        """
        return f"too few {self.unit} to judge ({self.have} of at least {self.need})"


@dataclass(frozen=True)
class StopSignal:
    """Whether a figure is precise enough, and about how many more units would make it so.

    ``half_width``: the interval's (None without one); ``more_units``: 0 when
    reached, None when it cannot be told (no interval yet, or too few units);
    ``too_few``: set when the figure rests on fewer units (or the ranking on
    fewer systems) than the signal needs, then never ``reached``.
    """

    reached: bool
    half_width: float | None
    more_units: int | None
    too_few: TooFew | None = None


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


def stop_signal(interval, precision: float, *, min_units: int = MIN_UNITS) -> StopSignal:
    """The stop signal of a figure's interval (anything with ``low``, ``high``, ``units``:
    :class:`stats.intervals.FigureCI` or :class:`stats.uncertainty.Interval`),
    "too few" below ``min_units`` units.

    >>> from stats.intervals import FigureCI
    >>> stop_signal(FigureCI(0.6, 0.5, 0.7, units=100, unit="items", method="bootstrap"), 0.05)
    StopSignal(reached=False, half_width=0.09999999999999998, more_units=300, too_few=None)
    >>> stop_signal(FigureCI(0.6, 0.57, 0.64, units=900, unit="items", method="bootstrap"), 0.05).reached
    True
    >>> stop_signal(FigureCI(1.0, 1.0, 1.0, units=3, unit="topics", method="bootstrap"), 0.05).too_few.describe()
    'too few topics to judge (3 of at least 30)'
    >>> stop_signal(FigureCI(0.6, None, None, units=40, unit="items", method="none"), 0.05)
    StopSignal(reached=False, half_width=None, more_units=None, too_few=None)
    """
    if not precision > 0:
        raise ValueError(f"precision must be > 0, got {precision!r}")
    low, high, units = interval.low, interval.high, int(interval.units)
    defined = _finite(low) and _finite(high)
    half_width = (high - low) / 2 if defined else None
    if units < min_units:
        return StopSignal(False, half_width, None, TooFew(getattr(interval, "unit", "units"), units, min_units))
    if not defined:
        return StopSignal(False, None, None)
    if half_width <= precision + 1e-12:  # a half-width equal to the precision, up to float error
        return StopSignal(True, half_width, 0)
    return StopSignal(False, half_width, max(1, units_needed(units, half_width, precision) - units))


def ranking_signal(
    stability, tau: float, *, min_systems: int = MIN_SYSTEMS, min_units: int = MIN_RANKING_UNITS
) -> StopSignal:
    """The stop signal of a ranking's stability (``p5``, ``units``, ``systems``: a
    :class:`stats.intervals.RankingStability`) against a wanted ``tau``;
    ``half_width`` here is ``1 - p5``. "Too few" below ``min_systems`` systems or
    ``min_units`` topics.

    >>> from stats.intervals import RankingStability
    >>> ranking_signal(RankingStability("F1", 5, 40, "topics", 0.9, 0.8, 1000, "bootstrap"), 0.9)
    StopSignal(reached=False, half_width=0.19999999999999996, more_units=120, too_few=None)
    >>> ranking_signal(RankingStability("F1", 5, 40, "topics", 1.0, 0.9, 1000, "bootstrap"), 0.9).reached
    True
    >>> ranking_signal(RankingStability("F1", 2, 3, "topics", 1.0, 1.0, 1000, "bootstrap"), 0.9).too_few.describe()
    'too few systems to judge (2 of at least 3)'
    """
    if not -1 < tau < 1:
        raise ValueError(f"tau must be strictly between -1 and 1, got {tau!r}")
    p5, units, systems = stability.p5, int(stability.units), int(stability.systems)
    spread = 1 - p5 if _finite(p5) else None
    if systems < min_systems:
        return StopSignal(False, spread, None, TooFew("systems", systems, min_systems))
    if units < min_units:
        return StopSignal(False, spread, None, TooFew(stability.unit, units, min_units))
    if spread is None:
        return StopSignal(False, None, None)
    if p5 >= tau:
        return StopSignal(True, spread, 0)
    return StopSignal(False, spread, max(1, units_needed(units, spread, 1 - tau) - units))


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)
