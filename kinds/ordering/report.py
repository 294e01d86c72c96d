"""Orderings: agreement between assessors, consensus, and run scores.

Kim, Zhai & Han, "Aggregation of Multiple Judgments for Evaluating Ordered
Lists" (ordered-lists_kim-zhai-han.txt): Kendall's tau between assessors
(section 4.1), the rank-based consensus (4.3), run scores under AC, WCA, RBA
and FreSPA (4.1-4.4), ED per method (5.2); analyses: noise robustness
(5.4, Table 1), FreSPA parameter sweeps and tuning (5.5, Tables 2-4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Run, Topic
from concord.errors import InvalidInput
from concord.params import Float, Int, ListOf, ParamsSchema
from concord.typed import Figure
from kinds.disagreement import pairwise_disagreement
from kinds.ordering import stats as m
from kinds.spec import Disagreement, Export, ExportFile, Headline
from scoring.csvfiles import write_csv
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput, curations_of
from stats.intervals import FigureCI, IntervalSettings, interval_settings
from stats.uncertainty import mean_units

EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: each topic's rank-based consensus ordering (items by summed rank over the submitted orderings, "
    "ties as in the first ordering), with how many orderings it rests on. adjudicated: the adjudicated ordering "
    "where a topic has one, else the consensus, with its source (adjudicated / consensus), who adjudicated and "
    "when. judgments: every submitted ordering."
)

#: Run-scoring methods (KZH Table 1), as (label, function, keyword arguments).
METHODS: dict[str, tuple[Callable[..., float], dict[str, Any]]] = {
    "AC-tau": (m.average_correlation, {"measure": "tau"}),
    "AC-Sp": (m.average_correlation, {"measure": "spearman"}),
    "WCA-tau": (m.weighted_correlation, {"measure": "tau"}),
    "WCA-Sp": (m.weighted_correlation, {"measure": "spearman"}),
    "RBA-tau": (m.rank_based, {"measure": "tau"}),
    "RBA-Sp": (m.rank_based, {"measure": "spearman"}),
    "FreSPA": (m.frespa, {}),
}
#: The names :func:`kinds.ordering.stats.discriminativeness` knows them by.
ED_NAMES = dict(zip(METHODS, m.METHODS))


#: What the report says of each WCA convention (campaign param ``wca_weights``).
WCA_NOTES = {
    "clamped": "negative weights taken as 0 (Concord's default)",
    "paper": "the paper's formula, negative weights included (scores may leave [-1, 1])",
}


def wca_weights(campaign: Campaign) -> str:
    """The campaign's WCA weights: ``clamped`` (default) or ``paper`` (param ``wca_weights``)."""
    return campaign.params.get("wca_weights") or "clamped"


def frespa_setting(campaign: Campaign) -> m.FrespaSetting:
    """The campaign's FreSPA parameters: tuned and saved, or the paper's defaults."""
    return m.FrespaSetting(**campaign.params.get("frespa", {}))


def consensus_order(orders: Sequence[list[str]]) -> list[str]:
    """The rank-based consensus of ``orders`` (KZH section 4.3): items by summed
    rank, ties as in the first ordering (the ``consensus`` export, the
    adjudication page's "Accept the consensus")."""
    return m.rank_consensus(list(orders))


def golds_of(judgments: Sequence[JudgmentRow]) -> dict[str, list[str]]:
    return {j.assessor: j.payload["order"] for j in sorted(judgments, key=lambda j: j.assessor)}


def score_run(
    order: list[str], golds: list[list[str]], setting: m.FrespaSetting, wca: str = "clamped"
) -> dict[str, float]:
    scores = {}
    for label, (function, params) in METHODS.items():
        if function is m.frespa:
            params = setting.params(len(order))
        elif function is m.weighted_correlation:
            params = {**params, "weights": wca}
        scores[label] = float(function(order, golds, **params))
    return scores


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class OrderingItem:
    """One item of a topic's rank-based consensus ordering (section 4.3), with its text."""

    id: str
    text: str


