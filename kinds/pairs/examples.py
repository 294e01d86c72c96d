"""Small valid data of the pairs kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

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
EXAMPLES = Examples(
    topic=TOPIC,
    payloads=(
        {"matches": {"c1": True, "c2": True, "c3": False, "c4": True}},
        {"matches": {"c1": True, "c2": False, "c3": False, "c4": True}},
    ),
    run={"results": {"t1": [{"id": "c1", "text": "Jon Smith", "score": 0.9}]}},
)
