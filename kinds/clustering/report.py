"""Sentence clustering: inter-judge agreement, edit summaries, consensus, runs.

Geiss, "Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization" (sentence-clustering-gold-standard_geiss.txt): section 6
(irrelevant sentences added as singletons or as one bucket cluster), section
7 and Table 3 (V_beta, V_0.5 and NVI for every pair of judges, and a random
baseline), Table 2 (each judge's profile), section 7's narrative of what it
takes to turn one judge's clusters into another's (the edit summary), and
Figure 1 (every measure as a clustering is split and merged at random).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import ceil
from typing import Any, Literal

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from concord.params import Choice, Int, ParamsSchema, Str
from concord.typed import Figure
from kinds.clustering import stats as m
from kinds.clustering.data import rule_violations
from kinds.disagreement import pairwise_disagreement
from kinds.spec import Disagreement, Export, ExportFile, Headline
from scoring.csvfiles import write_csv
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput, curations_of
from stats.intervals import FigureCI, IntervalSettings, figure_ci, interval_settings, too_few_ci
from stats.uncertainty import mean_units, no_interval, percentile_interval, resample_weights

METHODS = ("singleton", "bucket")
#: The measures of Table 3 (the report keeps all of them; pages show these).
TABLE3 = ("v_beta", "v_half", "nvi")
EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: sentences that at least half of the judges put in one cluster form the consensus clusters "
    "(connected components of the co-association graph at that threshold); every sentence comes with how many "
    "judges clustered it and which. adjudicated: the adjudicated clusters (with their descriptions) where a topic "
    "has them, else the consensus, with the source (adjudicated / consensus), who adjudicated and when. judgments: "
    "every judge's clusters with their descriptions, in importance order."
)
BASELINE_DRAWS = 100
#: The figures between judges that the campaign report averages over topics with an interval:
#: V-measure (beta 1), V_beta and V_0.5 (Table 3), NMI (geometric mean of the entropies, Strehl &
#: Ghosh 2002: the arithmetic NMI equals the V-measure) and NVI (Table 3; 0 is perfect agreement).
AGREEMENT = ("v_measure", "v_beta", "v_half", "nmi_geometric", "nvi")
AGREEMENT_LABELS = {
    "v_measure": "V-measure (β = 1)",
    "v_beta": "V_β",
    "v_half": "V_0.5",
    "nmi_geometric": "NMI (geometric)",
    "nvi": "NVI",
}


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class ClusteringMeasures:
    """Every measure between two clusterings under one completion of section 6
    (``kinds.clustering.stats.MEASURES``, in its order), then V_0.5 and NVI
    (section 7, Table 3). Entropies and mutual information in nats, VI in bits."""

    homogeneity: Figure
    completeness: Figure
    v_measure: Figure
    v_beta: Figure
    class_entropy: Figure
    cluster_entropy: Figure
    mutual_information: Figure
    nmi_arithmetic: Figure
    nmi_geometric: Figure
    nmi_min: Figure
    nmi_max: Figure
    variation_of_information: Figure
    normalized_variation_of_information: Figure
    rand_index: Figure
    adjusted_rand_index: Figure
    purity: Figure
    entropy: Figure
    pair_precision: Figure
    pair_recall: Figure
    pair_f: Figure
    v_half: Figure
    nvi: Figure


@dataclass(frozen=True)
class ClusteringFigures:
    """The measures of Table 3 under one completion: V_beta, V_0.5 and NVI."""

    v_beta: Figure
    v_half: Figure
    nvi: Figure


@dataclass(frozen=True)
class ClusteringTable3:
    """Table 3's figures with the irrelevant sentences as singletons and as one
    bucket cluster (section 6): a pair of clusterings, or the random baseline."""

    singleton: ClusteringFigures
    bucket: ClusteringFigures


@dataclass(frozen=True)
class ClusteringProfile:
    """One judge's clustering of a topic (Table 2): sentences used, irrelevant
    sentences, clusters, sentences per cluster (undefined without clusters)."""

    sentences: int
    irrelevant: int
    clusters: int
    per_cluster: Figure


@dataclass(frozen=True)
class ClusteringRuleProblem:
    """A cluster that breaks a guideline rule (3: two or more documents; 4: two
    or more sentences); ``cluster`` is its index in the judgment."""

    cluster: int
    rule: int
    message: str


@dataclass(frozen=True)
class ClusteringEdits:
    """What it takes to turn one judge's clusters into another's (section 7):
    see :func:`edit_summary`."""

    identical: int
    delete: list[str]
    add: list[str]
    split: int
    merge: int
    move: int


@dataclass(frozen=True)
class ClusteringPair:
    """Two judges of one topic: every measure under both completions (section 6,
    Table 3) and the edits from the first's clusters to the second's (section 7)."""

    judges: tuple[str, str]
    singleton: ClusteringMeasures
    bucket: ClusteringMeasures
    edits: ClusteringEdits

    @property
    def completions(self) -> list[tuple[str, ClusteringMeasures]]:
        """(completion, its measures), in the order of ``METHODS``."""
        return [("singleton", self.singleton), ("bucket", self.bucket)]


@dataclass(frozen=True)
class ClusteringTopicReport:
    """One topic: the judges' profiles (Table 2) and rule problems, every pair of
    judges and the random baseline (Table 3), the consensus clusters, and each
    run's Table 3 figures against every judge and the consensus (``runs``: run
    name -> judge name or "consensus" -> figures)."""

    judges: list[str]
    profiles: dict[str, ClusteringProfile]
    rule_problems: dict[str, list[ClusteringRuleProblem]]
    pairs: list[ClusteringPair]
    baseline: ClusteringTable3 | None
    consensus: list[list[str]]
    runs: dict[str, dict[str, ClusteringTable3]]
    #: the text of each sentence in ``consensus`` (id -> text), shown beside the ids
    sentences: dict[str, str]


@dataclass(frozen=True)
class ClusteringCampaignPair:
    """One row of Table 3: two judges of one topic."""

    topic: str
    title: str
    judges: tuple[str, str]
    singleton: ClusteringFigures
    bucket: ClusteringFigures


@dataclass(frozen=True)
class ClusteringAgreement:
    """Agreement between judges over the campaign, per completion of section 6: each
    figure of :data:`AGREEMENT` averaged over a topic's pairs of judges, then over the
    topics with two or more judges, with its bootstrap interval over those topics."""

    singleton: dict[str, FigureCI]
    bucket: dict[str, FigureCI]

    @property
    def rows(self) -> list[tuple[str, str, FigureCI, FigureCI]]:
        """(figure, its name on the page, singleton, bucket), in the order of :data:`AGREEMENT`."""
        return [(name, AGREEMENT_LABELS[name], self.singleton[name], self.bucket[name]) for name in AGREEMENT]


@dataclass(frozen=True)
class ClusteringCampaignReport:
    """Table 3 over the campaign: the pairs of judges of the topics in order (all of
    them up to :data:`LIVE_PAIRS`, then the first :data:`LIVE_PAIRS`: each topic's
    page lists its own; ``pair_count`` counts every pair), the random baseline pooled
    over the topics with two or more judges (None before there is one), and the mean
    agreement over topics with intervals."""

    topics: int
    judged_topics: int
    pairs: list[ClusteringCampaignPair]
    pair_count: int
    baseline: ClusteringTable3 | None
    agreement: ClusteringAgreement
    kind: Literal["clustering"] = "clustering"


#: The most Table 3 rows the live campaign report carries (10,000 topics of 10 judges
#: have 450,000 pairs: a 100 MB report rebuilt after every submission); the rest are
#: on the topics' pages.
LIVE_PAIRS = 500


@dataclass(frozen=True)
class ClusteringPartial:
    """What the campaign report needs of one topic (scoring/partials.py): its title,
    its judges (sorted: its pairs are ``combinations(judges, 2)``, as in its report),
    each pair's Table 3 figures (``table3``: pair by pair, completion by completion
    (``METHODS``), the values of :data:`TABLE3`, as little-endian float64 bytes: bit
    for bit, and nothing to decode for the pairs the live report leaves out), the
    topic's mean over its pairs of each figure of :data:`AGREEMENT` (``METHODS`` x
    ``AGREEMENT``) and its random baseline (``METHODS`` x ``TABLE3``); both empty with
    fewer than two judges (the campaign averages and pools only those topics)."""

    title: str
    judges: list[str]
    table3: bytes
    means: list[float]
    baseline: list[float]


def sentence_ids(topic: Topic) -> list[str]:
    return [s["id"] for s in topic.data["sentences"]]


def clusterings_of(judgments: Sequence[JudgmentRow]) -> dict[str, list[list[str]]]:
    return {j.assessor: j.payload["clusters"] for j in sorted(judgments, key=lambda j: j.assessor)}


def compare(
    true_clusters: list[list[str]], pred_clusters: list[list[str]], items: list[str]
) -> dict[str, ClusteringMeasures]:
    """Every measure between two clusterings, with both completions of section 6 (keyed by ``METHODS``)."""
    return _compare_labels(_completions(true_clusters, items), _completions(pred_clusters, items))


def _completions(clusters: list[list[str]], items: list[str]) -> dict[str, np.ndarray]:
    """The clustering completed both ways (section 6), keyed by ``METHODS``."""
    return {method: m.Completed.of(m.complete_with_irrelevant(clusters, items, method=method)) for method in METHODS}


def _compare_labels(true: dict[str, m.Completed], pred: dict[str, m.Completed]) -> dict[str, ClusteringMeasures]:
    """:func:`compare` of two completed clusterings (V_0.5 from the same homogeneity and
    completeness as the V-measure: one contingency table per completion)."""
    result = {}
    for method in METHODS:
        scores = m.completed_scores(true[method], pred[method])
        result[method] = ClusteringMeasures(
            **{name: float(getattr(scores, name)) for name in m.MEASURES},
            v_half=float(m.weighted_v(scores.homogeneity, scores.completeness, 0.5)),
            nvi=float(scores.normalized_variation_of_information),
        )
    return result


def profile(clusters: list[list[str]], items: list[str]) -> ClusteringProfile:
    """Table 2: sentences used, clusters, sentences per cluster."""
    used = sum(len(c) for c in clusters)
    return ClusteringProfile(
        sentences=used,
        irrelevant=len(items) - used,
        clusters=len(clusters),
        per_cluster=used / len(clusters) if clusters else float("nan"),
    )


def edit_summary(source: list[list[str]], target: list[list[str]]) -> ClusteringEdits:
    """What it takes to turn ``source``'s clusters into ``target``'s (section 7).

    ``identical``: clusters equal in both. ``delete``/``add``: sentences
    clustered only by source / only by target. Of the sentences both
    clustered, each target cluster takes as its origin the source cluster
    that gave it most of them (ties: the earlier). A source cluster that is
    the origin of k > 1 target clusters is ``split`` (k - 1 splits); a source
    cluster whose shared sentences all went into a target cluster of another
    origin is ``merged`` into it; every other shared sentence that lands
    away from its origin cluster is ``moved``.
    """
    source_of = {s: i for i, cluster in enumerate(source) for s in cluster}
    target_of = {s: j for j, cluster in enumerate(target) for s in cluster}
    shared = source_of.keys() & target_of.keys()
    origin: dict[int, int] = {}
    for j, cluster in enumerate(target):
        counts: dict[int, int] = {}
        for s in cluster:
            if s in shared:
                counts[source_of[s]] = counts.get(source_of[s], 0) + 1
        if counts:
            origin[j] = min(counts, key=lambda i: (-counts[i], i))
    splits = sum(max(0, list(origin.values()).count(i) - 1) for i in range(len(source)))
    merged: set[int] = set()
    for i, cluster in enumerate(source):
        homes = {target_of[s] for s in cluster if s in shared}
        if len(homes) == 1 and origin.get(next(iter(homes))) != i:
            merged.add(i)
    moved = sum(1 for s in shared if source_of[s] not in merged and origin.get(target_of[s]) != source_of[s])
    return ClusteringEdits(
        identical=len({frozenset(c) for c in source} & {frozenset(c) for c in target}),
        delete=sorted(source_of.keys() - target_of.keys()),
        add=sorted(target_of.keys() - source_of.keys()),
        split=splits,
        merge=len(merged),
        move=moved,
    )


def baseline(clusterings: dict[str, list[list[str]]], items: list[str]) -> ClusteringTable3:
    """Table 3's base row: random clusterings shaped like each judge's, against every judge, pooled."""
    judges = list(clusterings.values())
    profiles = [(clusters, index) for index, clusters in enumerate(judges) if clusters]
    result = {}
    for method in METHODS:
        # random_baseline's means of the three figures, drawn alike (milliseconds, not seconds);
        # the judges' side once for every profile
        runs = (
            m.random_baseline_means_each(profiles, judges, items, method=method, n_random=BASELINE_DRAWS, beta=0.5)
            if profiles
            else []
        )
        result[method] = ClusteringFigures(
            v_beta=float(np.mean([r["v_beta"] for r in runs])) if runs else float("nan"),
            v_half=float(np.mean([r["v_measure"] for r in runs])) if runs else float("nan"),
            nvi=float(np.mean([r["normalized_variation_of_information"] for r in runs])) if runs else float("nan"),
        )
    return ClusteringTable3(**result)


def consensus(clusterings: Sequence[list[list[str]]], items: list[str]) -> list[list[str]]:
    """Clusters of the sentences at least half of the judges put together.

    Two sentences are linked when at least ceil(n / 2) of the n judges put
    them in one cluster; the consensus clusters are the connected components
    of these links with two or more sentences, in the order of their first
    sentence; every other sentence is irrelevant.
    """
    if not clusterings:
        return []
    index = {s: i for i, s in enumerate(items)}
    rows, cols = [], []
    for clusters in clusterings:
        for cluster in clusters:
            members = [index[s] for s in cluster]
            for a, b in combinations(members, 2):
                rows.append(min(a, b))
                cols.append(max(a, b))
    if not rows:
        return []
    pairs = coo_array((np.ones(len(rows)), (rows, cols)), shape=(len(items), len(items))).tocsr()
    pairs.sum_duplicates()
    needed = ceil(len(clusterings) / 2)
    links = (pairs >= needed).astype(np.int8)
    _, labels = connected_components(links, directed=False)
    sizes = np.bincount(labels)
    groups: dict[int, list[str]] = {}
    for i, label in enumerate(labels):
        if sizes[label] >= 2:
            groups.setdefault(int(label), []).append(items[i])
    return sorted(groups.values(), key=lambda group: index[group[0]])


def topic_report(input: ReportInput, topic: Topic) -> ClusteringTopicReport:
    judgments, runs = input.judgments_of(topic), input.runs
    items = sentence_ids(topic)
    clusterings = clusterings_of(judgments)
    judges = list(clusterings)
    completed = {judge: _completions(clusters, items) for judge, clusters in clusterings.items()}
    pairs = [
        ClusteringPair(
            judges=(a, b),
            **_compare_labels(completed[a], completed[b]),
            edits=edit_summary(clusterings[a], clusterings[b]),
        )
        for a, b in combinations(judges, 2)
    ]
    gold = consensus(list(clusterings.values()), items)
    ran = {
        run.name: _completions(run.data["clusterings"][topic.external_id], items)
        for run in runs
        if judges and topic.external_id in run.data.get("clusterings", {})
    }
    return ClusteringTopicReport(
        judges=judges,
        profiles={j: profile(c, items) for j, c in clusterings.items()},
        rule_problems={
            j: [ClusteringRuleProblem(**problem) for problem in rule_violations(c, topic.data)]
            for j, c in clusterings.items()
        },
        pairs=pairs,
        baseline=baseline(clusterings, items) if len(judges) >= 1 else None,
        consensus=gold,
        sentences={
            s["id"]: s.get("text", "") for s in topic.data.get("sentences", []) if any(s["id"] in c for c in gold)
        },
        runs={
            name: {
                **{judge: _table3(_compare_labels(completed[judge], labels)) for judge in judges},
                "consensus": _table3(_compare_labels(_completions(gold, items), labels)),
            }
            for name, labels in ran.items()
        },
    )


def _figures(measures: ClusteringMeasures) -> ClusteringFigures:
    return ClusteringFigures(**{name: getattr(measures, name) for name in TABLE3})


def _table3(scores: dict[str, ClusteringMeasures]) -> ClusteringTable3:
    return ClusteringTable3(**{method: _figures(scores[method]) for method in METHODS})


def campaign_report(input: ReportInput) -> ClusteringCampaignReport:
    """Table 3: every pair of judges of every topic, and the random baseline
    pooled over the topics with two or more judges (its "base" row): the merge
    of every topic's partial (scoring/partials.py)."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


