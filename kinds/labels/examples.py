"""Small valid data of the labels kind (kinds.spec.Examples): a topic of items, two assessors'
submissions that disagree (one saying "can't tell"), a reference labelling."""

from collections.abc import Mapping
from typing import Any

from kinds.spec import Examples

TOPIC = {
    "items": [
        {"id": "i1", "text": "The service was quick and the staff friendly."},
        {"id": "i2", "text": "Cold food, long wait.", "link": "https://example.org/reviews/2"},
        {"id": "i3", "text": "It was a restaurant."},
        {"id": "i4", "text": "Best soup in town, terrible dessert.", "image": "https://example.org/photos/4.jpg"},
    ],
}
PARAMS = {"level": "ordinal", "categories": ["negative", "neutral", "positive"], "cant_tell": True}


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Items and labels to the sizes asked (Examples.sized)."""
    items = [
        {"id": f"i{k}", "text": f"Item {k}"} for k in range(max(1, counts["data.items"], counts["payload.labels"]))
    ]
    labels = {item["id"]: ("yes", "no")[k % 2] for k, item in enumerate(items[: counts["payload.labels"]])}
    return {"items": items}, {"labels": labels}


EXAMPLES = Examples(
    topic=TOPIC,
    payloads=(
        {"labels": {"i1": "positive", "i2": "negative", "i3": "neutral", "i4": "neutral"}},
        {"labels": {"i1": "positive", "i2": "negative", "i3": None, "i4": "positive"}},
    ),
    run={"reference": True, "labels": {"t1": {"i1": "positive", "i2": "negative", "i4": "neutral"}}},
    params=PARAMS,
    sized=sized,
)
