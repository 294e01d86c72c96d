"""Pair adjudication: judge each candidate of a query match / no match.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search", section 2.2: adjudication pools of candidate records per query.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotate.kinds.base import (
    InvalidInput,
    Kind,
    listing,
    require_id,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)


class PairsKind(Kind):
    name = "pairs"
    label = "Pair adjudication"
    description = "Judge each candidate of a query: match or no match."
    report_module = "scoring.reports.pairs"
    judge_template = "annotate/judge_pairs.html"

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"query", "candidates"}, required={"query", "candidates"})
        query = require_text(data["query"], f"{field}.query")
        candidates = require_list(data["candidates"], f"{field}.candidates", min_length=1)
        cleaned = []
        for index, candidate in enumerate(candidates):
            path = f"{field}.candidates[{index}]"
            require_object(candidate, path, allowed={"id", "text", "runs"}, required={"id", "text"})
            entry: dict[str, Any] = {"id": candidate["id"], "text": require_text(candidate["text"], f"{path}.text")}
            if "runs" in candidate:
                runs = require_list(candidate["runs"], f"{path}.runs")
                entry["runs"] = [require_id(run, f"{path}.runs[{i}]") for i, run in enumerate(runs)]
            cleaned.append(entry)
        unique_ids(cleaned, f"{field}.candidates")
        return {"query": query, "candidates": cleaned}

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"matches"}, required={"matches"})
        matches = payload["matches"]
        if not isinstance(matches, dict):
            raise InvalidInput("payload.matches", f"expected an object, got {type_name(matches)}")
        known = [c["id"] for c in topic_data["candidates"]]
        known_set = set(known)
        for candidate_id, value in matches.items():
            if candidate_id not in known_set:
                raise InvalidInput(f"payload.matches.{candidate_id}", "unknown candidate id")
            if not isinstance(value, bool):
                raise InvalidInput(f"payload.matches.{candidate_id}", f"expected true or false, got {type_name(value)}")
        if complete:
            missing = [c for c in known if c not in matches]
            if missing:
                raise InvalidInput(
                    "payload.matches", f"{len(missing)} candidate(s) not judged: {listing(missing)}"
                )
        # Topic order, so stored payloads are canonical.
        return {"matches": {c: matches[c] for c in known if c in matches}}

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return len(payload.get("matches", {})), len(topic_data["candidates"])

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"matches": {}}

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        return {"matches": dict(labels)}
