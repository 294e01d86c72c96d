"""Files of the nuggets kind: TREC-like questions, answer keys, runs and matches."""

from __future__ import annotations

from typing import Any

from annotate.importers import decode
from concord.errors import InvalidInput


def _tab_rows(raw: bytes | str, columns: int, what: str):
    """Non-empty, non-comment lines split on tabs into ``columns`` fields (the last takes the rest)."""
    for line, text in enumerate(decode(raw, what).splitlines(), start=1):
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
