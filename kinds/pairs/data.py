"""Pair adjudication: judge each candidate of a query match / no match.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search", section 2.2: adjudication pools of candidate records per query.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from concord.params import ParamsSchema
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    adaptive_params,
    control_params,
    demo_param,
    design_param,
    interval_params,
    listing,
    reference_param,
    require_at_most,
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
    #: Which systems returned a candidate: knowing it would bias the judgment.
    hidden_fields = ("candidates[].runs",)
    #: Ten thousand candidates per query (Arehart et al.'s 100 pools held 1,712 candidates in all).
    limits = Limits(
        {"data.candidates": 10_000, "data.candidates[].runs": 1000, "payload.matches": 10_000},
        payload_bytes=2 * 2**20,
    )
    #: Campaign params (annotate.services.assignments.assign_topics reads ``design``).
    params_schema = ParamsSchema(
        design_param("Pair adjudication", splittable=True, adaptive=True),
        *adaptive_params(),
        *interval_params(ranking=True),
        *control_params(),
        reference_param(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"query", "candidates"}, required={"query", "candidates"})
        query = require_text(data["query"], f"{field}.query")
        candidates = require_list(
            data["candidates"], f"{field}.candidates", min_length=1, max_length=self.limits["data.candidates"]
        )
        cleaned = []
        for index, candidate in enumerate(candidates):
            path = f"{field}.candidates[{index}]"
            require_object(candidate, path, allowed={"id", "text", "runs"}, required={"id", "text"})
            entry: dict[str, Any] = {"id": candidate["id"], "text": require_text(candidate["text"], f"{path}.text")}
            if "runs" in candidate:
                runs = require_list(candidate["runs"], f"{path}.runs", max_length=self.limits["data.candidates[].runs"])
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
        require_at_most(matches, "payload.matches", self.limits["payload.matches"])
        known = [c["id"] for c in topic_data["candidates"]]
        scope = (params or {}).get("scope")
        if scope is not None:  # this assessor judges only some candidates (one adjudicator per pair)
            assigned = set(scope)
            known = [c for c in known if c in assigned]
        known_set = set(known)
        for candidate_id, value in matches.items():
            if candidate_id not in known_set:
                problem = (
                    "not assigned to you"
                    if scope is not None and any(c["id"] == candidate_id for c in topic_data["candidates"])
                    else "unknown candidate id"
                )
                raise InvalidInput(f"payload.matches.{candidate_id}", problem)
            if not isinstance(value, bool):
                raise InvalidInput(f"payload.matches.{candidate_id}", f"expected true or false, got {type_name(value)}")
        if complete:
            missing = [c for c in known if c not in matches]
            if missing:
                raise InvalidInput("payload.matches", f"{len(missing)} candidate(s) not judged: {listing(missing)}")
        # Topic order, so stored payloads are canonical.
        return {"matches": {c: matches[c] for c in known if c in matches}}

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        if items is None:
            return topic_data
        wanted = set(items)
        return {**topic_data, "candidates": [c for c in topic_data["candidates"] if c["id"] in wanted]}

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The candidates of the assessor view, flaggable one by one."""
        return [(c["id"], c["text"]) for c in view["candidates"]]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The query and the assessor's candidates, without the runs that returned them."""
        scoped = self.scoped(topic_data, items)
        return {
            "query": scoped["query"],
            "candidates": [{"id": c["id"], "text": c["text"]} for c in scoped["candidates"]],
        }

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        return [c["id"] for c in topic_data["candidates"]]

    def item_labels(self, payload: Mapping[str, Any]) -> dict[str, bool]:
        """Each candidate's match (True) or no match (False): the adaptive design reads candidates one by one."""
        return dict(payload.get("matches", {}))

    def label_classes(self, params: Mapping[str, Any]) -> tuple[bool, ...]:
        return (False, True)

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each candidate's match (True) or no match (False)."""
        return self.item_labels(payload)

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """True (a match) or False; the words "match" / "no match" as the import files write them."""
        if item not in self.items(topic_data):
            raise InvalidInput(field, f"no candidate {item!r} in the topic")
        words = {"match": True, "true": True, "1": True, "no match": False, "false": False, "0": False}
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in words:
            return words[value.strip().lower()]
        raise InvalidInput(field, f"{value!r} is neither match (true) nor no match (false)")

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A system's results, ``{"results": {query: [{"id", "text", "score"?}, ...]}}``
        (best first), or a reference labelling ``{"reference": true, "labels": {query: {candidate: bool}}}``."""
        if isinstance(data, dict) and data.get("reference") is True:
            return self._clean_reference(data, topics, field=field)
        require_object(data, field, allowed={"results"}, required={"results"})
        results = data["results"]
        if not isinstance(results, dict):
            raise InvalidInput(f"{field}.results", "expected an object of query id -> list of results")
        cleaned = {}
        for query, found in results.items():
            path = f"{field}.results.{query}"
            if query not in topics:
                raise InvalidInput(path, "unknown query (not a topic of this campaign)")
            # Results outside the topic's pool (the query's exact matches, results
            # below a pool's depth) are kept: they are not candidates, so not scored.
            require_list(found, path)
            rows = []
            for index, result in enumerate(found):
                require_object(result, f"{path}[{index}]", allowed={"id", "text", "score"}, required={"id", "text"})
                score = result.get("score")
                if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
                    raise InvalidInput(f"{path}[{index}].score", "expected a number")
                rows.append(
                    {
                        "id": result["id"],
                        "text": require_text(result["text"], f"{path}[{index}].text"),
                        **({"score": score} if score is not None else {}),
                    }
                )
            unique_ids(rows, path)
            cleaned[query] = rows
        return {"results": cleaned}

    @staticmethod
    def _clean_reference(data: dict, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """``{"reference": true, "labels": {topic: {candidate: true|false}}}``: known topics and candidates."""
        require_object(data, field, allowed={"reference", "labels"}, required={"labels"})
        labels = data["labels"]
        if not isinstance(labels, dict) or not labels:
            raise InvalidInput(
                f"{field}.labels", "expected an object of topic id -> {candidate: true|false}, with at least one topic"
            )
        for topic, answers in labels.items():
            path = f"{field}.labels.{topic}"
            if topic not in topics:
                raise InvalidInput(path, "unknown topic")
            if not isinstance(answers, dict) or not answers:
                raise InvalidInput(path, f"expected an object of candidate id -> true|false, got {type_name(answers)}")
            known = {c["id"] for c in topics[topic]["candidates"]}
            for candidate, value in answers.items():
                if candidate not in known:
                    raise InvalidInput(f"{path}.{candidate}", "unknown candidate id")
                if not isinstance(value, bool):
                    raise InvalidInput(f"{path}.{candidate}", f"expected true or false, got {type_name(value)}")
        return {"reference": True, "labels": labels}

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return len(payload.get("matches", {})), len(topic_data["candidates"])

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"matches": {}}

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        return {"matches": dict(labels)}

    def labels_of_payload(self, payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return dict(payload["matches"])

    def topic_for_item(self, item: str) -> dict[str, Any] | None:
        """A query of one candidate, both named by the item (as a CrowdTruth file's item without its text)."""
        return {
            "external_id": item,
            "title": f"Item {item}",
            "data": {"query": f"Item {item}", "candidates": [{"id": "item", "text": f"Item {item}"}]},
        }

    def reference_payload(self, run_data: Mapping[str, Any], topic_id: str) -> dict[str, Any] | None:
        """The reference's match / no match of each candidate it labels (``_clean_reference``'s shape)."""
        labels = run_data.get("labels", {}).get(topic_id) if run_data.get("reference") is True else None
        return {"matches": dict(labels)} if labels else None