@dataclass(frozen=True)
class OrderingTopicReport:
    """One topic: Kendall's tau between its assessors (section 4.1), their
    consensus (4.3) and each run's score under every method (4.1-4.4)."""

    #: the assessors who submitted an ordering of the topic, by name
    assessors: list[str]
    #: assessors x assessors Kendall tau (1 on the diagonal)
    tau: list[list[Figure]]
    #: the mean of the off-diagonal taus (undefined with fewer than two assessors)
    mean_tau: Figure
    consensus: list[OrderingItem]
    #: run name -> method label (:data:`METHODS`) -> the run's score on this topic
    runs: dict[str, dict[str, Figure]]
    #: the WCA weights of the runs' WCA scores (campaign param ``wca_weights``): clamped or paper
    wca_weights: str = "clamped"

    @property
    def methods(self) -> list[str]:
        """The method labels of the runs' scores (the runs table's columns)."""
        return list(next(iter(self.runs.values()), {}))


@dataclass(frozen=True)
class OrderingRun:
    """One run over the campaign: its mean score per method over the ``topics``
    it ordered that have a gold (sections 4.1-4.4), and its rank among the runs
    per method (methods where its score is undefined give no rank)."""

    run: str
    topics: int
    #: method label -> mean score
    scores: dict[str, Figure]
    #: method label -> rank (1 is best)
    ranks: dict[str, int]


@dataclass(frozen=True)
class OrderingTopicSummary:
    """One topic in the campaign report: how many orderings it has and their mean Kendall tau (section 4.1)."""

    orderings: int
    mean_tau: Figure


@dataclass(frozen=True)
class OrderingCampaignReport:
    """The campaign: ED of every method (section 5.2), the FreSPA setting in
    use (Table 3), the runs ranked per method, and each topic's consensus (4.3)."""

    topics: int
    topics_with_two_or_more: int
    #: method label -> evaluation discriminativeness over the topics with two or more orderings
    ed: dict[str, Figure]
    frespa: m.FrespaSetting
    runs: list[OrderingRun]
    #: topic external id -> consensus ordering (item ids)
    consensus: dict[str, list[str]]
    #: topic external id -> its orderings and mean tau
    per_topic: dict[str, OrderingTopicSummary]
    #: the WCA weights in use (campaign param ``wca_weights``): clamped (negative as 0) or paper
    wca_weights: str
    #: mean pairwise Kendall tau between assessors (section 4.1): the mean over the topics with two
    #: or more orderings of each topic's mean tau, with its bootstrap interval over those topics
    mean_tau: FigureCI
    kind: Literal["ordering"] = "ordering"


def topic_report(input: ReportInput, topic: Topic) -> OrderingTopicReport:
    judgments, runs = input.judgments_of(topic), input.runs
    golds = golds_of(judgments)
    assessors = list(golds)
    tau: list[list[float | None]] = [[1.0 if a == b else None for b in assessors] for a in assessors]
    pairwise = m.kendall_tau_matrix(list(golds.values())) if len(golds) >= 2 else None
    for i, j in combinations(range(len(assessors)), 2):
        tau[i][j] = tau[j][i] = float(pairwise[i, j])
    texts = {item["id"]: item["text"] for item in topic.data["items"]}
    consensus = m.rank_consensus(list(golds.values())) if golds else []
    setting, wca = frespa_setting(topic.campaign), wca_weights(topic.campaign)
    run_scores = {
        run.name: score_run(run.data["orderings"][topic.external_id], list(golds.values()), setting, wca)
        for run in runs
        if golds and topic.external_id in run.data.get("orderings", {})
    }
    return OrderingTopicReport(
        assessors=assessors,
        tau=tau,
        mean_tau=_mean_off_diagonal(tau),
        consensus=[OrderingItem(id=item, text=texts[item]) for item in consensus],
        runs=run_scores,
        wca_weights=wca,
    )


