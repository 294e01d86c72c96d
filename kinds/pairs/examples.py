"""Small valid data of the pairs kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from collections.abc import Mapping
from typing import Any

from kinds.spec import Examples

TOPIC = {
    "query": "John Smith",
    "candidates": [
        {"id": "c1", "text": "Jon Smith", "runs": ["sysA"]},
        {"id": "c2", "text": "J. Smyth", "runs": ["sysA", "sysB"]},
        {"id": "c3", "text": "Joan Smit"},
        {"id": "c4", "text": "John Smithe", "runs": ["sysB"]},
    ],
}


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Candidates (the first returned by many runs) and matches to the sizes asked (Examples.sized)."""
    runs = counts["data.candidates[].runs"]
    candidates = [
        {"id": f"c{k}", "text": f"Candidate {k}", "runs": [f"run{r}" for r in range(runs if k == 0 else 1)]}
        for k in range(max(1, counts["data.candidates"], counts["payload.matches"]))
    ]
    matches = {c["id"]: k % 2 == 0 for k, c in enumerate(candidates[: counts["payload.matches"]])}
    return {"query": "A name", "candidates": candidates}, {"matches": matches}


EXAMPLES = Examples(
    topic=TOPIC,
    payloads=(
        {"matches": {"c1": True, "c2": True, "c3": False, "c4": True}},
        {"matches": {"c1": True, "c2": False, "c3": False, "c4": True}},
    ),
    run={"results": {"t1": [{"id": "c1", "text": "Jon Smith", "score": 0.9}]}},
    sized=sized,
)
