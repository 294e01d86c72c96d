"""The preference kind's own import formats, on the uploads page (``KindSpec.uploads``).

- Prompts with outputs: one row per system's output to a prompt, columns ``prompt_id``,
  ``prompt``, ``system``, ``output`` in any order; each prompt becomes a topic whose outputs are
  its rows in file order.
- Existing battles: one row per vote, columns ``prompt_id`` (or ``prompt`` / ``question_id``),
  ``system_a`` (or ``model_a``), ``system_b`` (or ``model_b``), ``winner`` and ``rater`` (or
  ``judge``), other columns ignored (Chatbot Arena's and MT-Bench's human-judgment releases carry
  more). ``system_a`` was shown on the left. ``winner``: ``a`` / ``model_a``, ``b`` /
  ``model_b``, ``tie``, ``both_bad`` / ``tie (bothbad)``. Each rater's votes on one prompt become
  their judgment of its topic (an imported rater, who never logs in; a pair judged again is kept
  as a repeat, up to 10); ``model_judges`` names raters to mark model judge.

Either file is a table or JSON Lines, read by the readers every table import reads through
(annotate.imports.detect and xlsx, concord.reading: within the upload limit and the import's
budget): CSV with a comma, semicolon or tab (UTF-8 with or without Excel's byte-order mark,
found by its content), an .xlsx workbook's first sheet, or JSON Lines (one object a line: a
``.jsonl`` or ``.ndjson`` file, or one whose lines are objects).

All or nothing: a bad row is refused naming its line (a spreadsheet's row) and field, and nothing
is written. :func:`recognises_prompts` and :func:`recognises_battles` tell a file of either shape
by its columns (``Upload.recognise``: the import wizard points such a file to its form).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from annotate.imports import detect
from annotate.imports.check import Existing, check_judgments, check_topics
from annotate.imports.problems import EXISTING, Problems
from annotate.imports.write import write_checked
from annotate.models import Campaign
from concord import jsonsafe, reading
from concord.errors import InvalidInput
from concord.params import ParamsSchema, Str
from kinds.base import id_key, require_id, type_name
from kinds.preference.data import MAX_OUTPUTS, PreferenceKind, pair_id

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
#: The file formats read, as a refusal names them.
READS = "CSV (comma, semicolon or tab), .xlsx or JSON Lines (.jsonl)"


def recognises_prompts(columns: Iterable[str]) -> bool:
    """``columns`` (a table's header, a JSON Lines file's first keys) are a prompts-with-outputs file's."""
    return set(PROMPT_COLUMNS) <= set(columns)


def recognises_battles(columns: Iterable[str]) -> bool:
    """``columns`` are a battles file's: a spelling of each battle column."""
    found = set(columns)
    return all(found & set(names) for names in BATTLE_COLUMNS.values())


def rows(raw: bytes, filename: str, what: str) -> Iterator[tuple[str, dict[str, str | None]]]:
    """(where, row) of every row of a table or JSON Lines file (module docstring); ``where`` is
    ``line 3`` (a text file's line, where the row starts) or ``row 3`` (a spreadsheet's); blank
    rows skipped. A cell a row lacks is None."""
    detected = detect.detect(raw, filename)
    if filename.lower().endswith((".jsonl", ".ndjson")) or detected.format == "jsonl":
        yield from _json_lines(raw, what)
        return
    if detected.format == "undecodable":
        raise InvalidInput(f"{what}: line {detected.line}", f"not readable text: {detected.what}; save it as UTF-8")
    if detected.format not in ("csv", "xlsx"):
        raise InvalidInput(what, f"{detected.what or detected.format}: expected {READS}")
    table = detect.open_table(raw, detected)
    header = table.header
    twice = [name for name, count in Counter(header).items() if count > 1 and name]
    if twice:
        raise InvalidInput(f"{what}: {table.unit} {table.first[0]}", f"column {twice[0]!r} appears twice")
    seen = False
    for number, cells in table.rows:
        if not any(cell.strip() for cell in cells):
            continue
        where = f"{table.unit} {number}"
        if any(cell.strip() for cell in cells[len(header) :]):
            width = max(i for i, cell in enumerate(cells) if cell.strip()) + 1
            raise InvalidInput(f"{what}: {where}", f"{width} fields, the header has {len(header)}")
        seen = True
        yield where, {name: cells[i] if i < len(cells) else None for i, name in enumerate(header) if name}
    if not seen:
        raise InvalidInput(what, "no rows: the file is empty" if not header else "no rows: a header and nothing else")


