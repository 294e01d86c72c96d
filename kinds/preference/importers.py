"""The preference kind's own import formats, on the uploads page (``KindSpec.uploads``).

- Prompts with outputs: one row per system's output to a prompt, columns ``prompt_id``,
  ``prompt``, ``system``, ``output`` in any order (CSV, or JSON Lines: a ``.jsonl`` file, one
  object a line); each prompt becomes a topic whose outputs are its rows in file order.
- Existing battles: one row per vote, columns ``prompt_id`` (or ``prompt`` / ``question_id``),
  ``system_a`` (or ``model_a``), ``system_b`` (or ``model_b``), ``winner`` and ``rater`` (or
  ``judge``), other columns ignored (Chatbot Arena's and MT-Bench's human-judgment releases carry
  more). ``system_a`` was shown on the left. ``winner``: ``a`` / ``model_a``, ``b`` /
  ``model_b``, ``tie``, ``both_bad`` / ``tie (bothbad)``. Each rater's votes on one prompt become
  their judgment of its topic (an imported rater, who never logs in; a pair judged again is kept
  as a repeat, up to 10); ``model_judges`` names raters to mark model judge.

All or nothing: a bad row is refused naming its line and field, and nothing is written.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from annotate.imports import read
from annotate.imports.check import check_judgments, check_topics
from annotate.imports.write import write_checked
from annotate.models import Campaign
from concord import jsonsafe, reading
from concord.errors import InvalidInput
from concord.params import ParamsSchema, Str
from kinds.base import type_name
from kinds.preference.data import pair_id

PROMPT_COLUMNS = ("prompt_id", "prompt", "system", "output")
#: Each battle column and the names other releases give it.
BATTLE_COLUMNS = {
    "prompt_id": ("prompt_id", "prompt", "question_id"),
    "system_a": ("system_a", "model_a"),
    "system_b": ("system_b", "model_b"),
    "winner": ("winner",),
    "rater": ("rater", "judge"),
}
#: How each spelling of ``winner`` reads (lower case).
WINNERS = {
    "a": "left",
    "model_a": "left",
    "b": "right",
    "model_b": "right",
    "tie": "tie",
    "both_bad": "both_bad",
    "bothbad": "both_bad",
    "tie (bothbad)": "both_bad",
}


def rows(raw: bytes, filename: str, what: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row) of a CSV file or, named ``.jsonl``, of JSON Lines (one object a line, its
    values strings or numbers, read as text); blank lines skipped."""
    if filename.lower().endswith((".jsonl", ".ndjson")):
        seen = False
        for line, text in reading.numbered(raw, what):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except ValueError as error:
                raise InvalidInput(f"{what}: line {line}", f"not JSON: {error.msg}") from None
            if not isinstance(value, dict):
                raise InvalidInput(f"{what}: line {line}", f"expected an object, got {type_name(value)}")
            found = {}
            for key, cell in value.items():
                if isinstance(cell, bool) or not isinstance(cell, (str, int, float)):
                    found[key] = None
                else:
                    found[key] = str(cell)
            seen = True
            yield line, found
        if not seen:
            raise InvalidInput(what, "no rows: the file is empty")
        return
    text = read.decode(raw, what)
    yield from read.csv_rows(csv.DictReader(text.splitlines()))


def _cell(row: Mapping[str, Any], names: tuple[str, ...], line: int, what: str) -> str:
    value = next((row[name] for name in names if row.get(name) is not None), None)
    if value is None or not str(value).strip():
        raise InvalidInput(f"{what}: line {line}", f"{names[0]}: required")
    problem = jsonsafe.problem_with(value)
    if problem:
        raise InvalidInput(f"{what}: line {line}", f"{names[0]}: {problem}")
    return value.strip() if names[0] != "output" and names[0] != "prompt" else value


def read_prompts(raw: bytes, filename: str, what: str = "prompts") -> list[dict[str, Any]]:
    """The topics a prompts-with-outputs file makes: ``[{"external_id", "title", "data"}]``."""
    topics: dict[str, dict[str, Any]] = {}
    for line, row in rows(raw, filename, what):
        prompt_id = _cell(row, ("prompt_id",), line, what)
        prompt = _cell(row, ("prompt",), line, what)
        system = _cell(row, ("system",), line, what)
        output = row.get("output")
        if output is None:
            raise InvalidInput(f"{what}: line {line}", "output: required")
        topic = topics.setdefault(
            prompt_id, {"external_id": prompt_id, "title": prompt[:200], "data": {"prompt": prompt, "outputs": []}}
        )
        if topic["data"]["prompt"] != prompt:
            raise InvalidInput(
                f"{what}: line {line}", f"prompt: prompt {prompt_id!r} has another text on an earlier line"
            )
        if any(o["system"] == system for o in topic["data"]["outputs"]):
            raise InvalidInput(
                f"{what}: line {line}", f"system: {system!r} has an output to prompt {prompt_id!r} already"
            )
        topic["data"]["outputs"].append({"system": system, "text": output})
    return list(topics.values())


