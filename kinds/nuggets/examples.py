"""Small valid data of the nuggets kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from kinds.spec import Examples

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
)
