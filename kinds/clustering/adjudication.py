"""Adjudicating sentence clusterings (KindSpec ``Adjudication``; docs/pages.md, "Adjudication").

The adjudicator sees every judge's clusters side by side (with their
descriptions), the cluster each judge put every sentence in (sentences whose
companions differ between judges are marked), and for every two judges the
edits that turn one's clusters into the other's (Geiss, section 7: the
report's :func:`~kinds.clustering.report.edit_summary`) with their V-measure
and V_beta (section 7, Table 3; irrelevant sentences as singletons, as the
topic's disagreement). "Accept the consensus" saves the kind's consensus:
sentences at least half of the judges put together (the ``consensus`` export).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kinds.clustering.report import ClusteringEdits, edit_summary
from kinds.clustering.report import compare as measures
from kinds.clustering.report import consensus as consensus_clusters


@dataclass(frozen=True)
class ClusteringSentenceRef:
    """A sentence of a cluster: its id, document and text."""

    id: str
    document: str
    text: str


@dataclass(frozen=True)
class ClusteringClusterView:
    """One cluster of one judge: its number (1 = most important), description and sentences."""

    number: int
    description: str
    sentences: tuple[ClusteringSentenceRef, ...]


@dataclass(frozen=True)
class ClusteringJudgeView:
    """One judge's clustering: the clusters in importance order and the sentences
    left out (irrelevant)."""

    assessor: str
    clusters: tuple[ClusteringClusterView, ...]
    unclustered: tuple[str, ...]


@dataclass(frozen=True)
class ClusteringSentenceRow:
    """One sentence: the number of the cluster each judge put it in (None: left
    out), in the comparison's judge order, and whether the judges differ on it:
    ``differs`` when two judges give it different companions (the other
    sentences of its cluster) or one clusters it and another leaves it out."""

    id: str
    document: str
    text: str
    clusters: tuple[int | None, ...]
    consensus: int | None
    differs: bool
    #: its cluster in the clusterings shown beside the judges' and counted in nothing (the gold)
    beside: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class ClusteringJudgePair:
    """Two judges: the edits from the first's clusters to the second's (section
    7) and V (beta = 1) and V_beta between them (irrelevant sentences as singletons)."""

    first: str
    second: str
    v_measure: float
    v_beta: float
    edits: ClusteringEdits


@dataclass(frozen=True)
class ClusteringComparison:
    """Every judge's clustering of one topic side by side, sentence by sentence,
    and every pair of judges; ``consensus`` is the kind's consensus clusters."""

    assessors: tuple[str, ...]
    judges: tuple[ClusteringJudgeView, ...]
    sentences: tuple[ClusteringSentenceRow, ...]
    pairs: tuple[ClusteringJudgePair, ...]
    consensus: tuple[tuple[str, ...], ...]
    #: the clusterings shown beside the judges' (``Adjudication.compare``'s ``beside``: the gold), by label
    beside: tuple[ClusteringJudgeView, ...] = ()

    @property
    def side_by_side(self) -> tuple[tuple[ClusteringJudgeView, bool], ...]:
        """Every judge's clusters, then those shown beside them (True)."""
        return tuple((j, False) for j in self.judges) + tuple((b, True) for b in self.beside)

    @property
    def disputed(self) -> tuple[ClusteringSentenceRow, ...]:
        """The sentences the judges differ on."""
        return tuple(row for row in self.sentences if row.differs)


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> ClusteringComparison:
    """The judges' clusterings of the topic ``view`` side by side, and ``beside`` them
    the gold's (counted in nothing).

    >>> view = {"documents": [{"id": "d"}], "sentences": [
    ...     {"id": f"s{i}", "document": "d", "position": i, "text": f"S{i}"} for i in range(1, 5)]}
    >>> c = compare(view, [("ann", {"clusters": [["s1", "s2"], ["s3", "s4"]]}), ("bob", {"clusters": [["s1", "s2", "s3"]]})])
    >>> [(r.id, r.clusters, r.differs) for r in c.sentences]
    [('s1', (1, 1), True), ('s2', (1, 1), True), ('s3', (2, 1), True), ('s4', (2, None), True)]
    >>> e = c.pairs[0].edits
    >>> (e.identical, e.delete, e.split, e.merge, e.move)
    (0, ['s4'], 0, 1, 0)
    >>> [r.beside for r in compare(view, [], [("gold v1", {"clusters": [["s3", "s4"], ["s1", "s2"]]})]).sentences]
    [(2,), (2,), (1,), (1,)]
    """
    sentences = list(view["sentences"])
    items = [s["id"] for s in sentences]
    known = set(items)
    assessors = tuple(name for name, _ in judgments)
    clusterings = [[list(c) for c in payload.get("clusters", [])] for _, payload in judgments]
    by_id = {s["id"]: s for s in sentences}
    judges = [_judge_view(name, payload, by_id, items) for name, payload in judgments]
    shown = [_judge_view(label, payload, by_id, items) for label, payload in beside]
    gold = consensus_clusters(clusterings, items) if clusterings else []
    gold_of = {s: number for number, cluster in enumerate(gold, 1) for s in cluster}
    cluster_of = [{s: number for number, c in enumerate(clusters, 1) for s in c} for clusters in clusterings]
    beside_of = [{s.id: c.number for c in judge.clusters for s in c.sentences} for judge in shown]
    companions = [{s: frozenset(c) - {s} for c in clusters for s in c if s in known} for clusters in clusterings]
    rows = tuple(
        ClusteringSentenceRow(
            id=s,
            document=by_id[s]["document"],
            text=by_id[s]["text"],
            clusters=tuple(of.get(s) for of in cluster_of),
            consensus=gold_of.get(s),
            differs=len({mine.get(s) for mine in companions}) > 1,
            beside=tuple(of.get(s) for of in beside_of),
        )
        for s in items
    )
    pairs = []
    for i, j in combinations(range(len(clusterings)), 2):
        singleton = measures(clusterings[i], clusterings[j], items)["singleton"]
        pairs.append(
            ClusteringJudgePair(
                first=assessors[i],
                second=assessors[j],
                v_measure=singleton.v_measure,
                v_beta=singleton.v_beta,
                edits=edit_summary(clusterings[i], clusterings[j]),
            )
        )
    return ClusteringComparison(
        assessors=assessors,
        judges=tuple(judges),
        sentences=rows,
        pairs=tuple(pairs),
        consensus=tuple(tuple(c) for c in gold),
        beside=tuple(shown),
    )


