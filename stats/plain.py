r"""Agreement figures in plain words: one sentence beside a figure, for a reader who is not a
statistician, written from the figure, its 95% interval and its stop signal.

What a figure is comes from the kind that reports it, as a :class:`Reading`: the scale
its words come from (:data:`SCALES`), the figure's short name in the sentence, and the
section of docs/methods.md that explains it ("Reading a figure in plain words"). The
words of each scale:

* ``kappa``: chance-corrected agreement (Cohen's, Fleiss' kappa; Gwet's AC1 and AC2),
  in the bands of Landis, J. R. & Koch, G. G. (1977), "The measurement of observer
  agreement for categorical data", Biometrics 33(1):159-174, p. 165: below 0.00 poor,
  0.00-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 substantial,
  0.81-1.00 almost perfect (each band holds the values above the one before it up to its
  own top: 0.20 is slight, 0.205 fair).
* ``alpha``: Krippendorff's alpha, against Krippendorff, K. (2004), *Content Analysis: An
  Introduction to Its Methodology*, 2nd ed., section 12.3, p. 241: rely on data with alpha
  of at least 0.800, draw only tentative conclusions from alpha between 0.667 and 0.800,
  and none below.
* ``tau``: a rank correlation (Kendall's tau between two orderings). No published band;
  the plain reading is what tau counts (Kendall, M. G. (1938), "A new measure of rank
  correlation", Biometrika 30(1/2):81-93): of every two items, the share two assessors put
  in the same order is :math:`(1 + \tau)/2` (exact for orderings without ties, and for a
  mean of taus the mean of those shares), against 50% by chance.
* ``v-measure``: a similarity of clusterings (V-measure, V_beta; 1 for identical
  clusterings). No published band either: the words compare the figure with the random
  baseline the kind gives (random clusterings of the same shape: Geiss 2009, Table 3),
  or without one place it on the scale from 0 to 1.

The interval shapes the words: an interval across a band's edge says "between" the two
bands; one reaching 0 (chance, for kappa, alpha and tau) or the random baseline says the
agreement "may be no better" than it; a figure on too few units for an interval (fewer than
``stats.stopping.MIN_UNITS``) gets no band at all, only "too few to judge". The sentence
ends with the stop signal's remaining work ("about 290 more items would make the interval
±0.05") or says the interval is precise enough. Numbers are rounded for people: two
decimals (more only where two would put a figure on the other side of a band's edge),
counts of units to two significant figures.

:func:`too_few_shared` is the rule for a figure of two assessors (or of one) on too few
items, shown as an em dash with its reason instead of a number (:data:`MIN_SHARED`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from stats.intervals import DEFAULT_PRECISION
from stats.stopping import MIN_UNITS, StopSignal, stop_signal

__all__ = [
    "KENDALL_HELP",
    "KRIPPENDORFF_HELP",
    "LANDIS_KOCH_HELP",
    "MIN_SHARED",
    "V_MEASURE_HELP",
    "Band",
    "Reading",
    "SCALES",
    "Scale",
    "about",
    "band_of",
    "number",
    "sentence",
    "too_few_shared",
]

#: The sections of docs/methods.md ("Reading a figure in plain words") that explain each
#: scale's words, for a :class:`Reading`'s ``help`` (tests/stats/test_plain.py finds each there).
LANDIS_KOCH_HELP = "kappa-and-ac1-landis-and-kochs-scale"
KRIPPENDORFF_HELP = "krippendorffs-alpha-krippendorffs-standard"
KENDALL_HELP = "kendalls-tau-items-in-the-same-order"
V_MEASURE_HELP = "v-measure-against-random-clusterings"

#: Fewest shared items on which a figure of two assessors (Cohen's kappa, AC1, observed
#: agreement, overlap) is shown, and fewest items for a figure of one assessor (a
#: Dawid-Skene reliability). On one item every such figure is fixed by that one item:
#: observed agreement and overlap are 1 or 0, Cohen's kappa is 0/0 when the two agree and
#: exactly 0 when they do not (each assessor's only label makes the chance agreement 0),
#: AC1 is 1 or -1, whatever the assessors are like. It describes the item, not them. From
#: two items on, the figure depends on how each assessor uses the labels.
MIN_SHARED = 2


@dataclass(frozen=True)
class Band:
    """One band of a scale: its ``words`` and its bottom, ``above``: the band holds the
    values above it, and the value itself when ``closed``."""

    words: str
    above: float
    closed: bool = False

    def holds(self, value: float) -> bool:
        """Whether ``value`` is in this band or a higher one.

        >>> Band("fair", 0.20).holds(0.20), Band("fair", 0.20).holds(0.2001)
        (False, True)
        """
        return value > self.above or (self.closed and value == self.above)


@dataclass(frozen=True)
class Scale:
    """The words of one kind of figure: what it ``measures``, its ``bands`` from the lowest
    up (empty: comparative words only), whose standard they are (``source``) and the value
    that means chance (``chance``; None: none)."""

    measures: str
    bands: tuple[Band, ...]
    source: str
    chance: float | None


#: The scales a :class:`Reading` names (see the module's docstring for their sources).
SCALES: dict[str, Scale] = {
    "kappa": Scale(
        measures="chance-corrected agreement",
        bands=(
            Band("slight", 0.0, closed=True),
            Band("fair", 0.20),
            Band("moderate", 0.40),
            Band("substantial", 0.60),
            Band("almost perfect", 0.80),
        ),
        source="on Landis & Koch's scale",
        chance=0.0,
    ),
    "alpha": Scale(
        measures="chance-corrected agreement",
        bands=(
            Band("too low to rely on", 0.0, closed=True),
            Band("good enough for tentative conclusions only", 0.667, closed=True),
            Band("reliable", 0.800, closed=True),
        ),
        source="by Krippendorff's standard",
        chance=0.0,
    ),
    "tau": Scale(measures="rank correlation", bands=(), source="", chance=0.0),
    "v-measure": Scale(measures="clustering similarity", bands=(), source="", chance=None),
}


@dataclass(frozen=True)
class Reading:
    """What a headline figure is, as its kind declares it (``kinds.spec.Headline.reading``).

    ``scale``: a key of :data:`SCALES`; ``symbol``: the figure's short name in the
    sentence ("kappa", "mean τ"); ``help``: the anchor of the docs/methods.md section that
    explains the words; ``baseline``: for ``v-measure``, the value random clusterings of the
    same shape get (None: not known).

    >>> Reading("kappa", "kappa", "kappa-landis-and-kochs-scale").measures
    'chance-corrected agreement'
    """

    scale: str
    symbol: str
    help: str
    baseline: float | None = None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"scale must be one of {sorted(SCALES)}, got {self.scale!r}")

    @property
    def measures(self) -> str:
        """What the figure measures, in words."""
        return SCALES[self.scale].measures


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def number(value: float, *, edges: tuple[float, ...] = ()) -> str:
    """``value`` for people: two decimals, a true minus sign, never "-0.00"; more decimals (up
    to four) only where two would put it on the other side of one of ``edges``.

    >>> number(0.7472), number(-0.041), number(-0.001)
    ('0.75', '−0.04', '0.00')
    >>> number(0.6664, edges=(0.667, 0.8)), number(0.6664)
    ('0.666', '0.67')
    """
    for digits in (2, 3, 4):
        shown = round(value, digits)
        if all((shown > edge) == (value > edge) and (shown == edge) == (value == edge) for edge in edges):
            break
    text = f"{shown:.{digits}f}"
    if text.startswith("-"):
        text = "0.00" if float(text) == 0 else "−" + text[1:]
    return text


def about(units: int) -> str:
    """A count for people: as it is below 100, else to two significant figures, with
    thousands separated.

    >>> about(7), about(45), about(293), about(1346), about(25_049)
    ('7', '45', '290', '1,300', '25,000')
    """
    if units < 100:
        return str(units)
    magnitude = 10 ** (len(str(units)) - 2)
    return f"{round(units / magnitude) * magnitude:,}"


def _unit(units: int, unit: str) -> str:
    return unit[:-1] if units == 1 and unit.endswith("s") else unit


def band_of(value: float, scale: str) -> str | None:
    """The words of the band of ``scale`` that holds ``value`` (None: below every band, or a
    scale without bands).

    >>> band_of(0.747, "kappa"), band_of(0.20, "kappa"), band_of(0.21, "kappa"), band_of(-0.1, "kappa")
    ('substantial', 'slight', 'fair', None)
    >>> band_of(0.800, "alpha"), band_of(0.7999, "alpha")
    ('reliable', 'good enough for tentative conclusions only')
    """
    found = None
    for band in SCALES[scale].bands:
        if band.holds(value):
            found = band.words
    return found


def sentence(
    figure, reading: Reading, *, precision: float = DEFAULT_PRECISION, signal: StopSignal | None = None
) -> str:
    """The plain reading of ``figure`` (anything with ``value``, ``low``, ``high``, ``units``,
    ``unit``, ``level`` and ``too_few``: a :class:`stats.intervals.FigureCI`), as ``reading``
    says what it is, with the remaining work of its stop signal against ``precision`` (the
    wanted half-width; ``signal``: :func:`stats.stopping.stop_signal`'s, computed when None).

    >>> from stats.intervals import FigureCI, too_few_ci
    >>> kappa = Reading("kappa", "kappa", "kappa-landis-and-kochs-scale")
    >>> sentence(FigureCI(0.747, 0.664, 0.824, units=188, unit="items", method="bootstrap"), kappa)
    "Agreement beyond chance is between substantial and almost perfect on Landis & Koch's scale (kappa 0.75, 95% interval 0.66 to 0.82): about 290 more items would make the interval ±0.05."
    >>> sentence(FigureCI(0.72, 0.69, 0.74, units=900, unit="items", method="bootstrap"), kappa)
    "Agreement beyond chance is substantial on Landis & Koch's scale (kappa 0.72, 95% interval 0.69 to 0.74): precise enough, the interval is within ±0.05."
    >>> sentence(FigureCI(0.05, -0.04, 0.14, units=300, unit="items", method="bootstrap"), kappa, precision=0.1)
    'Agreement may be no better than chance (kappa 0.05, 95% interval −0.04 to 0.14): precise enough, the interval is within ±0.1.'
    >>> sentence(too_few_ci(0.619, 8, "topics"), Reading("tau", "mean τ", "kendalls-tau-pairs-in-the-same-order"))
    'Too few topics to judge yet: mean τ 0.62 rests on 8 topics, and an interval needs at least 30.'
    """
    scale = SCALES[reading.scale]
    value, unit, units = figure.value, figure.unit, int(figure.units)
    if not _finite(value):
        symbol = reading.symbol[:1].upper() + reading.symbol[1:]
        return f"{symbol} is not defined on these judgments yet, so there is nothing to read."
    signal = signal if signal is not None else stop_signal(figure, precision)
    shown = number(value, edges=_edges(reading))
    if getattr(figure, "too_few", False) or signal.too_few is not None:
        need = signal.too_few.need if signal.too_few is not None else MIN_UNITS
        return (
            f"Too few {unit} to judge yet: {reading.symbol} {shown} rests on {units} {_unit(units, unit)}, "
            f"and an interval needs at least {need}."
        )
    if not (_finite(figure.low) and _finite(figure.high)):
        return f"No interval yet, so the agreement cannot be judged ({reading.symbol} {shown} on {units} {_unit(units, unit)})."
    low, high = figure.low, figure.high
    level = round(figure.level * 100)
    numbers = (
        f"{reading.symbol} {shown}, {level}% interval "
        f"{number(low, edges=_edges(reading))} to {number(high, edges=_edges(reading))}"
    )
    note = ""
    if reading.scale == "tau":
        words = _tau_words(low, high)
    elif reading.scale == "v-measure":
        words, note = _clustering_words(low, high, reading.baseline)
    else:
        words = _band_words(low, high, reading.scale, scale)
    work = _work(signal, unit, precision)
    return f"{words} ({numbers}{'; ' + note if note else ''}){': ' + work if work else ''}."


def _edges(reading: Reading) -> tuple[float, ...]:
    scale = SCALES[reading.scale]
    edges = [band.above for band in scale.bands]
    if scale.chance is not None:
        edges.append(scale.chance)
    if reading.baseline is not None and _finite(reading.baseline):
        edges.append(reading.baseline)
    return tuple(sorted(set(edges)))


def _band_words(low: float, high: float, key: str, scale: Scale) -> str:
    """Words from a scale's bands: "Agreement beyond chance is substantial on Landis & Koch's scale"."""
    if high < scale.chance:
        return "Agreement is worse than chance"
    if low <= scale.chance:
        return "Agreement may be no better than chance"
    bottom, top = band_of(low, key), band_of(high, key)
    subject = "Agreement beyond chance is" if key == "kappa" else "Agreement is"
    if bottom == top:
        return f"{subject} {bottom} {scale.source}"
    return f"{subject} between {_band_name(bottom)} and {_band_name(top)} {scale.source}"


def _band_name(words: str) -> str:
    # "between good enough for tentative conclusions only and reliable" would say "only" of a range
    return words.removesuffix(" only")


def _share(tau: float) -> str:
    return f"{round(50 * (1 + tau))}%"


def _tau_words(low: float, high: float) -> str:
    """Words of a rank correlation: the share of item pairs two assessors put in the same order."""
    shares = f"{_share(low)} to {_share(high)}" if _share(low) != _share(high) else _share(low)
    if high < 0:
        return f"Two assessors put any two items in opposite orders more often than alike: in the same order {shares} of the time, against 50% by chance"
    if low <= 0:
        return f"Two assessors may order items no more alike than chance: any two items in the same order {shares} of the time, against 50% by chance"
    return f"Two assessors put any two items in the same order {shares} of the time, against 50% by chance"


def _clustering_words(low: float, high: float, baseline: float | None) -> tuple[str, str]:
    """Words of a similarity of clusterings, and a note for the parenthesis: against random
    clusterings when their value is known."""
    if baseline is None or not _finite(baseline):
        return (
            f"The clusterings score {number(low)} to {number(high)}, where 0 is nothing in common and 1 identical",
            "",
        )
    note = f"random ones score {number(baseline, edges=(low, high))}"
    if high < baseline:
        return "The clusterings agree less than random clusterings of the same shape would", note
    if low <= baseline:
        return "The clusterings may agree no more than random clusterings of the same shape would", note
    return "The clusterings agree more than random clusterings of the same shape would", note


def _work(signal: StopSignal, unit: str, precision: float) -> str:
    """The stop signal's remaining work, in words ("" when it cannot be told)."""
    wanted = f"±{precision:g}"
    if signal.reached:
        return f"precise enough, the interval is within {wanted}"
    if signal.more_units:
        return (
            f"about {about(signal.more_units)} more {_unit(signal.more_units, unit)} would make the interval {wanted}"
        )
    return ""


def too_few_shared(n: int, unit: str = "items", *, shared: bool = True) -> str | None:
    """The short reason a figure on ``n`` items is shown as an em dash (fewer than
    :data:`MIN_SHARED`), or None when it is shown; ``shared``: items two assessors share
    (False: one assessor's).

    >>> too_few_shared(1), too_few_shared(1, "documents"), too_few_shared(2)
    ('1 shared item: too few', '1 shared document: too few', None)
    >>> too_few_shared(1, "labels", shared=False), too_few_shared(0)
    ('1 label: too few', '0 shared items: too few')
    """
    if n >= MIN_SHARED:
        return None
    return f"{n} {'shared ' if shared else ''}{_unit(n, unit)}: too few"
