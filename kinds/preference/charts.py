"""The leaderboard's chart: each system's score with its 95% interval (bootstrap over votes), one
row a system, best at the top. An SVG drawn on the server (the template
preference/score_chart.html): no script, every colour a class of static/concord.css (the over-time
chart's), and its numbers in a Data table beside it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from kinds.preference.report import PreferenceBoard

WIDTH, ROW, TOP, BOTTOM, LEFT, RIGHT = 640, 26, 10, 36, 150, 20


@dataclass(frozen=True)
class ChartRow:
    system: str
    y: float
    score: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class ScoreChart:
    width: int
    height: int
    left: int
    right: int
    bottom: float
    rows: list[ChartRow]
    ticks: list[Tick]
    title_at: tuple[float, float]


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _step(span: float) -> float:
    """A round tick step giving about five ticks over ``span``."""
    raw = span / 5 if span > 0 else 1.0
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def score_chart(board: PreferenceBoard) -> ScoreChart | None:
    """The chart of ``board``'s scores, or None without any finite score.

    >>> from kinds.preference.report import PreferenceBoard, PreferenceRow
    >>> from stats.intervals import FigureCI, no_ci
    >>> def row(name, score, low, high):
    ...     ci = FigureCI(score, low, high, units=40, unit="votes", method="bootstrap")
    ...     return PreferenceRow(name, 1, 1, 1, score, ci, ci, ci, ci, 40, 20, 20, 0)
    >>> board = PreferenceBoard("people", "", "", 1000.0, 40, 2, 10, ["a", "b"], [row("a", 1050, 1000, 1100), row("b", 950, 900, 1000)], [], [], [], [], None)
    >>> chart = score_chart(board)
    >>> [(r.system, round(r.score), round(r.low), round(r.high)) for r in chart.rows]
    [('a', 502, 385, 620), ('b', 268, 150, 385)]
    """
    scored = [r for r in board.rows if _finite(r.score)]
    if not scored:
        return None
    values = [r.score for r in scored] + [v for r in scored for v in (r.by_votes.low, r.by_votes.high) if _finite(v)]
    low, high = min(values), max(values)
    step = _step(high - low)
    start, stop = math.floor(low / step) * step, math.ceil(high / step) * step
    if stop == start:
        start, stop = start - step, stop + step
    height = TOP + ROW * len(scored) + BOTTOM
    inner = WIDTH - LEFT - RIGHT

    def x(value: float) -> float:
        return round(LEFT + (value - start) / (stop - start) * inner, 1)

    rows = [
        ChartRow(
            r.system,
            TOP + ROW * k + ROW / 2,
            x(r.score),
            x(r.by_votes.low) if _finite(r.by_votes.low) else None,
            x(r.by_votes.high) if _finite(r.by_votes.high) else None,
        )
        for k, r in enumerate(scored)
    ]
    count = int(round((stop - start) / step))
    ticks = [Tick(x(start + k * step), f"{start + k * step:g}") for k in range(count + 1)]
    bottom = TOP + ROW * len(scored)
    return ScoreChart(WIDTH, height, LEFT, WIDTH - RIGHT, bottom, rows, ticks, (LEFT + inner / 2, bottom + 32))