def _json_lines(raw: bytes, what: str) -> Iterator[tuple[str, dict[str, str | None]]]:
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
        found: dict[str, str | None] = {}
        for key, cell in value.items():
            if isinstance(cell, bool) or not isinstance(cell, (str, int, float)):
                found[key] = None
            else:
                found[key] = str(cell)
        seen = True
        yield f"line {line}", found
    if not seen:
        raise InvalidInput(what, "no rows: the file is empty")


def _cell(row: Mapping[str, Any], names: tuple[str, ...], where: str, what: str) -> str:
    value = next((row[name] for name in names if row.get(name) is not None), None)
    if value is None or not str(value).strip():
        raise InvalidInput(f"{what}: {where}", f"{names[0]}: required")
    problem = jsonsafe.problem_with(value)
    if problem:
        raise InvalidInput(f"{what}: {where}", f"{names[0]}: {problem}")
    return value if names[0] in ("output", "prompt") else value.strip()


def _id(value: str, column: str, where: str, what: str) -> str:
    """An id column's value (a topic's id, a system, a rater), refused naming the line."""
    try:
        return require_id(value, column)
    except InvalidInput as error:
        raise InvalidInput(f"{what}: {where}", f"{column}: {error.message}") from None


@dataclasses.dataclass(frozen=True)
class Prompts:
    """A prompts-with-outputs file as read: its topics (``{"external_id", "title", "data"}``) and,
    for each, where its prompt first is and where each output is (what a refusal names)."""

    topics: list[dict[str, Any]]
    firsts: list[str]
    outputs: list[list[str]]


def read_prompts(raw: bytes, filename: str, what: str = "prompts") -> Prompts:
    """The topics a prompts-with-outputs file makes, each checked as the kind checks a topic's
    data, a refusal naming the line at fault."""
    topics: dict[str, dict[str, Any]] = {}
    lines: dict[str, tuple[str, list[str]]] = {}
    for where, row in rows(raw, filename, what):
        prompt_id = _id(_cell(row, ("prompt_id",), where, what), "prompt_id", where, what)
        prompt = _cell(row, ("prompt",), where, what)
        system = _id(_cell(row, ("system",), where, what), "system", where, what)
        output = row.get("output")
        if output is None:
            raise InvalidInput(f"{what}: {where}", "output: required")
        topic = topics.setdefault(
            prompt_id, {"external_id": prompt_id, "title": prompt[:200], "data": {"prompt": prompt, "outputs": []}}
        )
        first, outputs = lines.setdefault(prompt_id, (where, []))
        if topic["data"]["prompt"] != prompt:
            raise InvalidInput(
                f"{what}: {where}", f"prompt: prompt {prompt_id!r} has another text on {first} (one text a prompt)"
            )
        if any(id_key(o["system"]) == id_key(system) for o in topic["data"]["outputs"]):
            raise InvalidInput(
                f"{what}: {where}", f"system: {system!r} has an output to prompt {prompt_id!r} already (one a system)"
            )
        if len(outputs) == MAX_OUTPUTS:
            raise InvalidInput(
                f"{what}: {where}", f"system: prompt {prompt_id!r} has {MAX_OUTPUTS} outputs already (the most)"
            )
        topic["data"]["outputs"].append({"system": system, "text": output})
        outputs.append(where)
    read = Prompts(list(topics.values()), [first for first, _ in lines.values()], [o for _, o in lines.values()])
    kind = PreferenceKind()
    for index, topic in enumerate(read.topics):
        try:
            kind.clean_topic_data(topic["data"])
        except InvalidInput as error:
            raise _at_prompt(error.field, error.message, read, index, what) from None
    return read


