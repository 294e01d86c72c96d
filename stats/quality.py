r"""Crowd quality control: assessors' accuracy on control items, and pausing on evidence.

Control items carry a known answer and are mixed into an assessor's work. This
module turns an assessor's answers on them into figures an organiser can act on:

- :func:`control_accuracy`: the share of controls answered right with a
  binomial interval per assessor: Wilson's (1927) score interval, the
  Clopper-Pearson (1934) "exact" interval (``"beta"``: its bounds are quantiles
  of Beta distributions, statsmodels' name for it) or the Jeffreys interval
  (the equal-tailed interval of the Beta(1/2, 1/2) prior's posterior, as in
  Brown, Cai & DasGupta 2001, section 4.1.2).
- :func:`credits` and :func:`weighted_score`: on an ordinal or numeric scale an
  answer near the known one earns part credit; the mean credit with an
  interval valid for any score in [0, 1] (Hoeffding 1963, Theorem 1).
- :func:`should_pause`: the pausing rule. An assessor is paused only on
  evidence: after at least ``minimum`` controls, when the *upper* bound of the
  interval on their accuracy is below the organiser's ``threshold`` (so an
  assessor is paused only when even the most favourable accuracy the data
  allow is too low), or when they failed the allowed number of attention
  checks. Each decision carries its reason in plain words.
- :func:`pause_boundary` and :func:`pause_probability`: the rule's error
  rates. The rule is applied after every control, so the chance that an
  assessor of true accuracy ``p`` is ever paused within ``n`` controls is a
  first-passage probability, computed exactly by dynamic programming over
  (controls seen, controls right).

References
----------
- E. B. Wilson (1927), Probable inference, the law of succession, and
  statistical inference, Journal of the American Statistical Association
  22(158):209-212.
- C. J. Clopper and E. S. Pearson (1934), The use of confidence or fiducial
  limits illustrated in the case of the binomial, Biometrika 26(4):404-413.
- L. D. Brown, T. T. Cai and A. DasGupta (2001), Interval estimation for a
  binomial proportion, Statistical Science 16(2):101-133 (section 4.1: Wilson;
  4.1.2: Jeffreys, with the bounds at 0 and 1 for ``x = 0`` and ``x = n``;
  4.2.1: Clopper-Pearson).
- W. Hoeffding (1963), Probability inequalities for sums of bounded random
  variables, Journal of the American Statistical Association 58(301):13-30
  (Theorem 1, inequality 2.1).
- A. Maurer and M. Pontil (2009), Empirical Bernstein bounds and sample
  variance penalization, COLT 2009 (Theorem 4), and V. Bentkus (2004), On
  Hoeffding's inequalities, Annals of Probability 32(2):1650-1673: why
  neither is used here (:func:`weighted_score`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

__all__ = [
    "Accuracy",
    "PauseDecision",
    "PauseRisk",
    "control_accuracy",
    "credits",
    "pause_boundary",
    "pause_probability",
    "should_pause",
    "weighted_score",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Method = Literal["wilson", "beta", "jeffreys"]
ScoreMethod = Literal["hoeffding", "wilson", "beta", "jeffreys"]
Weight = Literal["linear", "quadratic"]

_PROPORTION_METHODS = ("wilson", "beta", "jeffreys")
_SCORE_METHODS = ("hoeffding", *_PROPORTION_METHODS)
#: Bisection steps for Hoeffding's bound: the bracket [mean, 1] halves each step, so
#: 64 steps leave it below the spacing of doubles near 1.
_BISECTIONS = 64
#: pause_probability's cost is (accuracies) x n^2 / 2 cells; these caps keep one call
#: under about a second and its memory under (accuracies) x n doubles.
_MAX_CONTROLS = 10_000
_MAX_CELLS = 10**9


class Accuracy(NamedTuple):
    """Each assessor's score on the controls, with its interval.

    Attributes
    ----------
    correct : ndarray of float64
        Controls answered right (for :func:`weighted_score`: the sum of the
        credits).
    total : ndarray of int64
        Controls answered.
    accuracy : ndarray of float64
        ``correct / total``; NaN with no control.
    low, high : ndarray of float64
        The interval's bounds; ``[0, 1]`` with no control (no evidence either way).
    level : float
        The interval's coverage.
    method : str
        ``"wilson"``, ``"beta"`` (Clopper-Pearson), ``"jeffreys"`` or
        ``"hoeffding"`` (bounded scores).
    """

    correct: FloatArray
    total: IntArray
    accuracy: FloatArray
    low: FloatArray
    high: FloatArray
    level: float
    method: str


# --------------------------------------------------------------------------- checks


def _level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)) or not 0 < level < 1:
        raise ValueError(f"level must be a number strictly between 0 and 1, got {level!r}")
    return float(level)


def _method(method: Any, allowed: tuple[str, ...]) -> str:
    if method not in allowed:
        raise ValueError(f"method must be one of {', '.join(map(repr, allowed))}, got {method!r}")
    return str(method)


def _counts(correct: Any, total: Any, *, whole_correct: bool) -> tuple[FloatArray, IntArray]:
    """``correct`` and ``total`` broadcast together and checked: ``total`` whole and
    non-negative, ``0 <= correct <= total`` (whole unless ``whole_correct`` is False)."""
    try:
        c = np.asarray(correct, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"correct must hold numbers, got {correct!r}") from None
    try:
        n = np.asarray(total, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"total must hold numbers, got {total!r}") from None
    if not np.all(np.isfinite(n)) or np.any(n < 0) or np.any(n != np.floor(n)):
        raise ValueError("total must hold non-negative whole numbers (controls answered)")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("correct must hold non-negative numbers")
    if whole_correct and np.any(c != np.floor(c)):
        raise ValueError(
            "correct must hold whole numbers (controls right) with this method; use 'hoeffding' for credits"
        )
    try:
        c, n = np.broadcast_arrays(c, n)
    except ValueError:
        raise ValueError(f"correct and total must have the same shape, got {c.shape} and {n.shape}") from None
    if np.any(c > n):
        raise ValueError("correct must not exceed total")
    return c.astype(np.float64), n.astype(np.int64)


# --------------------------------------------------------------------------- intervals


def _z(level: float) -> float:
    return float(special.ndtri(0.5 + level / 2))


def _wilson(c: FloatArray, n: FloatArray, level: float) -> tuple[FloatArray, FloatArray]:
    # Wilson (1927), eq. on p. 210; the form of Brown, Cai & DasGupta (2001), eq. 4, and
    # statsmodels', term by term, so the two agree to rounding.
    z = _z(level)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / n
        denominator = 1 + z2 / n
        centre = (p + z2 / (2 * n)) / denominator
        half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n**2)) / denominator
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def _beta_quantiles(a: FloatArray, b: FloatArray, q: float) -> FloatArray:
    with np.errstate(invalid="ignore"):
        return special.betaincinv(a, b, q)


def _clopper_pearson(c: FloatArray, n: FloatArray, level: float) -> tuple[FloatArray, FloatArray]:
    # Clopper & Pearson (1934): the bounds are the alpha/2 quantile of Beta(x, n - x + 1) and
    # the 1 - alpha/2 quantile of Beta(x + 1, n - x); 0 at x = 0 and 1 at x = n.
    tail = (1 - level) / 2
    low = np.where(c == 0, 0.0, _beta_quantiles(c, n - c + 1, tail))
    high = np.where(c == n, 1.0, _beta_quantiles(c + 1, n - c, 1 - tail))
    return low, high


def _jeffreys(c: FloatArray, n: FloatArray, level: float) -> tuple[FloatArray, FloatArray]:
    # Brown, Cai & DasGupta (2001), section 4.1.2: the equal-tailed interval of the
    # Beta(x + 1/2, n - x + 1/2) posterior, with the lower bound 0 at x = 0 and the upper
    # bound 1 at x = n (the posterior's tail there would exclude the observed share).
    tail = (1 - level) / 2
    low = np.where(c == 0, 0.0, _beta_quantiles(c + 0.5, n - c + 0.5, tail))
    high = np.where(c == n, 1.0, _beta_quantiles(c + 0.5, n - c + 0.5, 1 - tail))
    return low, high


def _kl(mean: FloatArray, p: FloatArray) -> FloatArray:
    """Bernoulli relative entropy KL(mean || p), 0 log 0 = 0."""
    return special.rel_entr(mean, p) + special.rel_entr(1.0 - mean, 1.0 - p)


def _hoeffding(c: FloatArray, n: FloatArray, level: float) -> tuple[FloatArray, FloatArray]:
    # Hoeffding (1963), Theorem 1 (inequality 2.1): for independent scores in [0, 1] with
    # mean mu, P(mean - mu >= t) <= exp(-n KL(mu + t || mu)), and the same for the lower
    # tail. Inverted: every mu with n KL(mean || mu) <= log(2 / alpha) on its side of the
    # mean, alpha/2 a side. Valid whatever the scores' distribution in [0, 1] (a credit of
    # 0.5 is not half a success: the binomial intervals are not), and never narrower than
    # Clopper-Pearson on 0/1 scores (the Chernoff bound dominates the binomial tail).
    budget = math.log(2 / (1 - level))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, c / np.where(n > 0, n, 1), 0.5)
        room = budget / np.where(n > 0, n, 1)
    bounds = []
    for toward in (0.0, 1.0):
        inside, outside = mean.copy(), np.full_like(mean, toward)
        for _ in range(_BISECTIONS):
            middle = (inside + outside) / 2
            within = _kl(mean, middle) <= room
            inside = np.where(within, middle, inside)
            outside = np.where(within, outside, middle)
        # The endpoint itself when it is within reach (KL(mean || 0) is finite only at mean 0).
        bounds.append(np.where(_kl(mean, np.full_like(mean, toward)) <= room, toward, inside))
    return bounds[0], bounds[1]


_INTERVALS = {"wilson": _wilson, "beta": _clopper_pearson, "jeffreys": _jeffreys, "hoeffding": _hoeffding}


def _accuracy(c: FloatArray, n: IntArray, level: float, method: str) -> Accuracy:
    nf = n.astype(np.float64)
    answered = n > 0
    low, high = _INTERVALS[method](c, nf, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(answered, c / nf, np.nan)
    return Accuracy(
        correct=c,
        total=n,
        accuracy=share,
        low=np.where(answered, low, 0.0),
        high=np.where(answered, high, 1.0),
        level=level,
        method=method,
    )


def control_accuracy(
    correct: npt.ArrayLike, total: npt.ArrayLike, *, level: float = 0.95, method: Method = "wilson"
) -> Accuracy:
    """Each assessor's share of controls answered right, with a binomial interval.

    Methods (Brown, Cai & DasGupta 2001 compare them; all three equal
    statsmodels' ``proportion_confint`` of the same name to 1e-12, except that
    Jeffreys' bounds are 0 at ``correct = 0`` and 1 at ``correct = total`` as
    that paper defines them):

    - ``"wilson"``: Wilson's (1927) score interval, the inversion of the score
      test; close to its nominal coverage from about 10 controls, the
      recommended default.
    - ``"beta"``: Clopper & Pearson's (1934) interval, whose bounds are Beta
      quantiles: the inversion of the two one-sided binomial tests; never
      below its level (conservative), so it pauses later than Wilson's.
    - ``"jeffreys"``: the equal-tailed Bayesian interval of the Jeffreys
      prior Beta(1/2, 1/2) (Brown, Cai & DasGupta 2001, section 4.1.2).

    Parameters
    ----------
    correct, total : array_like of int
        Controls answered right and answered, per assessor (broadcast together).
    level : float
        Coverage, two-sided (0.95).
    method : {"wilson", "beta", "jeffreys"}

    Returns
    -------
    Accuracy
        Arrays in the shape of the inputs; an assessor with no control has NaN
        accuracy and the interval [0, 1].

    Examples
    --------
    >>> result = control_accuracy([7, 18, 0], [20, 20, 0])
    >>> result.accuracy.tolist()[:2], result.high.round(3).tolist()
    ([0.35, 0.9], [0.567, 0.972, 1.0])
    >>> control_accuracy(7, 20, method="beta").high.round(3)
    np.float64(0.592)
    """
    c, n = _counts(correct, total, whole_correct=True)
    return _accuracy(c, n, _level(level), _method(method, _PROPORTION_METHODS))


# --------------------------------------------------------------------------- weighted scores


def credits(
    given: npt.ArrayLike, known: npt.ArrayLike, *, scale: tuple[float, float], weight: Weight = "linear"
) -> FloatArray:
    """Each answer's credit on an ordinal or numeric scale: 1 for the known answer, 0 at
    the scale's full width from it.

    ``linear``: ``1 - |given - known| / (high - low)``; ``quadratic``:
    ``1 - (|given - known| / (high - low))^2``, the agreement weights of
    Cohen's (1968) weighted kappa, which forgive a near miss more.

    Parameters
    ----------
    given, known : array_like of float
        The assessor's answers and the controls' known answers, on the scale.
    scale : (low, high)
        The scale's ends, ``low < high``; every answer must lie within them.
    weight : {"linear", "quadratic"}

    Examples
    --------
    On a 1-5 scale, answering 4 where 5 is known earns 0.75 (linear) or 0.9375
    (quadratic):

    >>> credits([4, 5, 1], [5, 5, 5], scale=(1, 5)).tolist()
    [0.75, 1.0, 0.0]
    >>> credits([4, 5, 1], [5, 5, 5], scale=(1, 5), weight="quadratic").tolist()
    [0.9375, 1.0, 0.0]
    """
    try:
        low, high = (float(end) for end in scale)
    except (TypeError, ValueError):
        raise ValueError(f"scale must be two numbers (low, high), got {scale!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"scale must be finite with low < high, got {scale!r}")
    if weight not in ("linear", "quadratic"):
        raise ValueError(f"weight must be 'linear' or 'quadratic', got {weight!r}")
    arrays = []
    for name, values in (("given", given), ("known", known)):
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold numbers") from None
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got {array.ndim}-D")
        if not np.all(np.isfinite(array)) or np.any(array < low) or np.any(array > high):
            raise ValueError(f"{name} must hold numbers within the scale [{low:g}, {high:g}]")
        arrays.append(array)
    if len(arrays[0]) != len(arrays[1]):
        raise ValueError(f"given and known must have equal lengths, got {len(arrays[0])} and {len(arrays[1])}")
    distance = np.abs(arrays[0] - arrays[1]) / (high - low)
    return 1.0 - (distance if weight == "linear" else distance**2)


def weighted_score(
    given: npt.ArrayLike,
    known: npt.ArrayLike,
    *,
    scale: tuple[float, float],
    assessors: npt.ArrayLike | None = None,
    n_assessors: int | None = None,
    weight: Weight = "linear",
    level: float = 0.95,
    method: ScoreMethod = "hoeffding",
) -> Accuracy:
    """Each assessor's mean credit on the controls of an ordinal or numeric scale, with its interval.

    The credits (:func:`credits`) lie in [0, 1] but are not 0/1 successes: a
    binomial interval on their sum (Wilson, Beta) treats it as a count of
    successes out of ``n``, which a sum of part credits is not, so its
    coverage is not guaranteed (the binomial tail does not bound the tail of
    such a sum; Bentkus 2004 bounds it only within a factor ``e``). The default interval, ``"hoeffding"``, holds for any scores in [0, 1]
    whatever their distribution: Hoeffding's (1963) Theorem 1 bounds each
    tail of the mean by ``exp(-n KL(mean || mu))``, so the interval is every
    ``mu`` with ``n KL(mean || mu) <= log(2 / (1 - level))`` (``KL`` the
    Bernoulli relative entropy). It is that theorem's sharper, relative-entropy
    form rather than the familiar ``sqrt(log(2 / alpha) / (2n))``, which it
    always contains, and it needs no variance estimate, so it stays valid at
    the 10 or 20 controls a pausing rule looks at (an empirical-Bernstein bound,
    Maurer & Pontil 2009, is wider there; a bootstrap is not valid at such
    sizes).

    When every credit is 0 or 1 (a two-point scale, or answers right or at the
    far end only), the proportion's methods apply and give exactly
    :func:`control_accuracy`'s result; ``"hoeffding"`` is then never narrower
    than ``"beta"`` (Clopper-Pearson).

    Parameters
    ----------
    given, known : array_like of float, shape (n,)
        One entry per control answered: the answer and the known one.
    scale : (low, high)
        The scale's ends.
    assessors : array_like of int, shape (n,), optional
        Each answer's assessor code (0..); all answers are one assessor's when
        omitted.
    n_assessors : int, optional
        Declared number of assessors (default: largest code + 1).
    weight : {"linear", "quadratic"}
    level : float
    method : {"hoeffding", "wilson", "beta", "jeffreys"}
        The last three only when every credit is 0 or 1.

    Returns
    -------
    Accuracy
        ``correct`` = the sum of the credits, ``accuracy`` = the mean credit,
        one entry per assessor.

    Examples
    --------
    >>> result = weighted_score([4, 5, 3, 1, 2], [5, 5, 5, 1, 5], scale=(1, 5), assessors=[0, 0, 0, 1, 1])
    >>> result.accuracy.tolist(), result.total.tolist()
    ([0.75, 0.625], [3, 2])
    >>> result.low.round(3).tolist(), result.high.round(3).tolist()
    ([0.095, 0.018], [0.999, 0.999])
    """
    scores = credits(given, known, scale=scale, weight=weight)
    level = _level(level)
    method = _method(method, _SCORE_METHODS)
    if assessors is None:
        codes = np.zeros(len(scores), dtype=np.int64)
        size = 1 if n_assessors is None else n_assessors
    else:
        codes = np.asarray(assessors)
        if codes.ndim != 1 or len(codes) != len(scores):
            raise ValueError(f"assessors must be 1-D with one code per answer ({len(scores)})")
        if codes.size and (codes.dtype.kind not in "iu" or codes.min() < 0):
            raise ValueError("assessors must hold non-negative integer codes")
        codes = codes.astype(np.int64)
        needed = int(codes.max()) + 1 if codes.size else 0
        size = needed if n_assessors is None else n_assessors
    needed = int(codes.max()) + 1 if codes.size else 0
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < needed:
        raise ValueError(
            f"n_assessors must be a whole number >= {needed} (the largest assessor code + 1), got {size!r}"
        )
    if method != "hoeffding" and np.any((scores != 0.0) & (scores != 1.0)):
        raise ValueError(f"method {method!r} needs every credit to be 0 or 1; use 'hoeffding' for part credits")
    total = np.bincount(codes, minlength=size)
    summed = np.bincount(codes, scores, minlength=size)
    return _accuracy(summed, total, level, method)


# --------------------------------------------------------------------------- pausing


@dataclass(frozen=True)
class PauseDecision:
    """Whether to pause one assessor, and why, in plain numbers.

    Attributes
    ----------
    paused : bool
    because : tuple of str
        The rules that pause: ``"accuracy"``, ``"attention"``; empty when not paused.
    correct : float
        Controls right (or the sum of credits).
    total : int
        Controls answered.
    accuracy, upper : float
        The share right (NaN with no control) and the interval's upper bound.
    threshold : float
    minimum : int
    level : float
    method : str
    failed_checks, failed_limit : int or None
        Attention checks failed and the number that pauses (None: no such rule).
    reason : str
        The decision in plain words, for the assessor's page and the record.
    """

    paused: bool
    because: tuple[str, ...]
    correct: float
    total: int
    accuracy: float
    upper: float
    threshold: float
    minimum: int
    level: float
    method: str
    failed_checks: int | None
    failed_limit: int | None
    reason: str


def _threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)):
        raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
    return float(threshold)


def _whole(value: Any, name: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")
    return int(value)


def _apart(value: float, other: float) -> tuple[str, str]:
    """Both numbers to two decimals, or to as many more (up to six) as tell them apart."""
    for digits in range(2, 7):
        a, b = f"{value:.{digits}f}", f"{other:.{digits}f}"
        if a != b:
            break
    return a, b


def _accuracy_words(correct: float, total: int, upper: float, threshold: float, minimum: int, level: float) -> str:
    if float(correct).is_integer():
        evidence = f"{int(correct)} of {total} control{'s' if total != 1 else ''} right"
    else:
        evidence = (
            f"a credit of {correct:g} over {total} control{'s' if total != 1 else ''} (mean {correct / total:.2f})"
        )
    if total < minimum:
        return f"{evidence}; accuracy is judged from {minimum} controls"
    bound, required = _apart(upper, threshold)
    percent = f"{level * 100:g}%"
    if upper < threshold:
        return f"{evidence}; the {percent} interval's upper bound {bound} is below the {required} required"
    return f"{evidence}; the {percent} interval's upper bound {bound} is not below the {required} required"


def _checks_words(failed: int, limit: int) -> str:
    checks = f"{failed} attention check{'s' if failed != 1 else ''} failed"
    return f"{checks}; pausing at {limit}"


def should_pause(
    correct: npt.ArrayLike,
    total: npt.ArrayLike,
    *,
    threshold: float,
    minimum: int,
    level: float = 0.95,
    method: ScoreMethod = "wilson",
    failed_checks: npt.ArrayLike | None = None,
    failed_limit: int | None = None,
) -> tuple[PauseDecision, ...]:
    """The pausing rule, per assessor: pause only on evidence.

    An assessor is paused when

    - they answered at least ``minimum`` controls and the upper bound of the
      interval on their accuracy (:func:`control_accuracy`, or with
      ``"hoeffding"`` the bound of :func:`weighted_score` on credit sums) is
      below ``threshold``: even the best accuracy their answers allow at
      that level is too low, so nobody is paused on a few unlucky items; or
    - they failed ``failed_limit`` attention checks or more (when given).

    Applied after every control, the rule's chance of ever pausing an
    assessor of a given true accuracy is :func:`pause_probability`.

    Parameters
    ----------
    correct, total : array_like
        Controls right (whole numbers; with ``"hoeffding"``, credit sums) and
        answered, per assessor.
    threshold : float
        The accuracy required, in (0, 1].
    minimum : int
        Controls answered before the accuracy rule applies (>= 0).
    level : float
        The interval's coverage (0.95).
    method : {"wilson", "beta", "jeffreys", "hoeffding"}
    failed_checks : array_like of int, optional
        Attention checks failed per assessor (same shape as ``correct``).
    failed_limit : int, optional
        Failed attention checks that pause (>= 1); required with
        ``failed_checks``.

    Returns
    -------
    tuple of PauseDecision
        One per assessor, in order (inputs flattened).

    Examples
    --------
    >>> decisions = should_pause([7, 3, 15], [20, 5, 20], threshold=0.7, minimum=10)
    >>> [d.paused for d in decisions]
    [True, False, False]
    >>> for d in decisions:
    ...     print(d.reason)
    7 of 20 controls right; the 95% interval's upper bound 0.57 is below the 0.70 required
    3 of 5 controls right; accuracy is judged from 10 controls
    15 of 20 controls right; the 95% interval's upper bound 0.89 is not below the 0.70 required
    >>> should_pause(9, 10, threshold=0.7, minimum=10, failed_checks=3, failed_limit=3)[0].reason
    "9 of 10 controls right; the 95% interval's upper bound 0.98 is not below the 0.70 required; 3 attention checks failed; pausing at 3"
    """
    threshold = _threshold(threshold)
    minimum = _whole(minimum, "minimum", least=0)
    method = _method(method, _SCORE_METHODS)
    c, n = _counts(correct, total, whole_correct=method != "hoeffding")
    result = _accuracy(c.ravel(), n.ravel(), _level(level), method)
    by_accuracy = (result.total >= minimum) & (result.high < threshold)
    if (failed_checks is None) != (failed_limit is None):
        raise ValueError("failed_checks and failed_limit go together: give both or neither")
    failed: IntArray | None = None
    limit: int | None = None
    if failed_checks is not None:
        limit = _whole(failed_limit, "failed_limit", least=1)
        array = np.asarray(failed_checks, dtype=np.float64)
        if not np.all(np.isfinite(array)) or np.any(array < 0) or np.any(array != np.floor(array)):
            raise ValueError("failed_checks must hold non-negative whole numbers")
        if array.shape != c.shape:
            raise ValueError(f"failed_checks must have the shape of correct {c.shape}, got {array.shape}")
        failed = array.ravel().astype(np.int64)
    decisions = []
    for i in range(len(result.total)):
        because = ("accuracy",) if by_accuracy[i] else ()
        words = [
            _accuracy_words(
                float(result.correct[i]), int(result.total[i]), float(result.high[i]), threshold, minimum, result.level
            )
        ]
        if failed is not None and limit is not None:
            words.append(_checks_words(int(failed[i]), limit))
            if failed[i] >= limit:
                because += ("attention",)
        decisions.append(
            PauseDecision(
                paused=bool(because),
                because=because,
                correct=float(result.correct[i]),
                total=int(result.total[i]),
                accuracy=float(result.accuracy[i]),
                upper=float(result.high[i]),
                threshold=threshold,
                minimum=minimum,
                level=result.level,
                method=method,
                failed_checks=None if failed is None else int(failed[i]),
                failed_limit=limit,
                reason="; ".join(words),
            )
        )
    return tuple(decisions)


# --------------------------------------------------------------------------- the rule's error rates


def pause_boundary(
    n: int, *, threshold: float, minimum: int, level: float = 0.95, method: ScoreMethod = "wilson"
) -> IntArray:
    """The rule as a boundary: after ``m`` controls, an assessor with ``k`` right is
    paused exactly when ``k <= boundary[m]``.

    Every method's upper bound grows with ``k`` for a fixed ``m``, so the
    correct counts that pause after ``m`` controls are ``0..boundary[m]``
    (``-1``: none, as for every ``m < minimum``). Found by bisection on ``k``
    for all ``m`` at once: ``log2(n)`` evaluations of ``n + 1`` bounds.

    Parameters
    ----------
    n : int
        Controls, 0..10,000.
    threshold, minimum, level, method
        As :func:`should_pause`.

    Returns
    -------
    ndarray of int64, shape (n + 1,)

    Examples
    --------
    With 10 controls at least and a 95% Wilson bound below 0.7, 4 right of 10
    pauses and 5 does not; 9 of 20 pauses:

    >>> pause_boundary(20, threshold=0.7, minimum=10)[[9, 10, 15, 20]].tolist()
    [-1, 4, 7, 9]
    """
    n = _whole(n, "n", least=0)
    if n > _MAX_CONTROLS:
        raise ValueError(f"n must be at most {_MAX_CONTROLS:,} controls, got {n:,}")
    threshold = _threshold(threshold)
    minimum = _whole(minimum, "minimum", least=0)
    level = _level(level)
    method = _method(method, _SCORE_METHODS)
    seen = np.arange(n + 1, dtype=np.float64)
    interval = _INTERVALS[method]
    # Per m, k = 0..lo-1 pause and k = hi..m do not; bisect until lo == hi.
    lo, hi = np.zeros(n + 1, dtype=np.int64), np.arange(n + 1, dtype=np.int64) + 1
    while np.any(active := lo < hi):
        middle = (lo + hi) // 2
        with np.errstate(divide="ignore", invalid="ignore"):
            upper = interval(np.minimum(middle, seen), seen, level)[1]
        pauses = upper < threshold
        lo = np.where(active & pauses, middle + 1, lo)
        hi = np.where(active & ~pauses, middle, hi)
    boundary = lo - 1
    boundary[(seen < minimum) | (seen == 0)] = -1
    return boundary


class PauseRisk(NamedTuple):
    """The chance that the rule ever pauses an assessor of a given true accuracy.

    Attributes
    ----------
    accuracy : ndarray of float64
        The true accuracies asked about.
    probability : ndarray of float64
        P(paused within ``n`` controls), one per accuracy.
    by_control : ndarray of float64, shape (len(accuracy), n + 1)
        ``by_control[i, m]``: P(paused at or before control ``m``).
    expected_controls : ndarray of float64
        The mean number of controls answered when paused, among the
        assessors paused within ``n`` (NaN when the probability is 0).
    """

    accuracy: FloatArray
    probability: FloatArray
    by_control: FloatArray
    expected_controls: FloatArray


def pause_probability(
    accuracy: npt.ArrayLike,
    n: int,
    *,
    threshold: float,
    minimum: int,
    level: float = 0.95,
    method: ScoreMethod = "wilson",
) -> PauseRisk:
    """Exact probability that an assessor of true accuracy ``p`` is ever paused within ``n`` controls.

    The rule (:func:`should_pause`) is applied after every control, so the
    probability of a pause is that a random walk crosses :func:`pause_boundary`
    at least once, not the chance of being below it at the end. Each control is
    answered right independently with probability ``p``; a dynamic programme
    carries, control by control, the probability of each number right among
    the assessors not yet paused, and moves the mass at or below the boundary
    into "paused". Exact up to rounding (it sums probabilities, never
    subtracts them from 1, so tiny ones keep their digits); cost
    ``len(accuracy) x n^2 / 2`` additions.

    Parameters
    ----------
    accuracy : float or array_like of float
        True accuracies in [0, 1].
    n : int
        Controls each assessor answers, 0..10,000.
    threshold, minimum, level, method
        As :func:`should_pause`.

    Returns
    -------
    PauseRisk

    Examples
    --------
    >>> risk = pause_probability([0.85, 0.5], 100, threshold=0.7, minimum=10)
    >>> risk.probability.round(4).tolist()
    [0.002, 0.9952]
    """
    p = np.atleast_1d(np.asarray(accuracy, dtype=np.float64))
    if p.ndim != 1 or not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("accuracy must be a number or a 1-D array of numbers in [0, 1]")
    boundary = pause_boundary(n, threshold=threshold, minimum=minimum, level=level, method=method)
    if len(p) * n * n > _MAX_CELLS:
        raise ValueError(f"accuracy x n^2 must be at most {_MAX_CELLS:,} cells, got {len(p)} x {n}^2")
    alive = np.zeros((len(p), n + 1))
    alive[:, 0] = 1.0
    right, wrong = p[:, None], 1.0 - p[:, None]
    paused_at = np.zeros((len(p), n + 1))
    for m in range(1, n + 1):
        # Mass of k right after m - 1 controls moves to k (wrong) or k + 1 (right).
        previous = alive[:, :m].copy()
        alive[:, :m] = previous * wrong
        alive[:, 1 : m + 1] += previous * right
        cut = boundary[m] + 1
        if cut > 0:
            paused_at[:, m] = alive[:, :cut].sum(axis=1)
            alive[:, :cut] = 0.0
    by_control = np.cumsum(paused_at, axis=1)
    probability = by_control[:, -1].copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(probability > 0, paused_at @ np.arange(n + 1) / probability, np.nan)
    return PauseRisk(accuracy=p, probability=probability, by_control=by_control, expected_controls=expected)
