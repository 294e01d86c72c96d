"""Nugget pyramids: label every nugget of a question vital or okay, and mark
which nuggets each system response contains.

Lin & Demner-Fushman, "Will Pyramids Built of Nuggets Topple Over?"
(nugget-pyramids_lin-demner-fushman.txt): section 2 (the answer key of
vital/okay nuggets; assessors mark the nuggets present in each response),
section 5 ("snap judgments" from the nugget list and the target only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from concord.params import Choice, ListOf, ParamsSchema
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    clean_per_topic,
    control_params,
    demo_param,
    design_param,
    interval_params,
    listing,
    require_at_most,
    require_id,
    require_ids,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)
from kinds.nuggets.stats import response_length

LABELS = ("vital", "okay")
#: Campaign ``params["tasks"]``: which parts a judgment must complete.
TASKS = ("labels", "matches")


def tasks_of(params: Mapping[str, Any] | None) -> list[str]:
    tasks = (params or {}).get("tasks", ["labels"])
    return [t for t in TASKS if t in tasks]


class NuggetsKind(Kind):
    name = "nuggets"
    label = "Nugget pyramids"
    description = "Label each nugget of a question vital or okay; mark the nuggets each response contains."
    #: The original assessor's labels would bias the snap judgments (section 5);
    #: the runs behind the responses, the matching.
    hidden_fields = ("nuggets[].label", "responses[].run")
    #: A thousand nuggets and a thousand responses per question (TREC 2005: 75 questions, 72 runs).
    limits = Limits(
        {
            "data.nuggets": 1000,
            "data.responses": 1000,
            "payload.labels": 1000,
            "payload.matches": 1000,
            "payload.matches.*": 1000,
        },
        payload_bytes=2 * 2**20,
    )
    #: Campaign params: ``tasks`` (see TASKS and tasks_of).
    params_schema = ParamsSchema(
        ListOf(
            "tasks",
            Choice("task", None, TASKS),
            ["labels"],
            min_items=1,
            max_items=len(TASKS),
            unique=True,
            label="What assessors do",
            help="What a submission must complete: labels (vital/okay for every nugget), matches (the nuggets "
            "of every response), or both.",
        ),
        design_param("Nugget pyramid", splittable=False),
        *interval_params(ranking=True),
        *control_params(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"target", "nuggets", "responses"}, required={"target", "nuggets"})
        target = require_text(data["target"], f"{field}.target", max_length=1000)
        nuggets = require_list(
            data["nuggets"], f"{field}.nuggets", min_length=1, max_length=self.limits["data.nuggets"]
        )
        cleaned = []
        for index, nugget in enumerate(nuggets):
            path = f"{field}.nuggets[{index}]"
            require_object(nugget, path, allowed={"id", "text", "label"}, required={"id", "text"})
            entry = {"id": nugget["id"], "text": require_text(nugget["text"], f"{path}.text")}
            if "label" in nugget:
                if nugget["label"] not in LABELS:
                    raise InvalidInput(f"{path}.label", "expected vital or okay")
                entry["label"] = nugget["label"]
            cleaned.append(entry)
        unique_ids(cleaned, f"{field}.nuggets")
        result: dict[str, Any] = {"target": target, "nuggets": cleaned}
        if "responses" in data:
            responses = require_list(data["responses"], f"{field}.responses", max_length=self.limits["data.responses"])
            result["responses"] = []
            for index, response in enumerate(responses):
                path = f"{field}.responses[{index}]"
                require_object(response, path, allowed={"id", "run", "text"}, required={"id", "run", "text"})
                result["responses"].append(
                    {
                        "id": response["id"],
                        "run": require_id(response["run"], f"{path}.run"),
                        "text": require_text(response["text"], f"{path}.text", allow_empty=True, max_length=1_000_000),
                    }
                )
            unique_ids(result["responses"], f"{field}.responses")
        return result

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"labels", "matches"})
        nuggets = [n["id"] for n in topic_data["nuggets"]]
        known = set(nuggets)
        tasks = tasks_of(params)
        cleaned: dict[str, Any] = {}
        labels = payload.get("labels", {})
        if not isinstance(labels, dict):
            raise InvalidInput(
                "payload.labels", f"expected an object of nugget id -> vital|okay, got {type_name(labels)}"
            )
        require_at_most(labels, "payload.labels", self.limits["payload.labels"])
        for nugget, label in labels.items():
            if nugget not in known:
                raise InvalidInput(f"payload.labels.{nugget}", "unknown nugget id")
            if label not in LABELS:
                raise InvalidInput(f"payload.labels.{nugget}", f"expected vital or okay, got {label!r}")
        cleaned["labels"] = {n: labels[n] for n in nuggets if n in labels}
        matches = payload.get("matches", {})
        if not isinstance(matches, dict):
            raise InvalidInput(
                "payload.matches", f"expected an object of response id -> [nugget ids], got {type_name(matches)}"
            )
        require_at_most(matches, "payload.matches", self.limits["payload.matches"])
        responses = [r["id"] for r in topic_data.get("responses", [])]
        known_responses = set(responses)
        for response, found in matches.items():
            if response not in known_responses:
                raise InvalidInput(f"payload.matches.{response}", "unknown response id")
            require_ids(found, f"payload.matches.{response}", max_length=self.limits["payload.matches.*"])
            unknown = [n for n in found if n not in known]
            if unknown:
                raise InvalidInput(f"payload.matches.{response}", f"unknown nugget id(s): {listing(map(str, unknown))}")
            if len(set(found)) != len(found):
                raise InvalidInput(f"payload.matches.{response}", "a nugget is listed twice")
        position = positions(nuggets)
        cleaned["matches"] = {r: in_order(matches[r], position) for r in responses if r in matches}
        if complete:
            if "labels" in tasks:
                missing = [n for n in nuggets if n not in cleaned["labels"]]
                if missing:
                    raise InvalidInput("payload.labels", f"{len(missing)} nugget(s) not labelled: {listing(missing)}")
            if "matches" in tasks:
                missing = [r for r in responses if r not in cleaned["matches"]]
                if missing:
                    raise InvalidInput("payload.matches", f"{len(missing)} response(s) not judged: {listing(missing)}")
        return cleaned

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The nuggets and responses of the assessor view, flaggable one by one."""
        return [(n["id"], n["text"]) for n in view["nuggets"]] + [
            (r["id"], r["text"][:80]) for r in view.get("responses", [])
        ]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The target, the nuggets' texts and the responses' texts: never the
        original labels nor the runs behind the responses."""
        scoped = self.scoped(topic_data, items)
        view: dict[str, Any] = {
            "target": scoped["target"],
            "nuggets": [{"id": n["id"], "text": n["text"]} for n in scoped["nuggets"]],
        }
        if "responses" in scoped:
            view["responses"] = [{"id": r["id"], "text": r["text"]} for r in scoped["responses"]]
        return view

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        done = len(payload.get("labels", {})) + len(payload.get("matches", {}))
        return done, len(topic_data["nuggets"]) + len(topic_data.get("responses", []))

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"labels": {}, "matches": {}}

    # -- control items (annotate/controls.py) -------------------------------------------

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each nugget's label, vital or okay (a control is a nugget whose label is known; the
        matches of responses are not checked)."""
        return dict(payload.get("labels", {}))

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """``vital`` or ``okay`` (any case) for a nugget of the topic."""
        if item not in {nugget["id"] for nugget in topic_data["nuggets"]}:
            raise InvalidInput(field, f"no nugget {item!r} in the topic")
        if isinstance(value, str) and value.strip().lower() in LABELS:
            return value.strip().lower()
        raise InvalidInput(field, f"{value!r} is neither vital nor okay")

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A run's responses: ``{"responses": {topic: {"text" | "length", "matches"?: [nugget ids]}}}``.

        ``length`` is the response's non-whitespace character count (taken
        from ``text`` when given); ``matches`` are the nuggets it contains
        (as NIST assessors marked them), else they come from match judgments.
        """
        return clean_per_topic(data, topics, field=field, key="responses", clean=_clean_response)


def _clean_response(response: Any, topic: Mapping[str, Any], path: str) -> dict[str, Any]:

    require_object(response, path, allowed={"text", "length", "matches"})
    if "text" in response:
        length = response_length(require_text(response["text"], f"{path}.text", allow_empty=True, max_length=1_000_000))
    elif (
        isinstance(response.get("length"), int) and not isinstance(response["length"], bool) and response["length"] >= 0
    ):
        length = response["length"]
    else:
        raise InvalidInput(
            path, "give the response's text, or its length (non-whitespace characters, a whole number >= 0)"
        )
    entry: dict[str, Any] = {"length": length}
    if "matches" in response:
        order = [n["id"] for n in topic["nuggets"]]
        found = require_ids(response["matches"], f"{path}.matches")
        known = set(order)
        unknown = [n for n in found if n not in known]
        if unknown:
            raise InvalidInput(f"{path}.matches", f"unknown nugget id(s): {listing(map(str, unknown))}")
        entry["matches"] = in_order(found, positions(order))
    return entry


def positions(ids: list[str]) -> dict[str, int]:
    """Each id's position, to put subsets in this order without scanning it again."""
    return {item: index for index, item in enumerate(ids)}


def in_order(found: list[str], position: Mapping[str, int]) -> list[str]:
    """The known ids of ``found``, each once, in the order ``position`` gives."""
    return sorted(set(found), key=position.__getitem__)