def _at_prompt(field: str, message: str, read: Prompts, index: int, what: str) -> InvalidInput:
    """A refusal of topic ``index`` (``field``: of its data, ``data.outputs[2].system``, or of
    the topic, ``external_id``) at the line of the output at fault, else of the prompt's first."""
    found = re.match(r"data\.outputs\[(\d+)\]\.?(\w*)", field)
    if found is not None:
        column = "output" if found[2] in ("", "text") else found[2]
        return InvalidInput(f"{what}: {read.outputs[index][int(found[1])]}", f"{column}: {message}")
    if field == "data.outputs" and "at least" in message:
        message = f"one output ({read.topics[index]['data']['outputs'][0]['system']!r}): a prompt needs two or more"
    column = {"data.outputs": "system", "data.prompt": "prompt", "external_id": "prompt_id", "title": "prompt"}
    return InvalidInput(f"{what}: {read.firsts[index]}", f"{column.get(field, field)}: {message}")


def upload_prompts(campaign: Campaign, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's prompts with outputs: every prompt a topic, all or nothing."""
    ((filename, raw),) = files["prompts"]
    read = read_prompts(raw, filename)
    try:
        checked = check_topics(campaign, read.topics)
    except InvalidInput as error:
        found = re.match(r"topics\[(\d+)\]\.(.*)", error.field)
        if found is None:
            raise
        raise _at_prompt(found[2], error.message, read, int(found[1]), "prompts") from None
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


@dataclasses.dataclass(frozen=True)
class Battles:
    """A battles file as read: the judgments it makes (``{"assessor", "topic", "payload"}``, one
    per rater and prompt) and, for each, where each of its verdicts is in the file."""

    entries: list[dict[str, Any]]
    lines: list[list[str]]


def read_battles(campaign: Campaign, raw: bytes, filename: str, what: str = "battles") -> Battles:
    """The judgments a battles file makes of ``campaign``'s prompts, a refusal naming the line."""
    outputs = {t.external_id: [o["system"] for o in t.data["outputs"]] for t in campaign.topics.all()}
    judgments: dict[tuple[str, str], dict[str, Any]] = {}
    lines: dict[tuple[str, str], list[str]] = {}
    for where, row in rows(raw, filename, what):
        at = f"{what}: {where}"
        prompt = _cell(row, BATTLE_COLUMNS["prompt_id"], where, what)
        if prompt not in outputs:
            raise InvalidInput(at, f"prompt_id: no prompt {prompt!r} in this campaign (import the prompts first)")
        systems = outputs[prompt]
        position = {}
        for side in ("system_a", "system_b"):
            name = _cell(row, BATTLE_COLUMNS[side], where, what)
            if name not in systems:
                raise InvalidInput(at, f"{side}: prompt {prompt!r} has no output of {name!r}")
            position[side] = systems.index(name) + 1
        if position["system_a"] == position["system_b"]:
            raise InvalidInput(at, "system_b: the same system as system_a")
        winner = _cell(row, BATTLE_COLUMNS["winner"], where, what)
        choice = WINNERS.get(winner.lower())
        if choice is None:
            raise InvalidInput(
                at, f"winner: {winner!r} (expected a, b, tie or both_bad; model_a, model_b, tie (bothbad))"
            )
        rater = _id(_cell(row, BATTLE_COLUMNS["rater"], where, what), "rater", where, what)
        key = (rater, prompt)
        entry = judgments.setdefault(key, {"assessor": rater, "topic": prompt, "payload": {"verdicts": []}})
        lines.setdefault(key, []).append(where)
        entry["payload"]["verdicts"].append(
            {
                "pair": pair_id(position["system_a"], position["system_b"]),
                "left": position["system_a"],
                "right": position["system_b"],
                "choice": choice,
            }
        )
    return Battles(list(judgments.values()), list(lines.values()))


def _at_battle(field: str, message: str, battles: Battles, what: str) -> InvalidInput:
    """A refusal of the checks (``judgments[3].assessor``; ``line 7: payload.verdicts[2].choice``,
    the sources given being each judgment's first line) at the line of the vote at fault."""
    found = re.match(r"judgments\[(\d+)\]\.(\w+)", field)
    if found is not None:
        column = {"assessor": "rater", "topic": "prompt_id"}.get(found[2], found[2])
        return InvalidInput(f"{what}: {battles.lines[int(found[1])][0]}", f"{column}: {message}")
    first, _, rest = field.partition(": ")
    index = next((k for k, lines in enumerate(battles.lines) if lines[0] == first), None)
    verdict = re.match(r"payload\.verdicts\[(\d+)\]\.?(\w*)", rest)
    if index is None or verdict is None:
        return InvalidInput(f"{what}: {field}", message)
    column = {"choice": "winner", "pair": "system_b", "left": "system_a", "right": "system_b"}.get(verdict[2], "winner")
    return InvalidInput(f"{what}: {battles.lines[index][int(verdict[1])]}", f"{column}: {message}")


def upload_battles(campaign: Campaign, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's existing battles, all or nothing; the raters named in ``model_judges`` marked model judge."""
    ((filename, raw),) = files["battles"]
    battles = read_battles(campaign, raw, filename)
    entries = battles.entries
    raters = {entry["assessor"] for entry in entries}
    named = [name.strip() for name in (options.get("model_judges") or "").split(",") if name.strip()]
    unknown = [name for name in named if name not in raters]
    if unknown:
        raise InvalidInput("model_judges", f"{', '.join(map(repr, unknown))}: no rater of the file has this name")
    # Gathered rather than refused at the first, so that the refusal names the first in the file.
    problems = Problems()
    try:
        checked = check_judgments(
            campaign=campaign, entries=entries, sources=[lines[0] for lines in battles.lines], problems=problems
        )
    except InvalidInput as error:
        raise _at_battle(error.field, error.message, battles, "battles") from None
    _refuse_gathered(problems, checked.existing, battles)
    # each rater's assignment is the pairs they judged: their progress is whole
    judged = {(e["topic"], e["assessor"]): sorted({v["pair"] for v in e["payload"]["verdicts"]}) for e in entries}
    checked = dataclasses.replace(checked, scopes=[judged[(topic, rater)] for topic, rater, _ in checked.rows])
    write_checked(judgments=checked, model_judges=named)
    votes = sum(len(e["payload"]["verdicts"]) for e in entries)
    marked = f"; {len(named)} marked model judge" if named else ""
    return f"Imported {votes} votes by {len(raters)} rater{'s' if len(raters) != 1 else ''}{marked}."


def _refuse_gathered(problems: Problems, existing: list[Existing], battles: Battles) -> None:
    """Refuse the file at the first of its rows the checks gathered, if any (nothing written)."""
    if not problems:
        return
    first = {(e["assessor"], e["topic"]): lines[0] for e, lines in zip(battles.entries, battles.lines, strict=True)}
    refusals = [
        InvalidInput(
            f"battles: {first[(e.worker, e.topic)]}",
            f"rater: {e.worker!r} has a judgment of prompt {e.topic!r} already (a battles file adds judgments, "
            "it replaces none)",
        )
        for e in existing
    ]
    refusals += [
        _at_battle(where, why, battles, "battles")
        for problem in problems.listed()
        if problem.kind != EXISTING  # said above, by line
        for where, why in problem.examples
    ]
    raise min(refusals, key=_line_number)


def _line_number(refusal: InvalidInput) -> int:
    found = re.search(r"(?:line|row) (\d+)", refusal.field)
    return int(found[1]) if found else 0
