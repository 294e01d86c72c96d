"""Small valid data of the clustering kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from kinds.spec import Examples

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
)
