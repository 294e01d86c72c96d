"""Small valid data of the ordering kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from kinds.spec import Examples

EXAMPLES = Examples(
    topic={"items": [{"id": "a", "text": "Boil water"}, {"id": "b", "text": "Add tea"}, {"id": "c", "text": "Pour"}]},
    payloads=({"order": ["a", "b", "c"]}, {"order": ["b", "a", "c"]}),
    run={"orderings": {"t1": ["a", "c", "b"]}},
)
