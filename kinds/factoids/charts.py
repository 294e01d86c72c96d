"""The factoid analyses' charts (scoring/charts.py specs, drawn by the generic ``chart`` tag)."""

from __future__ import annotations

from typing import Any

from scoring.charts import Axis, box, line


def growth(result: dict[str, Any]) -> dict[str, dict]:
    """Factoids (and factoids per sentence) against the number of summaries (van Halteren & Teufel, Figure 4).

    >>> charts = growth({"sizes": [1, 2], "mean": [3.0, 5.0], "mean_per_sentence": [0.5, 0.6]})
    >>> charts["mean"]["datasets"][0]["points"], charts["mean"]["x"]["integer"]
    ([[1, 3.0], [2, 5.0]], True)
    """
    summaries = Axis("reference summaries drawn (count)", integer=True)
    return {
        "mean": line(
            "Factoids as summaries are added",
            summaries,
            Axis("factoids (mean count over draws)", min=0),
            {"factoids": [[n, v] for n, v in zip(result["sizes"], result["mean"])]},
        ),
        "mean_per_sentence": line(
            "Factoids per sentence as summaries are added",
            summaries,
            Axis("factoids per sentence (mean)", min=0),
            {"factoids per sentence": [[n, v] for n, v in zip(result["sizes"], result["mean_per_sentence"])]},
        ),
    }


def stability(result: dict[str, Any]) -> dict[str, dict | None]:
    """Figure 5: mean Spearman rho between two samples' WFS rankings against N model summaries;
    Figures 6-7: every summary's score over the draws at N, model summaries first, each box labelled.

    >>> charts = stability({"stability": {"sizes": [1, 5], "mean_rho": [0.3, 0.8]},
    ...     "summaries": [{"id": "S1", "model": False}, {"id": "M1", "model": True}],
    ...     "distribution": {"n": 10, "scores": [[1, 10], [3, 20], [5, 30]]}})
    >>> charts["rho"]["datasets"][0]["points"]
    [[1, 0.3], [5, 0.8]]
    >>> charts["box"]["x"]["categories"], [b["median"] for b in charts["box"]["boxes"]]
    (['M1', 'S1'], [20.0, 3.0])
    """
    s = result["stability"]
    summaries = result["summaries"]
    order = sorted(range(len(summaries)), key=lambda i: (not summaries[i]["model"], summaries[i]["id"]))
    scores = result["distribution"]["scores"]
    n = result["distribution"]["n"]
    return {
        "rho": line(
            "Stability of the WFS ranking (Figure 5)",
            Axis("N reference summaries per sample (count)", integer=True),
            Axis("mean Spearman ρ between two samples' rankings", max=1),
            {"mean ρ": [[size, v] for size, v in zip(s["sizes"], s["mean_rho"])]},
        ),
        "box": box(
            f"Weighted factoid score of every summary over the draws at N = {n} (Figures 6, 7)",
            Axis("summary"),
            Axis("weighted factoid score (WFS)", min=0),
            [summaries[i]["id"] for i in order],
            ["reference summary" if summaries[i]["model"] else "machine summary" for i in order],
            [[row[i] for i in order] for row in scores],
            caption="Boxes: quartiles and median; whiskers: 5th and 95th percentiles.",
        ),
    }
