"""Small valid data of the clustering kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from collections.abc import Mapping
from typing import Any

from kinds.clustering.data import ClusteringKind
from kinds.spec import Examples

LIMITS = ClusteringKind.limits


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Documents, sentences and clusters to the sizes asked (Examples.sized): the first
    cluster as long as asked, the others one sentence each, and as many clusters as
    descriptions when more are asked for (up to the cap on clusters). Clusters share no
    sentence: beside other clusters, the first takes what the cap on sentences leaves."""
    clusters = max(1, counts["payload.clusters"], min(counts["payload.descriptions"], LIMITS["payload.clusters"]))
    first = max(1, counts["payload.clusters[]"])
    if clusters > 1:
        first = max(1, min(first, LIMITS["data.sentences"] - clusters + 1))
    documents = [{"id": f"d{k}", "title": f"Document {k}"} for k in range(max(1, counts["data.documents"]))]
    n = max(2, counts["data.sentences"], first + clusters - 1)
    sentences = [
        {"id": f"s{k}", "document": f"d{k % len(documents)}", "position": k // len(documents), "text": f"Sentence {k}"}
        for k in range(n)
    ]
    ids = [f"s{k}" for k in range(n)]
    groups = [ids[:first], *([i] for i in ids[first : first + clusters - 1])]
    descriptions = [f"cluster {k}" for k in range(max(len(groups), counts["payload.descriptions"]))]
    return {"documents": documents, "sentences": sentences}, {"clusters": groups, "descriptions": descriptions}


EXAMPLES = Examples(
    topic={
        "documents": [{"id": "d1", "title": "One"}, {"id": "d2", "title": "Two"}],
        "sentences": [
            {"id": "s1", "document": "d1", "position": 0, "text": "The volcano erupted."},
            {"id": "s2", "document": "d1", "position": 1, "text": "Ash fell on the town."},
            {"id": "s3", "document": "d2", "position": 0, "text": "An eruption began on Monday."},
            {"id": "s4", "document": "d2", "position": 1, "text": "Flights were cancelled."},
        ],
    },
    payloads=(
        {"clusters": [["s1", "s3"], ["s2", "s4"]], "descriptions": ["eruption", "effects"]},
        {"clusters": [["s1", "s3", "s2"]], "descriptions": ["the eruption and its effects"]},
    ),
    free_text=("descriptions[]",),
    run={"clusterings": {"t1": [["s1", "s3"]]}},
    sized=sized,
)
