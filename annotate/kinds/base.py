"""The small protocol every judgment kind implements, and checking helpers.

A kind says what a topic's data looks like, what a judgment payload looks
like, and when a judgment is complete. Errors name the offending field with a
dotted path (``payload.matches.c7``) so a client can point at it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

# Ids appear in URLs and in whitespace-separated formats such as TREC qrels.
_ID = re.compile(r"[^\s/]{1,200}")


class InvalidInput(ValueError):
    """Bad input: ``field`` is the dotted path of what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Kind:
    """Base class of the judgment kinds (see annotate/kinds/__init__.py)."""

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    #: Dotted path of the scoring module (scoring/reports/<kind>.py).
    report_module: ClassVar[str]
    #: Template of the judging page.
    judge_template: ClassVar[str]
    #: The fields of a topic's data an assessor never sees (blind assessment),
    #: as dotted paths: ``"nuggets[].label"`` is the ``label`` of every entry
    #: of the list ``nuggets``. Every kind declares it (``()`` when nothing is
    #: hidden); there is no default, so a new kind cannot forget it. Only
    #: ``assessor_view()`` acts on it; tests/security/test_security_blind.py
    #: plants markers at these paths and checks no assessor ever receives one.
    hidden_fields: ClassVar[tuple[str, ...]]

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        raise NotImplementedError

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Return the payload normalised; raise InvalidInput naming the field.

        ``complete`` is True for a submission, which must be whole; a draft
        may be partial but may never contain unknown ids or wrong types.
        ``params`` are the campaign's, for kinds with campaign-level options.
        """
        raise NotImplementedError

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        """(decisions made, decisions needed) for a progress bar."""
        raise NotImplementedError

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """Validate a run's data against the campaign's topics (external id -> data)."""
        if not isinstance(data, dict):
            raise InvalidInput(field, "expected an object")
        return data

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        """The part of a topic an assessor judges (``items`` from the assignment; None: all)."""
        return topic_data

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """What an assessor may see of a topic: the one place that decides it.

        The part of the topic they judge (``scoped()`` with ``items`` from
        their assignment; None: all of it), rebuilt from the fields an
        assessor may see, so none of ``hidden_fields`` (nor any field a later
        version adds to the topic data) reaches them. The judging page
        renders only this; the topics API and every other endpoint take a
        topic's data from annotate.selectors.topic_data_for, which gives
        assessors this and organisers and admins the full data.
        """
        raise NotImplementedError

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        """The ids an assignment can split a topic into (kinds that allow it)."""
        raise InvalidInput("params.design", f"{self.label} topics cannot be split between assessors")

    def initial_payload(self, topic_data: Mapping[str, Any], *, seed: str) -> dict[str, Any]:
        """What the judging page starts from for a new judgment; ``seed``
        is stable per assessor and topic."""
        return self.empty_payload(topic_data)

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        """A payload from imported (item id -> label) crowd rows, if the kind takes them."""
        raise InvalidInput("campaign", f"{self.label} campaigns do not import crowd label files")


# -- checking helpers shared by the kinds ---------------------------------


def require_object(value: Any, field: str, *, allowed: Iterable[str], required: Iterable[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise InvalidInput(field, f"expected an object, got {type_name(value)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InvalidInput(f"{field}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in value:
            raise InvalidInput(f"{field}.{key}", "this field is required")
    return value


def clean_per_topic(
    data: Any,
    topics: Mapping[str, Mapping[str, Any]],
    *,
    field: str,
    key: str,
    clean: "Callable[[Any, Mapping[str, Any], str], Any]",
) -> dict[str, Any]:
    """Run data of the shape ``{key: {topic id: value}}``: every topic known,
    every value cleaned by ``clean(value, topic_data, path)``."""
    require_object(data, field, allowed={key}, required={key})
    entries = data[key]
    if not isinstance(entries, dict) or not entries:
        raise InvalidInput(f"{field}.{key}", "expected an object of topic id -> value, with at least one topic")
    cleaned = {}
    for topic, value in entries.items():
        if topic not in topics:
            raise InvalidInput(f"{field}.{key}.{topic}", "unknown topic")
        cleaned[topic] = clean(value, topics[topic], f"{field}.{key}.{topic}")
    return {key: cleaned}


def require_list(value: Any, field: str, *, min_length: int = 0) -> list:
    if not isinstance(value, list):
        raise InvalidInput(field, f"expected a list, got {type_name(value)}")
    if len(value) < min_length:
        raise InvalidInput(field, f"expected at least {min_length} entries, got {len(value)}")
    return value


def require_text(value: Any, field: str, *, allow_empty: bool = False, max_length: int = 100_000) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a string, got {type_name(value)}")
    if not allow_empty and not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_length:
        raise InvalidInput(field, f"longer than {max_length} characters")
    return value


def require_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidInput(field, "expected an id: 1 to 200 characters, no white space and no '/'")
    if value in (".", ".."):
        # In a link (/campaigns/1/topics/../judge/) a browser resolves them
        # as path segments and lands on another page.
        raise InvalidInput(field, "'.' and '..' are not ids (a link to them leads elsewhere)")
    return value


def require_ids(values: Any, field: str) -> list[str]:
    """A list of id strings (checked before any set or dict operation on them)."""
    require_list(values, field)
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise InvalidInput(f"{field}[{index}]", f"expected an id (a string), got {type_name(value)}")
    return values


def unique_ids(entries: list[dict], field: str) -> list[str]:
    ids: list[str] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        item_id = require_id(entry.get("id"), f"{field}[{index}].id")
        if item_id in seen:
            raise InvalidInput(f"{field}[{index}].id", f"duplicate id {item_id!r}")
        seen.add(item_id)
        ids.append(item_id)
    return ids


def listing(ids: Iterable[str], limit: int = 10) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )
