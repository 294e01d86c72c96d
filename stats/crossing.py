"""Where a stability curve crosses a chosen level.

The nuggets paper (Lin & Demner-Fushman, section 6, Figure 2: mean Kendall
tau of pyramids of m assessors) and the factoids paper (van Halteren &
Teufel, section 5, Figure 5: mean Spearman rho of WFS rankings from two
samples of N model summaries) both measure how a ranking's stability grows
with the number of people behind it. :func:`crossing` reads such a curve,
``(sizes, values)``, and says at how many people it first reaches a level
(e.g. tau 0.9): linear interpolation between the last size below the level
and the first at or above it, the smallest size when the curve starts at or
above it, and "not reached within" the largest size otherwise. Sizes whose
value is undefined (NaN) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Crossing", "crossing"]


@dataclass(frozen=True)
class Crossing:
    """Where a curve first reaches ``level``.

    Attributes
    ----------
    level : float
        The level asked for (a tau or rho).
    at : float or None
        The size (number of assessors or summaries) at which the curve
        reaches ``level``, interpolated linearly between the two measured
        sizes around it; None when it is not reached.
    within : int or None
        The largest size measured (with a defined value): "not reached
        within ``within``"; None when the curve has no defined value.
    """

    level: float
    at: float | None
    within: int | None

    @property
    def reached(self) -> bool:
        """Whether the curve reaches the level within the sizes measured."""
        return self.at is not None

    def describe(self, unit: str = "assessors") -> str:
        """One sentence for a page: where the curve reaches the level, or that it does not.

        >>> Crossing(0.9, 2.5, 4).describe()
        'reaches 0.9 at 2.5 assessors'
        >>> Crossing(0.9, None, 4).describe()
        'not reached within 4 assessors'
        """
        if self.within is None:
            return "no defined value"
        if self.at is None:
            return f"not reached within {self.within} {unit}"
        return f"reaches {self.level:g} at {self.at:.3g} {unit}"


def crossing(sizes: npt.ArrayLike, values: npt.ArrayLike, level: float = 0.9) -> Crossing:
    """The size at which the curve ``values`` (over increasing ``sizes``) first reaches ``level``.

    Between the last size ``n0`` whose value ``v0`` is below ``level`` and
    the next size ``n1`` whose value ``v1`` reaches it, the crossing is
    ``n0 + (level - v0) (n1 - n0) / (v1 - v0)``. A curve whose first
    defined value already reaches ``level`` crosses at its first size.

    Parameters
    ----------
    sizes : array_like of numbers, shape (n,)
        Increasing sizes (number of assessors, of summaries).
    values : array_like of float, shape (n,)
        The curve at each size; NaN where undefined (left out).
    level : float, default 0.9

    Returns
    -------
    Crossing

    Raises
    ------
    ValueError
        If ``sizes`` and ``values`` differ in length or ``sizes`` does not increase.

    Examples
    --------
    >>> crossing([1, 2, 3, 4], [0.5, 0.75, 1.0, 1.0], 0.875)
    Crossing(level=0.875, at=2.5, within=4)
    >>> round(crossing([1, 2, 3, 4], [0.7, 0.85, 0.95, 0.97], 0.9).at, 12)
    2.5
    >>> crossing([1, 2, 3], [0.5, 0.6, 0.7], 0.9)
    Crossing(level=0.9, at=None, within=3)
    >>> crossing([1, 2], [0.95, 0.97], 0.9).at
    1.0
    """
    n = np.asarray(sizes, dtype=np.float64).ravel()
    v = np.asarray(values, dtype=np.float64).ravel()
    if n.shape != v.shape:
        raise ValueError(f"sizes and values must have the same length, got {n.size} and {v.size}")
    if n.size > 1 and np.any(np.diff(n) <= 0):
        raise ValueError("sizes must increase")
    defined = np.isfinite(v)
    n, v = n[defined], v[defined]
    if n.size == 0:
        return Crossing(float(level), None, None)
    within = int(n[-1])
    above = np.flatnonzero(v >= level)
    if above.size == 0:
        return Crossing(float(level), None, within)
    first = int(above[0])
    if first == 0:
        return Crossing(float(level), float(n[0]), within)
    n0, n1, v0, v1 = n[first - 1], n[first], v[first - 1], v[first]
    return Crossing(float(level), float(n0 + (level - v0) * (n1 - n0) / (v1 - v0)), within)
