"""Small valid data of the ordering kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from collections.abc import Mapping
from typing import Any

from kinds.spec import Examples


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Items and an ordering of them to the sizes asked (Examples.sized)."""
    items = [{"id": f"i{k}", "text": f"Item {k}"} for k in range(max(2, counts["data.items"], counts["payload.order"]))]
    return {"items": items}, {"order": [item["id"] for item in reversed(items)][: counts["payload.order"]]}


EXAMPLES = Examples(
    topic={"items": [{"id": "a", "text": "Boil water"}, {"id": "b", "text": "Add tea"}, {"id": "c", "text": "Pour"}]},
    payloads=({"order": ["a", "b", "c"]}, {"order": ["b", "a", "c"]}),
    run={"orderings": {"t1": ["a", "c", "b"]}},
    sized=sized,
)