def _judge_view(
    name: str, payload: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]], items: Sequence[str]
) -> ClusteringJudgeView:
    clusters = [list(c) for c in payload.get("clusters", [])]
    described = list(payload.get("descriptions", []))
    clustered = {s for c in clusters for s in c}
    return ClusteringJudgeView(
        assessor=name,
        clusters=tuple(
            ClusteringClusterView(
                number=number,
                description=described[number - 1] if number - 1 < len(described) else "",
                sentences=tuple(_ref(by_id, s) for s in cluster),
            )
            for number, cluster in enumerate(clusters, 1)
        ),
        unclustered=tuple(s for s in items if s not in clustered),
    )


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The kind's consensus clusters (the ``consensus`` export's: sentences at least
    half of the judges put together). A consensus cluster that is exactly one of a
    judge's clusters takes that cluster's description (the first judge's that has
    one); the others get none, for the adjudicator to write.

    >>> view = {"documents": [{"id": "d"}], "sentences": [
    ...     {"id": f"s{i}", "document": "d", "position": i, "text": f"S{i}"} for i in range(1, 5)]}
    >>> consensus(view, [{"clusters": [["s1", "s2"], ["s3", "s4"]], "descriptions": ["one", "two"]},
    ...                  {"clusters": [["s2", "s1"]], "descriptions": ["first"]}])
    {'clusters': [['s1', 's2'], ['s3', 's4']], 'descriptions': ['one', 'two']}
    """
    items = [s["id"] for s in view["sentences"]]
    clusterings = [[list(c) for c in p.get("clusters", [])] for p in payloads]
    gold = consensus_clusters(clusterings, items) if clusterings else []
    described: dict[frozenset[str], str] = {}
    for payload in payloads:
        for cluster, text in zip(payload.get("clusters", []), payload.get("descriptions", [])):
            if text and frozenset(cluster) not in described:
                described[frozenset(cluster)] = text
    return {"clusters": gold, "descriptions": [described.get(frozenset(c), "") for c in gold]}


def _ref(by_id: Mapping[str, Mapping[str, Any]], sentence: str) -> ClusteringSentenceRef:
    found = by_id.get(sentence, {})
    return ClusteringSentenceRef(id=sentence, document=found.get("document", ""), text=found.get("text", ""))
