"""Chart series of the nugget stability analysis's result (drawn by the generic ``line_chart`` tag)."""

from __future__ import annotations

from typing import Any

from kinds.spec import Series


def stability(result: dict[str, Any]) -> dict[str, Series]:
    """Figures 2 and 3 (Lin & Demner-Fushman): mean Kendall tau and the share of
    zero-median questions against the number of assessors in the pyramid.

    >>> stability({"figures_2_3": {"sizes": [1, 2], "mean_tau": [0.8, 0.9], "zero_median_fraction": [0.2, 0.0]}})
    {'mean_tau': {'mean tau': [[1, 0.8], [2, 0.9]]}, 'zero_median_fraction': {'zero median fraction': [[1, 0.2], [2, 0.0]]}}
    """
    figures = result["figures_2_3"]
    return {
        key: {key.replace("_", " "): [[m, v] for m, v in zip(figures["sizes"], figures[key])]}
        for key in ("mean_tau", "zero_median_fraction")
    }
