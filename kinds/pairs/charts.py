"""The system evaluation's chart (scoring/charts.py specs, drawn by the generic ``chart`` tag)."""

from __future__ import annotations

from typing import Any

from scoring.charts import Axis, line


def evaluation(result: dict[str, Any]) -> dict[str, dict]:
    """Figure 6 (Arehart et al.): each system's F1 per truth set, the truth sets by name on a
    categorical axis, Random's mean last.

    >>> spec = evaluation({"systems": ["A"], "f1": {"consensus": [0.5], "union": [0.4]}, "random_f1": {"mean": [0.45]}})["f1"]
    >>> spec["x"]["categories"], spec["datasets"][0]["points"]
    (['consensus', 'union', 'Random (mean)'], [['consensus', 0.5], ['union', 0.4], ['Random (mean)', 0.45]])
    """
    truths = list(result["f1"])
    categories = [*truths, *(["Random (mean)"] if result.get("random_f1") else [])]
    series = {}
    for s, system in enumerate(result["systems"]):
        points = [[truth, result["f1"][truth][s]] for truth in truths]
        if result.get("random_f1"):
            points.append(["Random (mean)", result["random_f1"]["mean"][s]])
        series[system] = points
    return {
        "f1": line(
            "F1 of every system under every truth set (Figure 6)",
            Axis("truth set", categories=categories),
            Axis("F1 (0-1)", min=0, max=1),
            series,
        )
    }
