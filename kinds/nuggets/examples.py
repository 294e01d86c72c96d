"""Small valid data of the nuggets kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from collections.abc import Mapping
from typing import Any

from kinds.nuggets.data import LABELS
from kinds.spec import Examples


def sized(counts: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Nuggets, responses, labels and matches to the sizes asked (Examples.sized): the first
    response matches as many nuggets as asked, every other one the last nugget."""
    nuggets = [
        {"id": f"n{k}", "text": f"Nugget {k}", "label": LABELS[k % 2]}
        for k in range(max(1, counts["data.nuggets"], counts["payload.labels"], counts["payload.matches.*"]))
    ]
    responses = [
        {"id": f"r{k}", "run": f"run{k % 7}", "text": f"Response {k}"}
        for k in range(max(1, counts["data.responses"], counts["payload.matches"]))
    ]
    labels = {n["id"]: LABELS[k % 2] for k, n in enumerate(nuggets[: counts["payload.labels"]])}
    ids = [n["id"] for n in nuggets]
    matches = {
        r["id"]: ids[: counts["payload.matches.*"]] if k == 0 else ids[-1:]
        for k, r in enumerate(responses[: counts["payload.matches"]])
    }
    return {"target": "A target", "nuggets": nuggets, "responses": responses}, {"labels": labels, "matches": matches}


EXAMPLES = Examples(
    topic={
        "target": "Aspirin",
        "nuggets": [
            {"id": "n1", "text": "a painkiller", "label": "vital"},
            {"id": "n2", "text": "made by Bayer", "label": "okay"},
        ],
        "responses": [
            {"id": "r1", "run": "sysA", "text": "Aspirin is a painkiller."},
            {"id": "r2", "run": "sysB", "text": "Bayer sells it."},
        ],
    },
    payloads=(
        {"labels": {"n1": "vital", "n2": "vital"}, "matches": {"r1": ["n1"], "r2": ["n2"]}},
        {"labels": {"n1": "vital", "n2": "okay"}, "matches": {"r1": ["n1"], "r2": []}},
    ),
    run={"responses": {"t1": {"text": "Aspirin is a painkiller.", "matches": ["n1"]}}},
    params={"tasks": ["labels", "matches"]},
    sized=sized,
)