def campaign_report(input: ReportInput) -> OrderingCampaignReport:
    """The campaign report from every topic's partial (``scoring.partials.from_scratch``):
    what the stored partials merge to (:func:`merge`)."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


# -- incremental reports: per-topic partials and their merge (scoring/partials.py) ------------


@dataclass(frozen=True)
class OrderingPartial:
    """What the campaign report needs of one topic, computed when the topic changes:
    its submitted orderings' count, rank-based consensus (tie break: the first
    ordering, assessors by name) and mean pairwise Kendall tau, its ED under every
    method (section 5.2; a topic's ED does not depend on other topics: ED over
    topics is the mean of the topics' EDs) and every run's scores on it."""

    #: submitted orderings of the topic
    orderings: int
    #: the topic's consensus ordering (item ids); empty with no ordering
    consensus: list[str]
    #: mean pairwise Kendall tau of its orderings (NaN with fewer than two)
    mean_tau: float
    #: ED per method in :data:`METHODS` order; empty with fewer than two orderings
    ed: list[float]
    #: the runs that ordered the topic (only when it has an ordering), by name
    run_names: list[str]
    #: run x method (:data:`METHODS` order): the run's score on the topic
    run_scores: list[list[float]]


def topic_partial(input: ReportInput, topic: Topic, report: OrderingTopicReport) -> OrderingPartial:
    """The topic's :class:`OrderingPartial`, from its judgments and its report (the
    consensus, tau matrix and run scores the report computed from the same orderings
    in the same order, assessors by name)."""
    orders = [row.payload["order"] for row in input.judgments_of(topic)]
    n = len(orders)
    taus = [report.tau[i][j] for i, j in combinations(range(n), 2)]
    return OrderingPartial(
        orderings=n,
        consensus=[item.id for item in report.consensus],
        mean_tau=float(np.mean(taus)) if taus else float("nan"),
        ed=topic_eds(orders, frespa_setting(input.campaign), wca_weights(input.campaign)) if n >= 2 else [],
        run_names=list(report.runs),
        run_scores=[[float(scores[label]) for label in METHODS] for scores in report.runs.values()],
    )


def topic_eds(orders: list[list[str]], setting: m.FrespaSetting, wca: str = "clamped") -> list[float]:
    """ED of one topic's orderings (two or more) under every method, in :data:`METHODS` order:
    WCA with the weights ``wca``, FreSPA with ``setting``'s lengths for the topic's size."""
    methods = []
    for label, name in ED_NAMES.items():
        if label == "FreSPA":
            params: dict[str, Any] = setting.params(len(orders[0]))
        else:
            params = {"weights": wca} if name.startswith("wca") else {}
        methods.append((name, params))
    return m.discriminativeness_each(orders, methods)


def merge(given: MergeInput, partials: Sequence[OrderingPartial]) -> OrderingCampaignReport:
    """The campaign report from every topic's partial (in topic order): ED per method is
    the mean of the usable topics' EDs, a run's score the mean of its topics' scores,
    the mean tau the mean (and bootstrap interval) of the topics' mean taus."""
    campaign, topics, runs = given.campaign, given.topics, given.runs
    setting, wca = frespa_setting(campaign), wca_weights(campaign)
    counts = np.fromiter((p.orderings for p in partials), dtype=np.int64, count=len(partials))
    judged = np.flatnonzero(counts > 0)
    usable = np.flatnonzero(counts >= 2)
    # Consensus and per-topic rows by topic id, as the report always listed them.
    by_id = sorted(judged.tolist(), key=lambda i: topics[i].pk)
    taus = np.fromiter((partials[i].mean_tau for i in judged), dtype=np.float64, count=len(judged))
    if len(usable):
        # Topics x methods, transposed so that each method's mean sums a contiguous row.
        eds = np.ascontiguousarray(np.array([partials[i].ed for i in usable], dtype=np.float64).T)
        ed = {label: float(np.mean(row)) for label, row in zip(METHODS, eds)}
    else:
        ed = {label: float("nan") for label in METHODS}
    return OrderingCampaignReport(
        topics=len(topics),
        topics_with_two_or_more=len(usable),
        ed=ed,
        frespa=setting,
        runs=merge_runs(runs, partials),
        consensus={topics[i].external_id: list(partials[i].consensus) for i in by_id},
        per_topic={
            topics[i].external_id: OrderingTopicSummary(orderings=int(counts[i]), mean_tau=partials[i].mean_tau)
            for i in by_id
        },
        wca_weights=wca,
        mean_tau=mean_tau_ci(taus, interval_settings(campaign.params)),
    )


