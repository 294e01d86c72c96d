"""Chart series of the factoid analyses' results (drawn by the generic ``line_chart`` tag)."""

from __future__ import annotations

from typing import Any

from kinds.spec import Series


def growth(result: dict[str, Any]) -> dict[str, Series]:
    """Factoids (and factoids per sentence) against the number of summaries (Teufel & van Halteren, Figure 2).

    >>> growth({"sizes": [1, 2], "mean": [3.0, 5.0], "mean_per_sentence": [0.5, 0.6]})["mean"]
    {'mean': [[1, 3.0], [2, 5.0]]}
    """
    return {
        key: {key.replace("_", " "): [[n, v] for n, v in zip(result["sizes"], result[key])]}
        for key in ("mean", "mean_per_sentence")
    }


def stability(result: dict[str, Any]) -> dict[str, Series]:
    """Mean Spearman rho between two samples' WFS rankings against N model summaries.

    >>> stability({"stability": {"sizes": [1, 5], "mean_rho": [0.3, 0.8]}})
    {'rho': {'mean rho': [[1, 0.3], [5, 0.8]]}}
    """
    s = result["stability"]
    return {"rho": {"mean rho": [[n, v] for n, v in zip(s["sizes"], s["mean_rho"])]}}
