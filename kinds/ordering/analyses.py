"""Orderings: the analyses an organiser runs as jobs (KindSpec ``Analysis`` entries).

Kim, Zhai & Han, "Aggregation of Multiple Judgments for Evaluating Ordered
Lists": noise robustness, ED of every method as random orderings join the
assessors' (section 5.4, Table 1); FreSPA's ED as each parameter varies
(5.5, Tables 2-4); FreSPA tuned to the best ED, applied to the campaign only
once an organiser confirms it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.params import Float, Int, ListOf, ParamsSchema
from kinds.ordering import stats as m
from kinds.ordering.report import ED_NAMES, frespa_setting, wca_weights
from scoring.selectors import ReportInput


def _golds_by_topic(input: ReportInput) -> dict[str, list[list[str]]]:

    external = {t.pk: t.external_id for t in input.topics}
    golds: dict[str, list[list[str]]] = {}
    for row in input.judgments:
        golds.setdefault(external[row.topic_id], []).append(row.payload["order"])
    usable = {t: g for t, g in golds.items() if len(g) >= 2}
    if not usable:
        raise InvalidInput("campaign", "no topic has two submitted orderings yet")
    return usable


def _reporter(progress: Callable[[float, str], None], start: float, span: float, what: str):
    return lambda done, total: progress(start + span * done / total, f"{what}: {done} of {total}")


def noise_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Table 1: ED of every method as random orderings are added; WCA under both
    weights, clamped and the paper's (``wca_weights`` says which the campaign's report uses)."""
    campaign = input.campaign
    golds = _golds_by_topic(input)
    ratios = params.get("ratios", [0, 0.25, 0.5, 0.75, 1])
    seeds = params.get("seeds", 10)
    setting = frespa_setting(campaign)
    methods = noise_methods()
    rows = []
    for index, (label, name, extra) in enumerate(methods):
        report = _reporter(progress, index / len(methods), 1 / len(methods), label)
        if name == "frespa":
            # Pattern lengths per topic size: one FreSPA per size class of topic.
            result = _noise_frespa(golds, setting, ratios, seeds, report)
        else:
            result = m.noise_robustness(golds, name, ratios=ratios, seeds=seeds, progress=report, **extra)
        rows.append({"method": label, **asdict(result)})
    return {"ratios": list(map(float, ratios)), "seeds": seeds, "wca_weights": wca_weights(campaign), "rows": rows}


def noise_methods() -> list[tuple[str, str, dict[str, Any]]]:
    """The noise analysis's columns: (label, ED name, keyword arguments), WCA once per weights.

    >>> [label for label, _, _ in noise_methods()][2:6]
    ['WCA-tau (clamped)', 'WCA-tau (paper)', 'WCA-Sp (clamped)', 'WCA-Sp (paper)']
    """
    methods: list[tuple[str, str, dict[str, Any]]] = []
    for label, name in ED_NAMES.items():
        if name.startswith("wca"):
            methods += [(f"{label} ({w})", name, {"weights": w}) for w in m.WCA_WEIGHTS]
        else:
            methods.append((label, name, {}))
    return methods


def _noise_frespa(golds, setting, ratios, seeds, report) -> m.NoiseRobustness:
    sizes: dict[int, dict[str, list[list[str]]]] = {}
    for topic, orderings in golds.items():
        sizes.setdefault(len(orderings[0]), {})[topic] = orderings
    results = [
        (
            len(group),
            m.noise_robustness(group, "frespa", ratios=ratios, seeds=seeds, progress=report, **setting.params(k)),
        )
        for k, group in sizes.items()
    ]
    weights = np.array([n for n, _ in results], float)
    ed = tuple(float(v) for v in np.average([r.ed for _, r in results], axis=0, weights=weights))
    max_min = ed[0] - ed[-1]
    return m.NoiseRobustness(tuple(map(float, ratios)), ed, max_min, 100 * max_min / ed[0] if ed[0] else float("nan"))


def sweep_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Tables 2-4: FreSPA's ED as each parameter varies."""
    campaign = input.campaign
    rows = m.frespa_sweep(
        _golds_by_topic(input), base=frespa_setting(campaign), progress=_reporter(progress, 0, 1, "settings")
    )
    return {"rows": [{"parameter": r.parameter, "value": r.value, "ed": r.ed} for r in rows]}


def tune_analysis(input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Pick the FreSPA parameters with the best ED; they change the campaign only once an
    organiser applies them (:func:`tuned_params`, scoring.services.apply_job)."""
    best = m.tune(_golds_by_topic(input), progress=_reporter(progress, 0, 0.95, "settings"))
    return {"setting": asdict(best.setting), "ed": best.ed, "settings_tried": best.n_settings}


def tuned_params(params: Mapping[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The campaign params with the ``frespa-tune`` result's setting (``Analysis.apply``)."""
    return {**params, "frespa": dict(result["setting"])}


#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py). Noise: measured on the ordering demo (6 topics, 4
#: orderings each), the defaults (5 ratios up to 1, 10 seeds) take 2.7 s;
#: the time grows with seeds x ratios x (orderings with the noise)^2, so the
#: bounds (50 seeds, 10 ratios up to 2) cost at most about 5 x 2 x 4 = 40
#: times that; memory stays small (ranks of topics x orderings x items).
#: The sweep and the tuning have fixed grids (PAPER_SWEEPS, TUNE_GRID).
ANALYSIS_PARAMS = {
    "noise": ParamsSchema(
        ListOf(
            "ratios",
            Float("ratio", min=0.0, max=2.0),
            [0, 0.25, 0.5, 0.75, 1],
            min_items=1,
            max_items=10,
            help="Noise ratios r: round(r x n) random orderings join the n of each topic (Table 1).",
        ),
        Int("seeds", 10, min=1, max=50, help="Random draws of the noise per ratio (seeds 0 .. seeds-1)."),
    ),
    "frespa-sweep": ParamsSchema(help="No params: the paper's sweeps (Tables 2-4)."),
    "frespa-tune": ParamsSchema(
        help="No params: a fixed grid of 54 settings; you review the best and may apply it to the campaign."
    ),
}


def orderings_ready(facts) -> str | None:
    """Why the ordering analyses cannot run yet (``Analysis.ready``), or None."""
    if facts.most_per_topic < 2:
        return "no topic has two submitted orderings yet"
    return None
