"""Chart series of the ordering analyses' results (drawn by the generic ``line_chart`` tag)."""

from __future__ import annotations

from typing import Any

from kinds.spec import Series


def noise(result: dict[str, Any]) -> dict[str, Series]:
    """Noise robustness (Shoji et al., Table 3 as a chart): ED per method against the noise ratio.

    >>> noise({"rows": [{"method": "AC-tau", "ratios": [0, 0.5], "ed": [0.4, 0.3]}]})
    {'ed': {'AC-tau': [[0, 0.4], [0.5, 0.3]]}}
    """
    return {"ed": {row["method"]: [[r, e] for r, e in zip(row["ratios"], row["ed"])] for row in result["rows"]}}


def sweep(result: dict[str, Any]) -> dict[str, Series]:
    """FreSPA's parameter sweep: ED against each parameter's value, one line per parameter.

    >>> sweep({"rows": [{"parameter": "min_sup", "value": 0.2, "ed": 1.0}, {"parameter": "min_sup", "value": 0.4, "ed": 2.0}]})
    {'ed': {'min_sup': [[0.2, 1.0], [0.4, 2.0]]}}
    """
    series: Series = {}
    for row in result["rows"]:
        series.setdefault(row["parameter"], []).append([row["value"], row["ed"]])
    return {"ed": series}
