"""Small valid data of the relevance kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from collections.abc import Mapping
from typing import Any

from kinds.spec import Examples

TOPIC = {
    "title": "coral reef bleaching",
    "description": "What causes coral reefs to bleach?",
    "narrative": "Relevant documents name a cause of bleaching; reports of bleaching alone are related.",
    "documents": [
        {"id": "d1", "text": "Marine heatwaves expel the algae that live in coral tissue.", "runs": ["bm25", "dense"]},
        {"id": "d2", "text": "The Great Barrier Reef saw mass bleaching in 2016.", "runs": ["bm25"]},
        {"id": "d3", "text": "Reef fish markets in the Pacific."},
        {"id": "d4", "text": "Ocean acidification and warm water stress corals.", "runs": ["dense"]},
    ],
}


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Documents (the first retrieved by many runs) and grades to the sizes asked (Examples.sized)."""
    runs = counts["data.documents[].runs"]
    documents = [
        {"id": f"d{k}", "text": f"Document {k}", "runs": [f"run{r}" for r in range(runs if k == 0 else 1)]}
        for k in range(max(1, counts["data.documents"], counts["payload.grades"]))
    ]
    grades = {d["id"]: k % 4 for k, d in enumerate(documents[: counts["payload.grades"]])}
    return {"title": "A query", "documents": documents}, {"grades": grades}


EXAMPLES = Examples(
    topic=TOPIC,
    payloads=(
        {"grades": {"d1": 3, "d2": 1, "d3": 0, "d4": 2}},
        {"grades": {"d1": 2, "d2": 0, "d3": 0, "d4": 2}},
    ),
    run={"ranking": {"t1": [["d1", 2.5], ["d2", 1.5], ["d9", 0.5]]}},
    params={"scale": ["non-relevant", "related", "relevant", "highly relevant"], "threshold": 1},
    sized=sized,
)
