"""Chart series of the clustering analysis's result (drawn by the generic ``line_chart`` tag)."""

from __future__ import annotations

from typing import Any

from kinds.spec import Series

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


def split_merge(result: dict[str, Any]) -> dict[str, Series]:
    """Figure 1: every measure against the number of clusters along the split-merge path.

    >>> step = {key: 0.5 for _, key in PATH_MEASURES}
    >>> split_merge({"path": [{**step, "clusters": 3}]})["path"]["V_beta"]
    [[3, 0.5]]
    """
    path = result["path"]
    return {"path": {label: [[step["clusters"], step[key]] for step in path] for label, key in PATH_MEASURES}}
