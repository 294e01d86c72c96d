"""Sentence clustering: the split-merge analysis (KindSpec ``Analysis``).

Geiss, "Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization" (sentence-clustering-gold-standard_geiss.txt), Figure 1: every
measure as one judge's clustering is split at random down to all singletons
and merged at random up to one cluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.params import Choice, Int, ParamsSchema, Str
from kinds.clustering import stats as m
from kinds.clustering.report import METHODS, sentence_ids
from scoring.selectors import ReportInput


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


def split_merge_ready(facts) -> str | None:
    """Why the split-merge analysis cannot run yet (``Analysis.ready``), or None."""
    if not facts.judgments:
        return "no submitted clustering yet"
    return None
