"""Chart series of the system evaluation's result (drawn by the generic ``line_chart`` tag)."""

from __future__ import annotations

from typing import Any

from kinds.spec import Series


def evaluation(result: dict[str, Any]) -> dict[str, Series]:
    """Figure 6 (Arehart et al.): each system's F1 per truth set (x = the set's position), Random's mean last.

    >>> evaluation({"systems": ["A"], "f1": {"consensus": [0.5], "union": [0.4]}, "random_f1": {"mean": [0.45]}})
    {'f1': {'A': [[0, 0.5], [1, 0.4], [2, 0.45]]}}
    """
    truths = list(result["f1"])
    series: Series = {}
    for s, system in enumerate(result["systems"]):
        points = [[i, result["f1"][truth][s]] for i, truth in enumerate(truths)]
        if result.get("random_f1"):
            points.append([len(truths), result["random_f1"]["mean"][s]])
        series[system] = points
    return {"f1": series}