def merge_runs(runs: Sequence[Run], partials: Sequence[OrderingPartial]) -> list[OrderingRun]:
    """Each run's mean score over the topics it ordered that have an ordering, per method,
    with its rank."""
    index = {run.name: r for r, run in enumerate(runs)}
    which = [index.get(name, -1) for p in partials for name in p.run_names]
    scores = [row for p in partials for row in p.run_scores]
    owner = np.array(which, dtype=np.int64)
    table = np.array(scores, dtype=np.float64).reshape(len(scores), len(METHODS))
    order = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[order], np.arange(len(runs) + 1))
    columns = np.ascontiguousarray(table[order].T)
    topics, means = [], []
    for r in range(len(runs)):
        block = columns[:, bounds[r] : bounds[r + 1]]
        topics.append(block.shape[1])
        means.append(
            {label: float(np.mean(block[c])) if block.shape[1] else float("nan") for c, label in enumerate(METHODS)}
        )
    return _ranked(runs, topics, means)


def mean_tau_ci(topic_taus: Sequence[float], settings: IntervalSettings) -> FigureCI:
    """The mean over topics of each topic's mean pairwise Kendall tau, with its seeded
    bootstrap interval over the topics (``topic_taus`` in topic order; NaN: a topic with
    fewer than two orderings, left out of the mean and of the units).

    >>> ci = mean_tau_ci([0.2, 0.6, float("nan"), 1.0], IntervalSettings(resamples=200))
    >>> round(ci.value, 12), ci.units, ci.unit, ci.low <= ci.value <= ci.high
    (0.6, 3, 'topics', True)
    """
    finite = [float(t) for t in topic_taus if t == t]
    return settings.interval(mean_units(finite), "topics")


def _ranked(runs: Sequence[Run], topics: list[int], means: list[dict[str, float]]) -> list[OrderingRun]:
    """The runs' rows with their rank per method (1 is best; an undefined score has none), by FreSPA."""
    ranks: list[dict[str, int]] = [{} for _ in runs]
    for label in METHODS:
        ranked = sorted((r for r in range(len(runs)) if not np.isnan(means[r][label])), key=lambda r: -means[r][label])
        for position, r in enumerate(ranked, 1):
            ranks[r][label] = position
    rows = [OrderingRun(run=run.name, topics=n, scores=s, ranks=k) for run, n, s, k in zip(runs, topics, means, ranks)]
    return sorted(rows, key=lambda r: (-np.nan_to_num(r.scores["FreSPA"], nan=-np.inf), r.run))


def _mean_off_diagonal(matrix: list[list[float | None]]) -> float:
    values = [v for i, row in enumerate(matrix) for j, v in enumerate(row) if i != j and v is not None]
    return float(np.mean(values)) if values else float("nan")


# -- analyses (jobs) -------------------------------------------------------------


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


ANALYSES = {"noise": noise_analysis, "frespa-sweep": sweep_analysis, "frespa-tune": tune_analysis}
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


