"""Sentence clustering: the topic and campaign report types, the topic report.

Geiss, "Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization" (sentence-clustering-gold-standard_geiss.txt): section 6
(irrelevant sentences added as singletons or as one bucket cluster), section
7 and Table 3 (V_beta, V_0.5 and NVI for every pair of judges, and a random
baseline), Table 2 (each judge's profile), section 7's narrative of what it
takes to turn one judge's clusters into another's (the edit summary); and the
consensus clusters (the paper merges no judges: the sentences at least half of
the judges put together, the gold the exports write). The campaign report is
the merge of the topics' partials (partials.py); the downloads are in
exports.py, Figure 1's split-merge analysis in analyses.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import ceil
from typing import Literal

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

from annotate.models import Topic
from concord.typed import Figure
from kinds.clustering import stats as m
from kinds.clustering.data import rule_violations
from kinds.disagreement import pairwise_disagreement
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats.intervals import FigureCI
from stats.plain import V_MEASURE_HELP, Reading

METHODS = ("singleton", "bucket")
#: The measures of Table 3 (the report keeps all of them; pages show these).
TABLE3 = ("v_beta", "v_half", "nvi")
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
    them up to :data:`~kinds.clustering.partials.LIVE_PAIRS`, then the first ``LIVE_PAIRS``: each topic's
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


def sentence_ids(topic: Topic) -> list[str]:
    return [s["id"] for s in topic.data["sentences"]]


def clusterings_of(judgments: Sequence[JudgmentRow]) -> dict[str, list[list[str]]]:
    return {j.assessor: j.payload["clusters"] for j in sorted(judgments, key=lambda j: j.assessor)}


def compare(
    true_clusters: list[list[str]], pred_clusters: list[list[str]], items: list[str]
) -> dict[str, ClusteringMeasures]:
    """Every measure between two clusterings, with both completions of section 6 (keyed by ``METHODS``)."""
    return _compare_labels(_completions(true_clusters, items), _completions(pred_clusters, items))


#: A clustering completed both ways (section 6), keyed by ``METHODS``.
Completions = dict[str, m.Completed]


def _completions(clusters: list[list[str]], items: list[str]) -> Completions:
    """The clustering completed both ways (section 6), keyed by ``METHODS``."""
    return {
        method: m.Completed.of(labels)
        for method, labels in m.complete_with_irrelevant_each(clusters, items, methods=METHODS).items()
    }


def _compare_labels(true: dict[str, m.Completed], pred: dict[str, m.Completed]) -> dict[str, ClusteringMeasures]:
    """:func:`compare` of two completed clusterings (V_0.5 from the same homogeneity and
    completeness as the V-measure: one contingency table per completion)."""
    return _compare_many([(true, pred)])[0]


def _compare_many(pairs: Sequence[tuple[Completions, Completions]]) -> list[dict[str, ClusteringMeasures]]:
    """:func:`_compare_labels` of every ``(true, pred)``: each completion's comparisons
    scored at once (``completed_scores_each``: the same figures, bit for bit)."""
    result: list[dict[str, ClusteringMeasures]] = [{} for _ in pairs]
    if not pairs:
        return result
    for method in METHODS:
        scores = m.completed_scores_each([t[method] for t, _ in pairs], [p[method] for _, p in pairs])
        # ClusteringMeasures' fields: MEASURES in order, then V_0.5 and NVI
        columns = [scores.columns[name].tolist() for name in m.MEASURES]
        columns += [scores.weighted_v(0.5).tolist(), columns[m.MEASURES.index("normalized_variation_of_information")]]
        for measures, row in zip(result, zip(*columns)):
            measures[method] = ClusteringMeasures(*row)
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


def baseline(
    clusterings: dict[str, list[list[str]]], items: list[str], completed: dict[str, Completions] | None = None
) -> ClusteringTable3:
    """Table 3's base row: random clusterings shaped like each judge's, against every judge, pooled
    (``completed``: the judges' completions (:func:`_completions`) when already made)."""
    if completed is None:
        completed = {judge: _completions(clusters, items) for judge, clusters in clusterings.items()}
    judges = list(clusterings)
    profiles = [index for index, judge in enumerate(judges) if clusterings[judge]]
    result = {}
    for method in METHODS:
        # random_baseline's means of the three figures, drawn alike (milliseconds, not seconds);
        # the judges' side once for every profile, from their completions
        labellings = [completed[judge][method] for judge in judges]
        runs = (
            m.random_baseline_means_completed(
                [(labellings[index], index) for index in profiles],
                labellings,
                method=method,
                n_random=BASELINE_DRAWS,
                beta=0.5,
            )
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
    judge_pairs = list(combinations(judges, 2))
    gold = consensus(list(clusterings.values()), items)
    ran = {
        run.name: _completions(run.data["clusterings"][topic.external_id], items)
        for run in runs
        if judges and topic.external_id in run.data.get("clusterings", {})
    }
    references = [*(completed[judge] for judge in judges), _completions(gold, items)] if ran else []
    # every comparison of the topic (its pairs of judges, each run against every judge and the consensus) at once
    compared = _compare_many(
        [(completed[a], completed[b]) for a, b in judge_pairs]
        + [(reference, labels) for labels in ran.values() for reference in references]
    )
    pairs = [
        ClusteringPair(judges=(a, b), **scores, edits=edit_summary(clusterings[a], clusterings[b]))
        for (a, b), scores in zip(judge_pairs, compared)
    ]
    against = iter(compared[len(judge_pairs) :])
    return ClusteringTopicReport(
        judges=judges,
        profiles={j: profile(c, items) for j, c in clusterings.items()},
        rule_problems={
            j: [ClusteringRuleProblem(**problem) for problem in rule_violations(c, topic.data)]
            for j, c in clusterings.items()
        },
        pairs=pairs,
        baseline=baseline(clusterings, items, completed) if len(judges) >= 1 else None,
        consensus=gold,
        sentences={
            s["id"]: s.get("text", "") for s in topic.data.get("sentences", []) if any(s["id"] in c for c in gold)
        },
        runs={name: {who: _table3(next(against)) for who in [*judges, "consensus"]} for name in ran},
    )


def _figures(measures: ClusteringMeasures) -> ClusteringFigures:
    return ClusteringFigures(**{name: getattr(measures, name) for name in TABLE3})


def _table3(scores: dict[str, ClusteringMeasures]) -> ClusteringTable3:
    return ClusteringTable3(**{method: _figures(scores[method]) for method in METHODS})


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: ClusteringTopicReport) -> Disagreement | None:
    """1 - the mean pairwise V_beta between the judges' clusterings
    (irrelevant sentences as singletons; None: fewer than two judges)."""
    return pairwise_disagreement([(*p.judges, p.singleton.v_beta) for p in report.pairs], figure="V_β")


def headline(report: ClusteringCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): the mean V_beta, read
    against the random baseline's (random clusterings shaped like the judges', Table 3)."""
    baseline = report.baseline.singleton.v_beta if report.baseline is not None else None
    return Headline(
        f"Mean {AGREEMENT_LABELS['v_beta']} (singleton completion)",
        report.agreement.singleton["v_beta"],
        Reading("v-measure", f"mean {AGREEMENT_LABELS['v_beta']}", V_MEASURE_HELP, baseline),
    )
