"""The clustering analysis's chart (scoring/charts.py specs, drawn by the generic ``chart`` tag)."""

from __future__ import annotations

from typing import Any

from scoring.charts import Axis, line

#: Figure 1's measures (Geiss, section 5.2), as (label, key in a split-merge step).
PATH_MEASURES = (
    ("V_beta", "v_beta"),
    ("V_0.5", "v_half"),
    ("NVI", "normalized_variation_of_information"),
    ("NMI", "nmi_arithmetic"),
    ("RI", "rand_index"),
    ("ARI", "adjusted_rand_index"),
    ("purity", "purity"),
    ("entropy", "entropy"),
    ("pair F", "pair_f"),
)


def split_merge(result: dict[str, Any]) -> dict[str, dict]:
    """Figure 1: every measure along the split-merge path. x is the step from the judge's own
    clustering (0): negative steps split at random down to all singletons (left), positive steps
    merge at random up to one cluster (right); the number of clusters at each step is in the
    Data table (as x it would fold the two halves onto each other).

    >>> step = {key: 0.5 for _, key in PATH_MEASURES}
    >>> spec = split_merge({"path": [{**step, "step": -1, "clusters": 4}, {**step, "step": 0, "clusters": 3}]})["path"]
    >>> spec["datasets"][0]["label"], spec["datasets"][0]["points"], spec["x"]["integer"]
    ('V_beta', [[-1, 0.5], [0, 0.5]], True)
    >>> spec["table"]["header"][:3], spec["table"]["rows"][0][:3]
    (['step (− split, + merge)', 'clusters', 'V_beta'], [-1, 4, 0.5])
    """
    path = result["path"]
    spec = line(
        "Scores along the split-merge path (Geiss, Figure 1)",
        Axis("step (− split, + merge)", integer=True),
        Axis("score against the judge's clustering (0-1; NVI and entropy: lower is closer)"),
        {label: [[step["step"], step[key]] for step in path] for label, key in PATH_MEASURES},
        caption="Step 0 is the judge's clustering; to its left clusters are split at random down to all "
        "singletons, to its right merged at random up to one cluster.",
    )
    clusters = {step["step"]: step["clusters"] for step in path}
    header = spec["table"]["header"]
    spec["table"] = {
        "header": [header[0], "clusters", *header[1:]],
        "rows": [[row[0], clusters.get(row[0]), *row[1:]] for row in spec["table"]["rows"]],
    }
    return {"path": spec}
