"""The nugget stability analysis's charts (scoring/charts.py specs, drawn by the generic ``chart`` tag)."""

from __future__ import annotations

from typing import Any

from scoring.charts import Axis, line


def stability(result: dict[str, Any]) -> dict[str, dict]:
    """Figures 2 and 3 (Lin & Demner-Fushman): mean Kendall tau and the share of
    zero-median questions against the number of assessors in the pyramid.

    >>> charts = stability({"figures_2_3": {"sizes": [1, 2], "mean_tau": [0.8, 0.9], "zero_median_fraction": [0.2, 0.0]}})
    >>> charts["mean_tau"]["datasets"][0]["points"], charts["zero_median_fraction"]["datasets"][0]["points"]
    ([[1, 0.8], [2, 0.9]], [[1, 0.2], [2, 0.0]])
    """
    figures = result["figures_2_3"]
    m = Axis("assessors in the pyramid, m (count)", integer=True)
    return {
        "mean_tau": line(
            "Ranking stability against pyramid size (Figure 2)",
            m,
            Axis("mean Kendall τ vs each assessor", max=1),
            {"mean τ": [[size, v] for size, v in zip(figures["sizes"], figures["mean_tau"])]},
        ),
        "zero_median_fraction": line(
            "Questions whose median score is zero (Figure 3)",
            m,
            Axis("share of questions (0-1)", min=0, max=1),
            {"zero-median share": [[size, v] for size, v in zip(figures["sizes"], figures["zero_median_fraction"])]},
        ),
    }