# -- exports ---------------------------------------------------------------------------


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "adjudicated", "judgments"]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The consensus or adjudicated orderings (the gold), or every submitted ordering."""
    if format not in EXPORTS:
        return None
    return (
        ExportFile("judgments", "judgments", by_truth=False)
        if truth == "judgments"
        else ExportFile("ordering-gold", "gold")
    )


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """Consensus orderings (with how many orderings each rests on), the adjudicated
    ones (consensus where a topic has none, with the source), or every judgment."""
    import json

    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    external = {t.pk: t.external_id for t in topics}
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "adjudicated":
        rows = adjudicated_rows(topics, by_topic)
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "source", "adjudicated_by", "adjudicated_at", "orderings", "rank", "item"],
            (
                [r["topic"], r["source"], r["adjudicated_by"], r["adjudicated_at"], r["orderings"], rank, item]
                for r in rows
                for rank, item in enumerate(r["order"], 1)
            ),
        )
    if truth == "consensus":
        rows = [
            {
                "topic": external[t],
                "order": consensus_order([r.payload["order"] for r in rows]),
                "orderings": len(rows),
            }
            for t, rows in by_topic.items()
        ]
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "orderings", "rank", "item"],
            ([row["topic"], row["orderings"], rank, item] for row in rows for rank, item in enumerate(row["order"], 1)),
        )
    entries = [{"topic": external[r.topic_id], "assessor": r.assessor, "order": r.payload["order"]} for r in judgments]
    if format == "json":
        return json.dumps(entries, indent=1)
    return write_csv(
        ["topic", "assessor", "rank", "item"],
        ([e["topic"], e["assessor"], rank, item] for e in entries for rank, item in enumerate(e["order"], 1)),
    )


def adjudicated_rows(topics: Sequence[Topic], by_topic: Mapping[int, list[JudgmentRow]]) -> list[dict[str, Any]]:
    """Per topic, in topic order: the adjudicated ordering (the topic's ``consensus``
    curation) with who adjudicated and when, else the rank-based consensus of its
    submitted orderings (``source`` says which); topics with neither are left out."""
    rows = []
    adjudicated = curations_of(list(topics), "consensus")
    for topic in topics:
        orders = [r.payload["order"] for r in by_topic.get(topic.pk, [])]
        gold = adjudicated.get(topic.pk)
        if gold is not None and gold.data.get("order"):
            rows.append(
                {
                    "topic": topic.external_id,
                    "source": "adjudicated",
                    "adjudicated_by": gold.updated_by.get_username() if gold.updated_by else "",
                    "adjudicated_at": gold.updated_at.isoformat(),
                    "orderings": len(orders),
                    "order": list(gold.data["order"]),
                }
            )
        elif orders:
            rows.append(
                {
                    "topic": topic.external_id,
                    "source": "consensus",
                    "adjudicated_by": "",
                    "adjudicated_at": "",
                    "orderings": len(orders),
                    "order": consensus_order(orders),
                }
            )
    return rows


def orderings_ready(facts) -> str | None:
    """Why the ordering analyses cannot run yet (``Analysis.ready``), or None."""
    if facts.most_per_topic < 2:
        return "no topic has two submitted orderings yet"
    return None


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: OrderingTopicReport) -> Disagreement | None:
    """1 - the mean pairwise Kendall tau of the topic's orderings (0: all
    identical, 2: all reversed; None: fewer than two orderings).

    >>> topic_disagreement(OrderingTopicReport(["a", "b"], [[1.0, 0.5], [0.5, 1.0]], 0.5, [], {}))
    Disagreement(value=0.5, reason='a and b: τ 0.50')
    """
    names = report.assessors
    return pairwise_disagreement(
        [(names[i], names[j], report.tau[i][j]) for i in range(len(names)) for j in range(i + 1, len(names))],
        figure="τ",
    )


def headline(report: OrderingCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``)."""
    return Headline("Mean pairwise Kendall τ", report.mean_tau)
