"""Small valid data of the factoids kind (kinds.spec.Examples): a topic holding
every hidden field, two assessors' submissions that disagree, a run."""

from kinds.spec import Examples

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
)
