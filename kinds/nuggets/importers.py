"""Files of the nuggets kind: TREC-like questions, answer keys, runs and matches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from concord import reading
from concord.errors import InvalidInput


def _tab_rows(raw: bytes | str, columns: int, what: str):
    """Non-empty, non-comment lines split on tabs into ``columns`` fields (the last takes the rest)."""
    for line, text in reading.numbered(raw, what):
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.rstrip("\n").split("\t", columns - 1)
        if len(fields) < columns or not all(f.strip() for f in fields[: columns - 1]):
            raise InvalidInput(f"{what}: line {line}", f"expected {columns} tab-separated fields")
        yield line, [f.strip() for f in fields]


def read_nugget_topics(questions: bytes | str, key: bytes | str) -> list[dict[str, Any]]:
    """Questions (``topic TAB target``) and their answer key, TREC style
    (``topic TAB nugget id TAB vital|okay TAB text``; the label may be ``-``
    when there is no original one), as nuggets topics."""
    targets: dict[str, str] = {}
    for line, (topic, target) in _tab_rows(questions, 2, "questions"):
        if topic in targets:
            raise InvalidInput(f"questions: line {line}", f"question {topic!r} twice")
        targets[topic] = target
    nuggets: dict[str, list[dict[str, str]]] = {t: [] for t in targets}
    for line, (topic, nugget, label, text) in _tab_rows(key, 4, "key"):
        if topic not in targets:
            raise InvalidInput(f"key: line {line}", f"unknown question {topic!r}")
        entry = {"id": nugget, "text": text}
        if label not in ("-", "none"):
            entry["label"] = label
        nuggets[topic].append(entry)
    return [
        {"external_id": t, "title": f"What is {target}?", "data": {"target": target, "nuggets": nuggets[t]}}
        for t, target in targets.items()
    ]


def read_nugget_runs(responses: bytes | str, matches: bytes | str | None = None) -> list[dict[str, Any]]:
    """Runs from responses (``run TAB topic TAB text``; several lines of one
    run and topic are one response) and, optionally, nugget matches
    (``run TAB topic TAB nugget id``, one line per nugget found)."""
    texts: dict[str, dict[str, list[str]]] = {}
    for _, (run, topic, text) in _tab_rows(responses, 3, "responses"):
        texts.setdefault(run, {}).setdefault(topic, []).append(text)
    found: dict[str, dict[str, list[str]]] = {}
    if matches is not None:
        for line, (run, topic, nugget) in _tab_rows(matches, 3, "matches"):
            if topic not in texts.get(run, {}):
                raise InvalidInput(f"matches: line {line}", f"run {run!r} has no response to {topic!r}")
            found.setdefault(run, {}).setdefault(topic, []).append(nugget)
    return [
        {
            "name": run,
            "data": {
                "responses": {
                    topic: {
                        "text": "\n".join(parts),
                        **({"matches": found.get(run, {}).get(topic, [])} if matches is not None else {}),
                    }
                    for topic, parts in topics.items()
                }
            },
        }
        for run, topics in texts.items()
    ]


def import_nugget_files(
    *,
    campaign: Any,
    questions: bytes | str | None = None,
    key: bytes | str | None = None,
    responses: bytes | str | None = None,
    matches: bytes | str | None = None,
) -> tuple[list[Any], list[Any]]:
    """Questions with their answer key and/or runs' responses with their
    matches, all or nothing (``manage.py import_nuggets`` and the uploads
    page): (topics created, runs created)."""
    from annotate.imports.check import check_runs, check_topics
    from annotate.imports.write import write_checked

    if (questions is None) != (key is None):
        raise InvalidInput("key" if key is None else "questions", "questions and their answer key go together")
    if matches is not None and responses is None:
        raise InvalidInput("responses", "matches need the runs' responses")
    if questions is None and responses is None:
        raise InvalidInput("questions", "give questions with their key, or runs' responses, or both")
    topics = check_topics(campaign, read_nugget_topics(questions, key)) if questions else None
    runs = check_runs(campaign, read_nugget_runs(responses, matches), topics=topics) if responses is not None else None
    # Checked first, then written in one short transaction.
    imported = write_checked(topics, runs=runs)
    return imported.topics, imported.runs


def upload_nugget_files(campaign: Any, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's TREC-like nugget files (``KindSpec.uploads``)."""
    given = {name: files[name][0][1] for name in ("questions", "key", "responses", "matches") if files.get(name)}
    topics, runs = import_nugget_files(campaign=campaign, **given)
    return f"Imported {len(topics)} questions and {len(runs)} runs."
