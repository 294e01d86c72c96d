"""Small valid data of the factoids kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

import math
from collections.abc import Mapping
from typing import Any

from kinds.factoids.data import FactoidsKind
from kinds.spec import Examples

LIMITS = FactoidsKind.limits


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Summaries, an inventory and marks to the sizes asked (Examples.sized): the first
    summary (and, when more sentences are marked, the next ones) as long as asked, the
    first sentence marked with as many factoids as asked (the inventory within its cap),
    every other marked one with the inventory's last."""
    per_summary = LIMITS["data.summaries[].sentences"]
    marked = counts["payload.marks"]
    longest = max(1, counts["data.summaries[].sentences"], min(marked, per_summary))
    summaries, placed = [], 0
    for k in range(max(1, counts["data.summaries"], math.ceil(marked / longest))):
        size = longest if placed < max(marked, longest) else 1
        sentences = [{"id": f"s{placed + j}", "text": f"Sentence {placed + j}"} for j in range(size)]
        summaries.append({"id": f"S{k}", ("author" if k % 2 == 0 else "run"): f"who{k}", "sentences": sentences})
        placed += size
    inventory = max(1, counts["payload.factoids"], min(counts["payload.marks.*"], LIMITS["payload.factoids"]))
    factoids = [{"id": f"f{k}", "text": f"Factoid {k}"} for k in range(inventory)]
    ids = [f["id"] for f in factoids]
    # Past the inventory's cap the first sentence's list repeats factoids.
    first = [ids[k % inventory] for k in range(counts["payload.marks.*"])]
    marks = {f"s{k}": first if k == 0 else ids[-1:] for k in range(marked)}
    return {"text": "The text.", "summaries": summaries}, {"factoids": factoids, "marks": marks}


EXAMPLES = Examples(
    topic={
        "text": "Iraq invaded Kuwait. Oil went up.",
        "summaries": [
            {
                "id": "M1",
                "author": "ann-a",
                "sentences": [{"id": "m1s1", "text": "Iraq invaded Kuwait."}, {"id": "m1s2", "text": "Oil went up."}],
            },
            {"id": "S1", "run": "sys-1", "sentences": [{"id": "x1", "text": "Kuwait was invaded."}]},
        ],
    },
    payloads=(
        {
            "factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}, {"id": "F2", "text": "Oil rose"}],
            "marks": {"m1s1": ["F1"], "m1s2": ["F2"], "x1": []},
        },
        {
            "factoids": [{"id": "F1", "text": "Kuwait was invaded"}, {"id": "F2", "text": "Oil rose"}],
            "marks": {"m1s1": ["F1"], "m1s2": ["F2"], "x1": ["F1"]},
        },
    ),
    free_text=("factoids[].text",),
    sized=sized,
)