def upload_prompts(campaign: Campaign, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's prompts with outputs: every prompt a topic, all or nothing."""
    ((filename, raw),) = files["prompts"]
    checked = check_topics(campaign, read_prompts(raw, filename))
    made = write_checked(checked).topics
    outputs = sum(len(t.data["outputs"]) for t in made)
    return f"Imported {len(made)} prompt{'s' if len(made) != 1 else ''} with {outputs} outputs."


BATTLE_OPTIONS = ParamsSchema(
    Str(
        "model_judges",
        None,
        max_length=2000,
        label="Raters who are model judges",
        help="Their names, separated by commas (e.g. gpt-4): they are marked model judge, kept out of the "
        "people's leaderboard and shown beside it.",
    )
)


def read_battles(campaign: Campaign, raw: bytes, filename: str, what: str = "battles") -> tuple[list[dict], list[str]]:
    """The judgments a battles file makes (``{"assessor", "topic", "payload"}``, one per rater and
    prompt) and where each starts in the file."""
    outputs = {t.external_id: [o["system"] for o in t.data["outputs"]] for t in campaign.topics.all()}
    judgments: dict[tuple[str, str], dict[str, Any]] = {}
    sources: dict[tuple[str, str], str] = {}
    for line, row in rows(raw, filename, what):
        where = f"{what}: line {line}"
        prompt = _cell(row, BATTLE_COLUMNS["prompt_id"], line, what)
        if prompt not in outputs:
            raise InvalidInput(where, f"prompt_id: no prompt {prompt!r} in this campaign (import the prompts first)")
        systems = outputs[prompt]
        position = {}
        for side in ("system_a", "system_b"):
            name = _cell(row, BATTLE_COLUMNS[side], line, what)
            if name not in systems:
                raise InvalidInput(where, f"{side}: prompt {prompt!r} has no output of {name!r}")
            position[side] = systems.index(name) + 1
        if position["system_a"] == position["system_b"]:
            raise InvalidInput(where, "system_b: the same system as system_a")
        winner = _cell(row, BATTLE_COLUMNS["winner"], line, what)
        choice = WINNERS.get(winner.lower())
        if choice is None:
            raise InvalidInput(
                where, f"winner: {winner!r} (expected a, b, tie or both_bad; model_a, model_b, tie (bothbad))"
            )
        rater = _cell(row, BATTLE_COLUMNS["rater"], line, what)
        key = (rater, prompt)
        entry = judgments.setdefault(key, {"assessor": rater, "topic": prompt, "payload": {"verdicts": []}})
        sources.setdefault(key, f"line {line}")
        entry["payload"]["verdicts"].append(
            {
                "pair": pair_id(position["system_a"], position["system_b"]),
                "left": position["system_a"],
                "right": position["system_b"],
                "choice": choice,
            }
        )
    return list(judgments.values()), list(sources.values())


def upload_battles(campaign: Campaign, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's existing battles, all or nothing; the raters named in ``model_judges`` marked model judge."""
    ((filename, raw),) = files["battles"]
    entries, sources = read_battles(campaign, raw, filename)
    raters = {entry["assessor"] for entry in entries}
    named = [name.strip() for name in (options.get("model_judges") or "").split(",") if name.strip()]
    unknown = [name for name in named if name not in raters]
    if unknown:
        raise InvalidInput("model_judges", f"{', '.join(map(repr, unknown))}: no rater of the file has this name")
    checked = check_judgments(campaign=campaign, entries=entries, sources=sources)
    # each rater's assignment is the pairs they judged: their progress is whole
    judged = {(e["topic"], e["assessor"]): sorted({v["pair"] for v in e["payload"]["verdicts"]}) for e in entries}
    checked = dataclasses.replace(checked, scopes=[judged[(topic, rater)] for topic, rater, _ in checked.rows])
    write_checked(judgments=checked, model_judges=named)
    votes = sum(len(e["payload"]["verdicts"]) for e in entries)
    marked = f"; {len(named)} marked model judge" if named else ""
    return f"Imported {votes} votes by {len(raters)} rater{'s' if len(raters) != 1 else ''}{marked}."
