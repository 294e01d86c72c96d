"""The ordering analyses' charts (scoring/charts.py specs, drawn by the generic ``chart`` tag)."""

from __future__ import annotations

from typing import Any

from scoring.charts import Axis, line

#: Each FreSPA parameter's axis title, with what its values mean.
PARAMETERS = {
    "min_sup": "min_sup (share of the assessors, 0-1)",
    "w_len": "w_len (weight of a pattern's length)",
    "w_sup": "w_sup (weight of a pattern's support)",
    "min_len_ratio": "min_len_ratio (share of the k items, 0-1)",
    "max_len_ratio": "max_len_ratio (share of the k items, 0-1)",
}

ED = "ED (edit distance to the assessors; lower is better)"


def noise(result: dict[str, Any]) -> dict[str, dict]:
    """Noise robustness (Kim, Zhai & Han, Table 1 as a chart): ED per method against the noise ratio.

    >>> spec = noise({"rows": [{"method": "AC-tau", "ratios": [0, 0.5], "ed": [0.4, 0.3]}]})["ed"]
    >>> spec["datasets"][0]["label"], spec["datasets"][0]["points"]
    ('AC-tau', [[0, 0.4], [0.5, 0.3]])
    """
    return {
        "ed": line(
            "ED of each method as random orderings are added (Table 1)",
            Axis("noise ratio r (random orderings per assessor)"),
            Axis(ED),
            {row["method"]: [[r, e] for r, e in zip(row["ratios"], row["ed"])] for row in result["rows"]},
        )
    }


def sweep(result: dict[str, Any]) -> dict[str, dict]:
    """FreSPA's parameter sweep: one small chart per parameter (ED against its values, as
    categories: the grids are uneven, e.g. w_len 0, 0.25, ..., 1, 5, ..., 100).

    >>> rows = [{"parameter": "min_sup", "value": 0.2, "ed": 1.0}, {"parameter": "min_sup", "value": 0.4, "ed": 2.0}]
    >>> spec = sweep({"rows": rows})["min_sup"]
    >>> spec["x"]["categories"], spec["datasets"][0]["points"]
    (['0.2', '0.4'], [['0.2', 1.0], ['0.4', 2.0]])
    """
    series: dict[str, list] = {}
    for row in result["rows"]:
        series.setdefault(row["parameter"], []).append([f"{row['value']:g}", row["ed"]])
    return {
        parameter: line(
            f"ED as {parameter} varies",
            Axis(PARAMETERS.get(parameter, parameter), categories=[value for value, _ in points]),
            Axis(ED),
            {"ED": points},
        )
        for parameter, points in series.items()
    }
