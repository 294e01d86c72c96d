"""Orderings: an assessor puts a topic's items in order (e.g. the sentences
of a summary, or answers from best to worst).

Kim, Zhai & Han, "Evaluating ordered lists" (ordered-lists_kim-zhai-han.txt),
section 3: each assessor's ordering of the same items is one gold standard.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from concord.params import Choice, Float, Object, ParamsSchema
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    clean_per_topic,
    demo_param,
    design_param,
    interval_params,
    listing,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)


class OrderingKind(Kind):
    name = "ordering"
    label = "Ordering"
    description = "Put the items of a topic in order."
    hidden_fields = ()
    #: A person orders at most a thousand items (SQuALITY's questions have four or five answers).
    limits = Limits({"data.items": 1000, "payload.order": 1000})
    #: Campaign params: ``frespa`` is FreSPA's setting (kinds/ordering/report.py
    #: frespa_setting; written by the frespa-tune analysis), the paper's when absent;
    #: ``wca_weights`` WCA's weights (report.wca_weights), clamped when absent.
    params_schema = ParamsSchema(
        Object(
            "frespa",
            [
                Float(
                    "min_sup",
                    0.75,
                    min=0.0,
                    max=1.0,
                    label="FreSPA: minimum support",
                    help="Minimum support of a frequent pattern (share of the golds).",
                ),
                Float(
                    "w_len",
                    1.0,
                    min=0.0,
                    max=1000.0,
                    label="FreSPA: weight of length",
                    help="Weight of a pattern's length.",
                ),
                Float(
                    "w_sup",
                    1.0,
                    min=0.0,
                    max=1000.0,
                    label="FreSPA: weight of support",
                    help="Weight of a pattern's support.",
                ),
                Float(
                    "min_len_ratio",
                    0.0,
                    min=0.0,
                    max=1.0,
                    label="FreSPA: shortest pattern",
                    help="Shortest pattern, as a ratio of the topic's items (0: 2).",
                ),
                Float(
                    "max_len_ratio",
                    1.0,
                    min=0.0,
                    max=1.0,
                    label="FreSPA: longest pattern",
                    help="Longest pattern, as a ratio of the topic's items (1: all).",
                ),
            ],
            help="FreSPA's parameters (Kim, Zhai & Han 2010, Tables 2-4); absent: the paper's defaults.",
        ),
        Choice(
            "wca_weights",
            None,
            ("clamped", "paper"),
            label="WCA weights",
            help="WCA's weights (Kim, Zhai & Han 2010, section 4.2): clamped (negative weights taken as 0, "
            "scores in [-1, 1]; the default when absent) or paper (sum of w*C over sum of w, negative weights "
            "included, as the paper writes it).",
        ),
        design_param("Ordering", splittable=False),
        *interval_params(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"items"}, required={"items"})
        items = require_list(data["items"], f"{field}.items", min_length=2, max_length=self.limits["data.items"])
        cleaned = []
        for index, item in enumerate(items):
            path = f"{field}.items[{index}]"
            require_object(item, path, allowed={"id", "text"}, required={"id", "text"})
            cleaned.append({"id": item["id"], "text": require_text(item["text"], f"{path}.text")})
        unique_ids(cleaned, f"{field}.items")
        return {"items": cleaned}

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        # A draft is an ordering too (the page always holds one), so drafts
        # and submissions are checked alike.
        require_object(payload, "payload", allowed={"order"}, required={"order"})
        order = require_list(payload["order"], "payload.order", max_length=self.limits["payload.order"])
        return {"order": check_permutation(order, [i["id"] for i in topic_data["items"]], "payload.order")}

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The items of the assessor view, flaggable one by one."""
        return [(i["id"], i["text"]) for i in view["items"]]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """Every item: nothing of an ordering topic is hidden."""
        scoped = self.scoped(topic_data, items)
        return {"items": [{"id": i["id"], "text": i["text"]} for i in scoped["items"]]}

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return (1 if payload.get("order") else 0), 1

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"order": []}

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A system's orderings: ``{"orderings": {topic: [item ids]}}``, each a permutation."""
        return clean_per_topic(
            data,
            topics,
            field=field,
            key="orderings",
            clean=lambda order, topic, path: check_permutation(order, [item["id"] for item in topic["items"]], path),
        )

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        """Ranks (1 = first) per item -> the ordering."""
        return {"order": sorted(labels, key=lambda item: labels[item])}

    def initial_payload(self, topic_data: Mapping[str, Any], *, seed: str) -> dict[str, Any]:
        """The assessor's own shuffled starting order, stable across reloads,
        so no position bias is shared between assessors."""
        order = [item["id"] for item in topic_data["items"]]
        random.Random(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")).shuffle(order)
        return {"order": order}


def check_permutation(order: Any, items: list[str], field: str) -> list[str]:
    """``order`` must list every one of ``items`` exactly once."""
    require_list(order, field)
    for index, item in enumerate(order):
        if not isinstance(item, str):
            raise InvalidInput(f"{field}[{index}]", f"expected an item id (a string), got {type_name(item)}")
    known, given = set(items), set(order)
    duplicated = [item for item, count in Counter(order).items() if count > 1]
    unknown = [item for item in order if item not in known]
    missing = [item for item in items if item not in given]
    problems = []
    if unknown:
        problems.append(f"unknown item id(s): {listing(unknown)}")
    if duplicated:
        problems.append(f"duplicated item id(s): {listing(duplicated)}")
    if missing:
        problems.append(f"missing item id(s): {listing(missing)}")
    if problems:
        raise InvalidInput(field, "; ".join(problems) + f" (expected each of the topic's {len(items)} items once)")
    return list(order)
