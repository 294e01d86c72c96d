"""The preference report's template helpers: its SVG chart (kinds/preference/charts.py)."""

from __future__ import annotations

from django import template

from kinds.preference.charts import ScoreChart, score_chart
from kinds.preference.report import PreferenceBoard

register = template.Library()


@register.filter
def scores_chart(board: PreferenceBoard) -> ScoreChart | None:
    """``{% with chart=board|scores_chart %}``: the chart of a leaderboard's scores."""
    return score_chart(board)


@register.filter
def cell(matrix: list, index: int) -> object:
    """``row|cell:k``: the k-th entry of a matrix's row (None past its end)."""
    return matrix[index] if 0 <= index < len(matrix) else None
