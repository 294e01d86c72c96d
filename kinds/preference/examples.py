"""Small valid data of the preference kind (kinds.spec.Examples): a prompt with three systems'
outputs, two assessors' verdicts on its three pairs that disagree, a reason typed."""

from collections.abc import Mapping
from typing import Any

from kinds.preference.data import MAX_REPEATS, pair_ids
from kinds.spec import Examples

TOPIC = {
    "prompt": "Name a prime number and say why it is prime.",
    "outputs": [
        {"system": "gpt", "text": "7: its only divisors are 1 and 7."},
        {"system": "llama", "text": "9, because it is odd."},
        {"system": "mistral", "text": "2, the only even prime."},
    ],
}
PARAMS = {"tie_model": "davidson", "anchor": "gpt", "anchor_rating": 1200.0, "both_bad": True, "reasons": True}


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Outputs and verdicts to the sizes asked (Examples.sized): as many outputs as the verdicts'
    pairs need, each pair judged at most MAX_REPEATS times."""
    verdicts = counts["payload.verdicts"]
    needed = -(-verdicts // MAX_REPEATS)
    n = max(2, counts["data.outputs"])
    while n * (n - 1) // 2 < needed:
        n += 1
    pairs = pair_ids(n)
    topic = {"prompt": "p", "outputs": [{"system": f"s{k}", "text": f"output {k}"} for k in range(n)]}
    payload = {"verdicts": [{"pair": pairs[k % len(pairs)], "choice": "tie"} for k in range(verdicts)]}
    return topic, payload


EXAMPLES = Examples(
    topic=TOPIC,
    payloads=(
        {
            "verdicts": [
                {"pair": "1-2", "choice": "left"},
                {"pair": "1-3", "choice": "tie"},
                {"pair": "2-3", "choice": "right"},
            ]
        },
        {
            "verdicts": [
                {"pair": "1-2", "choice": "left", "reason": "9 is not prime"},
                {"pair": "1-3", "choice": "right"},
                {"pair": "2-3", "choice": "both_bad"},
            ]
        },
    ),
    free_text=("verdicts[].reason",),
    params=PARAMS,
    sized=sized,
)