def topic_partial(input: ReportInput, topic: Topic, report: ClusteringTopicReport) -> ClusteringPartial:
    """The topic's part of the campaign report, taken from its report: each pair's
    figures and the random baseline (drawn once, when the topic changes)."""
    pooled = len(report.judges) >= 2
    return ClusteringPartial(
        title=topic.title,
        judges=list(report.judges),
        table3=np.array(
            [getattr(getattr(p, method), name) for p in report.pairs for method in METHODS for name in TABLE3],
            dtype="<f8",
        ).tobytes(),
        means=[
            _mean([getattr(getattr(p, method), name) for p in report.pairs]) for method in METHODS for name in AGREEMENT
        ]
        if pooled
        else [],
        baseline=[float(getattr(getattr(report.baseline, method), name)) for method in METHODS for name in TABLE3]
        if pooled and report.baseline is not None
        else [],
    )


def merge(given: MergeInput, partials: Sequence[ClusteringPartial]) -> ClusteringCampaignReport:
    """The campaign report from every topic's partial (topic order): the means and
    baselines stacked and averaged with numpy; only the first :data:`LIVE_PAIRS`
    pairs' figures are decoded."""
    rows: list[ClusteringCampaignPair] = []
    for topic, part in zip(given.topics, partials):
        if len(rows) >= LIVE_PAIRS:
            break
        if len(part.judges) < 2:
            continue
        values = np.frombuffer(part.table3, dtype="<f8").reshape(-1, len(METHODS), len(TABLE3)).tolist()
        for (a, b), (single, bucket) in zip(combinations(part.judges, 2), values):
            if len(rows) >= LIVE_PAIRS:
                break
            rows.append(
                ClusteringCampaignPair(
                    topic=topic.external_id,
                    title=part.title,
                    judges=(a, b),
                    singleton=ClusteringFigures(*single),
                    bucket=ClusteringFigures(*bucket),
                )
            )
    judges = np.fromiter((len(p.judges) for p in partials), dtype=np.int64, count=len(partials))
    means = np.array([p.means for p in partials if p.means], dtype=np.float64).reshape(-1, len(METHODS), len(AGREEMENT))
    agreement = _agreement(means, interval_settings(given.campaign.params))
    baselines = [p.baseline for p in partials if p.baseline]
    pooled = None
    if baselines:  # each figure's mean over the topics (rows contiguous: numpy's pairwise sum, as before)
        pooled_means = np.ascontiguousarray(np.array(baselines, dtype=np.float64).T).mean(axis=1).tolist()
        pooled = ClusteringTable3(
            **{
                method: ClusteringFigures(*pooled_means[i * len(TABLE3) : (i + 1) * len(TABLE3)])
                for i, method in enumerate(METHODS)
            }
        )
    return ClusteringCampaignReport(
        topics=len(given.topics),
        judged_topics=int(np.count_nonzero(judges)),
        pairs=rows,
        pair_count=int((judges * (judges - 1) // 2).sum()),
        baseline=pooled,
        agreement=agreement,
    )


def _agreement(means: np.ndarray, settings: IntervalSettings) -> ClusteringAgreement:
    """:func:`agreement_over_topics` from each topic's means (topics x ``METHODS`` x
    ``AGREEMENT``): every figure resamples the same topics with the same seed, so the
    draw is made once and multiplied once with every figure's per-topic statistics
    (the same intervals as ``settings.interval`` figure by figure, to rounding; ten
    draws and products over 10,000 topics cost seconds)."""
    stats = {
        (method, name): mean_units(means[:, i, j])
        for i, method in enumerate(METHODS)
        for j, name in enumerate(AGREEMENT)
    }
    sums = None
    if len(means) >= max(2, settings.min_units):  # below the minimum no figure gets an interval
        draw = resample_weights(len(means), n_resamples=settings.resamples, seed=settings.seed).astype(np.float64)
        sums = draw @ np.column_stack([s.per_unit for s in stats.values()])
    result: dict[str, dict[str, FigureCI]] = {method: {} for method in METHODS}
    for k, ((method, name), s) in enumerate(stats.items()):
        value = float(s.statistic(s.per_unit.sum(axis=0)))
        if s.units < settings.min_units:
            result[method][name] = too_few_ci(value, s.units, "topics")
            continue
        if sums is None or not np.isfinite(value) or s.units < 2:
            interval = no_interval(value, s.units, 0.95)
        else:
            width = s.per_unit.shape[1]
            resampled = np.asarray(s.statistic(sums[:, k * width : (k + 1) * width]), dtype=np.float64)
            interval = percentile_interval(value, resampled, s.units, 0.95)
        result[method][name] = figure_ci(interval, "topics")
    return ClusteringAgreement(**result)


def agreement_over_topics(
    per_topic: Sequence[dict[str, dict[str, list[float]]]], settings: IntervalSettings
) -> ClusteringAgreement:
    """Each figure's mean over topics of its mean over the topic's pairs of judges, with the
    seeded bootstrap interval over the topics (``per_topic``: for every topic with two or more
    judges, in topic order, completion -> figure -> its value for every pair). A topic whose
    figure is undefined for every pair is left out of that figure. Every figure resamples the
    same topics with the same seed, so they share their resamples.

    >>> topic = lambda v: {m: {n: [v, v + 0.1] for n in AGREEMENT} for m in METHODS}
    >>> result = agreement_over_topics([topic(0.2), topic(0.4), topic(0.9)], IntervalSettings(resamples=200))
    >>> ci = result.singleton["v_beta"]
    >>> round(ci.value, 12), ci.units, ci.unit, ci.low <= ci.value <= ci.high
    (0.55, 3, 'topics', True)
    """
    return ClusteringAgreement(
        **{
            method: {
                name: settings.interval(mean_units([_mean(t[method][name]) for t in per_topic]), "topics")
                for name in AGREEMENT
            }
            for method in METHODS
        }
    )


def _mean(values: list[float]) -> float:
    """The mean of the defined values (NaN when none is)."""
    defined = [v for v in values if v == v]
    return float(np.mean(defined)) if defined else float("nan")


def _pooled(baselines: list[ClusteringTable3]) -> ClusteringTable3:
    """The mean of each topic's baseline, figure by figure (NaN where any topic's is undefined)."""
    return ClusteringTable3(
        **{
            method: ClusteringFigures(
                **{name: float(np.mean([getattr(getattr(b, method), name) for b in baselines])) for name in TABLE3}
            )
            for method in METHODS
        }
    )


# -- analyses ------------------------------------------------------------------------


def split_merge_path(
    clusters: list[list[str]], items: list[str], *, seed: int = 0, method: str = "singleton"
) -> list[dict[str, Any]]:
    """Figure 1: split clusters at random down to all singletons, and merge
    them at random up to one cluster, scoring each step against the start."""
    rng = np.random.default_rng(seed)
    start = m.complete_with_irrelevant(clusters, items, method=method)

    def score(labels: np.ndarray, step: int) -> dict[str, Any]:
        s = m.clustering_scores(start, labels)
        half = m.clustering_scores(start, labels, beta=0.5)
        return {
            "step": step,
            "clusters": int(len(np.unique(labels))),
            "v_half": half.v_measure,
            **{name: getattr(s, name) for name in m.MEASURES},
        }

    path = [score(start, 0)]
    labels = start.copy()
    step = 0
    while True:  # split one cluster of two or more in two random parts
        sizes = np.bincount(labels)
        splittable = np.flatnonzero(sizes >= 2)
        if not splittable.size:
            break
        cluster = rng.choice(splittable)
        members = np.flatnonzero(labels == cluster)
        moving = members[rng.permutation(len(members))[: rng.integers(1, len(members))]]
        labels = labels.copy()
        labels[moving] = labels.max() + 1
        step -= 1
        path.insert(0, score(labels, step))
    labels, step = start.copy(), 0
    while len(np.unique(labels)) > 1:  # merge two random clusters
        present = np.unique(labels)
        a, b = rng.choice(present, size=2, replace=False)
        labels = np.where(labels == b, a, labels)
        step += 1
        path.append(score(labels, step))
    return path


def split_merge_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:

    topics = {t.external_id: t for t in input.topics}
    rows = input.judgments
    if not rows:
        raise InvalidInput("campaign", "no submitted clustering yet")
    topic_id = params.get("topic") or next(
        t.external_id for t in topics.values() if any(r.topic_id == t.pk for r in rows)
    )
    if topic_id not in topics:
        raise InvalidInput("params.topic", f"unknown topic {topic_id!r}")
    topic = topics[topic_id]
    mine = {r.assessor: r.payload["clusters"] for r in rows if r.topic_id == topic.pk}
    judge = params.get("judge") or (sorted(mine)[0] if mine else None)
    if judge not in mine:
        raise InvalidInput("params.judge", f"no submitted clustering of {topic_id!r} by {judge!r}")
    method = params.get("method", "singleton")
    if method not in METHODS:
        raise InvalidInput("params.method", "expected singleton or bucket")
    progress(0.1, "splitting and merging")
    path = split_merge_path(mine[judge], sentence_ids(topic), seed=int(params.get("seed", 0)), method=method)
    return {"topic": topic_id, "judge": judge, "method": method, "path": path}


ANALYSES = {"split-merge": split_merge_analysis}
#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py). One path of at most 2 x sentences steps over one
#: judge's clustering of one topic: its size is the topic's, not a param's.
ANALYSIS_PARAMS = {
    "split-merge": ParamsSchema(
        Str("topic", max_length=200, help="The topic (external id); default the first with a submitted clustering."),
        Str("judge", max_length=150, help="The judge (username); default the first, by name, who clustered the topic."),
        Choice("method", "singleton", tuple(METHODS), help="singleton or bucket: how the path starts."),
        Int("seed", 0, min=0, max=2**32 - 1, help="Seed of the random draws (the same seed, the same result)."),
    )
}


# -- exports -------------------------------------------------------------------------------


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "adjudicated", "judgments"]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The consensus or adjudicated clusters (the gold), or every judge's clusters."""
    if format not in EXPORTS:
        return None
    if truth == "judgments":
        return ExportFile("judgments", "judgments", by_truth=False)
    return ExportFile("clustering-gold", "gold")


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "adjudicated":
        rows = adjudicated_rows(topics, by_topic)
        if format == "json":
            return json.dumps(rows, indent=1)
        columns = ["topic", "source", "adjudicated_by", "adjudicated_at", "sentence", "cluster", "description"]
        columns += ["judges_clustered", "of_judges", "judges"]
        return write_csv(
            columns,
            ([" ".join(r[c]) if c == "judges" else "" if r[c] is None else r[c] for c in columns] for r in rows),
        )
    if truth == "judgments":
        entries = [
            {
                "topic": t.external_id,
                "assessor": r.assessor,
                "clusters": r.payload["clusters"],
                "descriptions": r.payload.get("descriptions", []),
            }
            for t in topics
            for r in by_topic.get(t.pk, [])
        ]
        if format == "json":
            return json.dumps(entries, indent=1)
        return write_csv(
            ["topic", "assessor", "cluster", "rank", "description", "sentence"],
            (
                [e["topic"], e["assessor"], i + 1, i + 1, (e["descriptions"] or [""] * len(e["clusters"]))[i], s]
                for e in entries
                for i, cluster in enumerate(e["clusters"])
                for s in cluster
            ),
        )
    rows = []
    for topic in topics:
        items = sentence_ids(topic)
        clusterings = clusterings_of(by_topic.get(topic.pk, []))
        gold = consensus(list(clusterings.values()), items)
        cluster_of = {s: i + 1 for i, c in enumerate(gold) for s in c}
        for s in items:
            by = [j for j, clusters in clusterings.items() if any(s in c for c in clusters)]
            rows.append(
                {
                    "topic": topic.external_id,
                    "sentence": s,
                    "cluster": cluster_of.get(s),
                    "judges_clustered": len(by),
                    "judges": by,
                    "of_judges": len(clusterings),
                }
            )
    if format == "json":
        return json.dumps(rows, indent=1)
    return write_csv(
        ["topic", "sentence", "cluster", "judges_clustered", "of_judges", "judges"],
        (
            [
                r["topic"],
                r["sentence"],
                r["cluster"] or "",
                r["judges_clustered"],
                r["of_judges"],
                " ".join(r["judges"]),
            ]
            for r in rows
        ),
    )


def adjudicated_rows(topics: Sequence[Topic], by_topic: dict[int, list[JudgmentRow]]) -> list[dict[str, Any]]:
    """Every sentence of every topic with its gold cluster: the adjudicated clusters
    (the topic's ``consensus`` curation, descriptions included) with who adjudicated
    and when, else the consensus of the judges (``source`` says which); with how many
    judges clustered the sentence and which, as in the consensus export."""
    adjudicated = curations_of(list(topics), "consensus")
    rows = []
    for topic in topics:
        items = sentence_ids(topic)
        clusterings = clusterings_of(by_topic.get(topic.pk, []))
        gold = adjudicated.get(topic.pk)
        if gold is not None:
            clusters, descriptions = gold.data["clusters"], gold.data.get("descriptions", [])
            source = {
                "source": "adjudicated",
                "adjudicated_by": gold.updated_by.get_username() if gold.updated_by else "",
                "adjudicated_at": gold.updated_at.isoformat(),
            }
        else:
            clusters = consensus(list(clusterings.values()), items)
            descriptions = []
            source = {"source": "consensus", "adjudicated_by": "", "adjudicated_at": ""}
        cluster_of = {s: i for i, c in enumerate(clusters) for s in c}
        for s in items:
            by = [j for j, judged in clusterings.items() if any(s in c for c in judged)]
            number = cluster_of.get(s)
            rows.append(
                {
                    "topic": topic.external_id,
                    **source,
                    "sentence": s,
                    "cluster": None if number is None else number + 1,
                    "description": descriptions[number] if number is not None and number < len(descriptions) else "",
                    "judges_clustered": len(by),
                    "judges": by,
                    "of_judges": len(clusterings),
                }
            )
    return rows


def split_merge_ready(facts) -> str | None:
    """Why the split-merge analysis cannot run yet (``Analysis.ready``), or None."""
    if not facts.judgments:
        return "no submitted clustering yet"
    return None


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: ClusteringTopicReport) -> Disagreement | None:
    """1 - the mean pairwise V_beta between the judges' clusterings
    (irrelevant sentences as singletons; None: fewer than two judges)."""
    return pairwise_disagreement([(*p.judges, p.singleton.v_beta) for p in report.pairs], figure="V_β")


def headline(report: ClusteringCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``)."""
    return Headline(f"Mean {AGREEMENT_LABELS['v_beta']} (singleton completion)", report.agreement.singleton["v_beta"])
