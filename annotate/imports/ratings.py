"""Rating tables: the import wizard's long, wide and count tables, and Label Studio and
doccano files read the same way, into a campaign of a kind that takes them
(``KindSpec.tables``, a ``RatingTables``).

A rating table says which rater gave which unit (an item, a candidate, a document) which
label. Its shapes (docs/formats.md, "Rating tables"):

- ``long``: a row a rating (rater, unit, label; optionally the unit's topic and texts), under
  any column names: the organiser maps which column is which (pingouin's ``icc.csv``:
  ``Wine,Judge,Scores``);
- ``wide``: a row a unit, a column a rater named by the header, a cell a label, an empty
  cell no rating (irrCAC's ``raw_5observers``, whose ``to_csv()`` writes the unit ids
  under ``Units``; pandas writes an unnamed index under an empty header);
- ``counts``: a row a unit, a column a category named by the header, a cell how many raters
  gave that category (Fleiss 1971's table). Who gave which label is not in the file: its
  labels become the judgments of anonymous rating *slots* (a row's k-th label, the labels
  in the columns' order, is slot k's), which give every figure of per-unit counts exactly
  (Fleiss' kappa, Gwet's AC1/AC2, percent agreement, Brennan-Prediger, Krippendorff's alpha,
  the per-category figures), and the kind marks the campaign as holding anonymous raters
  (``RatingTables.scale(anonymous=True)``), so that its report shows none of the figures that
  need to know who rated what (docs/architecture.md, "Rating tables").

A cell of ``MISSING`` (empty, ``NA``, ...) is no rating. :func:`guess` proposes a layout from
the header and the first rows, which the organiser corrects on the preview
(:func:`layout`); :func:`read_table` reads the rows as laid out into :class:`Found`, compact
arrays (16 bytes a rating, held against the import's memory budget; every cell spent against
its cells budget, concord/budget.py); :func:`read_interchange` reads Label Studio and doccano
files into the same; :func:`check` places the units in topics (the kind's ``topics``), reads
every distinct cell once on the scale (the kind's ``scale``: found in the file, or as the
organiser corrected it) and checks every judgment as :mod:`annotate.imports.check` does, writing
nothing. A rater who left some of a topic's units unrated gets an assignment of the units they
rated (``Assignment.items``), so their judgment is whole without inventing the rest.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from annotate import controls
from annotate.imports import check as checks
from annotate.imports import interchange as ix
from annotate.imports import problems as refused
from annotate.imports.check import CheckedImport, CheckedJudgments, ParamsChange
from annotate.imports.detect import Detected, Table
from annotate.imports.problems import Problems
from annotate.models import Campaign, Judgment
from annotate.services.campaigns import clean_campaign_params
from concord import budget as budgets
from concord import paramforms
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.base import require_id
from kinds.spec import KindSpec, RatingTables, TableScale, TableUnit

LONG, WIDE, COUNTS = "long", "wide", "counts"
#: The shapes, as the preview names them (``{unit}``: the kind's word for a row's unit).
SHAPE_NAMES = {
    LONG: "long: a row per rating (rater, {unit}, label)",
    WIDE: "wide: a row per {unit}, a column per assessor",
    COUNTS: "counts: a row per {unit}, a column per category (how many raters gave it)",
}
#: Cells that hold no rating: empty, and how R, pandas and spreadsheets write a missing value.
MISSING = frozenset({"", "NA", "N/A", "NaN", "nan", "#N/A", "null", "None"})
#: The unit column's choice meaning "the row's number" (a table whose units have no id column).
ROW_NUMBER = "#"
#: Bytes a rating holds while a file is read (five 4-byte numbers; array growth aside).
RATING_BYTES = 20

# Header names each role is guessed from (compared lower-case, spaces as underscores).
RATER_NAMES = frozenset(
    "rater raters rater_id worker worker_id workers annotator annotator_id annotators coder coders judge judges "
    "observer observers assessor assessor_id user user_id username !amt_worker_ids".split()
)
LABEL_NAMES = frozenset(
    "label labels score scores rating ratings grade grades value values response answer class category "
    "judgment judgement relevance code".split()
)
UNIT_NAMES = frozenset(
    "item items item_id unit units unit_id id subject subjects target targets case cases doc document docid "
    "doc_id document_id candidate candidate_id orig_id sample object example question patient".split()
)
TOPIC_NAMES = frozenset("topic topic_id topics query query_id qid".split())
TEXT_NAMES = frozenset("text texts sentence content body item_text".split())
#: The optional columns of a unit's known answer (annotate/controls.py): a control's, an attention check's.
CONTROL, ATTENTION = "control", "attention"
CONTROL_NAMES = frozenset("control control_answer known_answer".split())
ATTENTION_NAMES = frozenset("attention attention_check".split())


def _name(header: str) -> str:
    return re.sub(r"\s+", "_", header.strip().lower())


@dataclass(frozen=True)
class Layout:
    """How a table's columns are read: its ``shape``, the column (0-based) of each role
    (``topic``, the unit's, a text's, ``rater``, ``label``; the unit's may be ``-1``: the row's
    number) and the columns of raters (wide) or categories (counts), ``picked``."""

    shape: str
    roles: Mapping[str, int]
    picked: tuple[int, ...] = ()


def roles_of(tables: RatingTables, shape: str) -> list[str]:
    """The roles a shape maps columns to, in the page's order."""
    roles = ["topic", tables.unit, *tables.texts]
    known = [CONTROL, ATTENTION] if tables.controls else []
    return [*roles, "rater", "label", *known] if shape == LONG else [*roles, *known]


def role_label(tables: RatingTables, role: str) -> str:
    """A role as the page names it."""
    if role == tables.unit:
        return f"{role.capitalize()} id"
    return {
        "topic": "Topic id",
        "rater": "Rater",
        "label": "Label",
        "text": f"{tables.unit.capitalize()} text",
        "query": "Query (the topic's text)",
        "title": "Topic title",
        CONTROL: "Known answer (a control)",
        ATTENTION: "Known answer (an attention check)",
    }.get(role, role.capitalize())


def column_name(header: Sequence[str], index: int) -> str:
    """A column as errors name it: its header, or its number where the header is empty."""
    if index < 0:
        return "the row's number"
    name = header[index] if index < len(header) else ""
    return name if name else f"column {index + 1} (no name)"


def guess(tables: RatingTables, header: Sequence[str], head: Sequence[Sequence[str]], shapes: Sequence[str]) -> Layout:
    """The layout the header's names and the first rows suggest: long when a rater and a label
    column are named so; counts when every other cell of the first rows is a count and each of
    those rows counts as many ratings; wide otherwise (the first column not named otherwise the
    unit's: a unit column, pandas' unnamed index, irrCAC's ``Units``)."""
    names = [_name(h) for h in header]
    taken: set[int] = set()

    def find(wanted: Iterable[str]) -> int | None:
        wanted = set(wanted)
        found = next((i for i, n in enumerate(names) if n in wanted and i not in taken), None)
        if found is not None:
            taken.add(found)
        return found

    def first_free() -> int | None:
        found = next((i for i in range(len(names)) if i not in taken), None)
        if found is not None:
            taken.add(found)
        return found

    roles: dict[str, int] = {}
    topic = find(TOPIC_NAMES if tables.topic_required else {"topic"})
    rater = find(RATER_NAMES) if LONG in shapes else None
    label = find(LABEL_NAMES) if rater is not None else None
    unit = find(UNIT_NAMES | {tables.unit, f"{tables.unit}_id"})
    if unit is None and names and not header[0] and 0 not in taken:
        unit = 0  # pandas' index, written under an empty header
        taken.add(0)
    if tables.topic_required and topic is None:
        topic = first_free()
    if unit is None:
        unit = first_free()
    for role, index in (("topic", topic), (tables.unit, unit)):
        if index is not None:
            roles[role] = index
    for text in tables.texts:
        index = find({text} | (TEXT_NAMES if text == "text" else set()))
        if index is not None:
            roles[text] = index
    for role, known in ((CONTROL, CONTROL_NAMES), (ATTENTION, ATTENTION_NAMES)):
        index = find(known) if tables.controls else None
        if index is not None:
            roles[role] = index
    if rater is not None and label is not None:
        return Layout(LONG, {**roles, "rater": rater, "label": label})
    if rater is not None:
        taken.discard(rater)
    rest = tuple(i for i in range(len(names)) if i not in taken)
    if COUNTS in shapes and _counts_like(head, rest):
        return Layout(COUNTS, roles, rest)
    return Layout(WIDE if WIDE in shapes else shapes[0], roles, rest)


def wide_by_name(tables: RatingTables, header: Sequence[str]) -> bool:
    """The header names a unit's topic and id column (``query``, ``candidate``, ...) and no
    rater or label column: a wide table, for a kind whose long tables are crowd tables (pairs)."""
    names = {_name(h) for h in header}
    topic = not tables.topic_required or bool(names & TOPIC_NAMES)
    unit = bool(names & (UNIT_NAMES | {tables.unit, f"{tables.unit}_id"}))
    return topic and unit and not names & (RATER_NAMES | LABEL_NAMES) and len(header) >= 3


#: Rows a table needs for its shape to be guessed as counts (a row or two of grades may sum alike).
COUNTS_ROWS = 3


def _counts_like(head: Sequence[Sequence[str]], columns: Sequence[int]) -> bool:
    """Every cell of ``columns`` in the first rows (``COUNTS_ROWS`` or more) a count, and every row
    the same total (2 or more)."""
    if len(columns) < 2 or len(head) < COUNTS_ROWS:
        return False
    totals = set()
    for row in head:
        cells = [row[i].strip() if i < len(row) else "" for i in columns]
        numbers = [whole_number(c) if c.isascii() else None for c in cells]
        if any(n is None for n in numbers):
            return False
        totals.add(sum(numbers))
    return len(totals) == 1 and totals.pop() >= 2


def layout(
    tables: RatingTables,
    header: Sequence[str],
    head: Sequence[Sequence[str]],
    shapes: Sequence[str],
    *,
    shape: str = "",
    columns: Mapping[str, str] | None = None,
    picked: Sequence[str] | None = None,
) -> Layout:
    """The layout to read: :func:`guess`'s, with what the organiser chose on the page: the
    ``shape``, a column (its number from 1, ``""`` none, ``#`` the row's number) for each role
    of ``columns``, and the rater or category columns ``picked`` (None: every column no role
    takes). A choice naming no column of the file, or a column twice, is refused naming its field."""
    guessed = guess(tables, header, head, shapes)
    if shape and shape not in shapes:
        raise InvalidInput("shape", f"expected one of: {', '.join(shapes)}")
    chosen = shape or guessed.shape
    roles = dict(guessed.roles) if chosen == guessed.shape or not columns else {}
    if chosen != guessed.shape and not columns:
        roles = {k: v for k, v in guessed.roles.items() if k not in ("rater", "label")}
    allowed = roles_of(tables, chosen)
    for role, value in (columns or {}).items():
        if role not in allowed:
            if value:
                raise InvalidInput(f"col.{role}", f"a {chosen} table has no {role} column")
            continue
        roles.pop(role, None)
        if not value:
            continue
        if value == ROW_NUMBER and role == tables.unit:
            roles[role] = -1
            continue
        number = whole_number(value)
        if number is None or not 1 <= number <= len(header):
            raise InvalidInput(f"col.{role}", f"expected a column of the file, 1 to {len(header)}, got {value!r}")
        roles[role] = number - 1
    seen: dict[int, str] = {}
    for role in allowed:
        index = roles.get(role)
        if index is None or index < 0:
            continue
        if index in seen:
            raise InvalidInput(
                f"col.{role}", f"{column_name(header, index)} is already read as the {role_label(tables, seen[index])}"
            )
        seen[index] = role
    roles = {role: index for role, index in roles.items() if role in allowed}
    if picked is None:
        chosen_columns = tuple(i for i in range(len(header)) if i not in seen)
    else:
        numbers = []
        for value in picked:
            number = whole_number(value)
            if number is None or not 1 <= number <= len(header):
                raise InvalidInput("col.picked", f"expected columns of the file, 1 to {len(header)}, got {value!r}")
            numbers.append(number - 1)
        # A column a role takes is that role's, whichever boxes stayed ticked.
        chosen_columns = tuple(sorted(set(numbers) - set(seen)))
    _require_roles(tables, chosen, roles, chosen_columns)
    return Layout(chosen, roles, chosen_columns if chosen != LONG else ())


def _require_roles(tables: RatingTables, shape: str, roles: Mapping[str, int], picked: Sequence[int]) -> None:
    needed = [tables.unit, *(["topic"] if tables.topic_required else [])]
    if shape == LONG:
        needed += ["rater", "label"]
    for role in needed:
        if role not in roles:
            raise InvalidInput(f"col.{role}", f"choose the column of the {role_label(tables, role).lower()}")
    if shape == LONG and roles[tables.unit] < 0:
        raise InvalidInput(f"col.{tables.unit}", "a long table names its units in a column (a unit has several rows)")
    if shape == WIDE and not picked:
        raise InvalidInput("col.picked", "choose the assessors' columns (one column per assessor)")
    if shape == COUNTS and len(picked) < 2:
        raise InvalidInput("col.picked", "choose the categories' columns (two or more: one per category)")


# -- what a file holds ------------------------------------------------------------------


@dataclass
class Found:
    """What a rating file holds, as read (nothing checked against the campaign yet): its
    raters and units in order of appearance, and every rating as four numbers (the rater's,
    the unit's and the distinct cell text's positions, and where it is: ``at``, a line or
    row, or a position in ``places``, with ``column``)."""

    shape: str
    unit_word: str
    raters: list[str] = field(default_factory=list)
    rater_where: list[str] = field(default_factory=list)
    units: list[TableUnit] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    rater: array = field(default_factory=lambda: array("I"))
    unit: array = field(default_factory=lambda: array("I"))
    value: array = field(default_factory=lambda: array("I"))
    at: array = field(default_factory=lambda: array("I"))
    column: array = field(default_factory=lambda: array("I"))
    #: cells without a rating (empty, ``NA``, a line of doccano without a label)
    empty: int = 0
    #: a count table: the raters are slots, not people
    anonymous: bool = False
    notices: list[str] = field(default_factory=list)
    #: where each rating is, from ``at`` and ``column`` (a table's line and column, a file's place)
    describe: Callable[[int, int], str] = lambda at, column: f"line {at}"
    _rater_of: dict[str, int] = field(default_factory=dict)
    _unit_of: dict[tuple[str, str], int] = field(default_factory=dict)
    _value_of: dict[str, int] = field(default_factory=dict)
    _first: list[int] = field(default_factory=list)
    #: Units' known answers (annotate/controls.py): unit -> (the cell's text, an attention check, where).
    known: dict[int, tuple[str, bool, str]] = field(default_factory=dict)

    def rater_index(self, name: str, where: str) -> int:
        found = self._rater_of.get(name)
        if found is None:
            found = self._rater_of[name] = len(self.raters)
            self.raters.append(name)
            self.rater_where.append(where)
        return found

    def unit_index(self, topic: str, unit: str, texts: Callable[[], Mapping[str, str]]) -> int:
        found = self._unit_of.get((topic, unit))
        if found is None:
            found = self._unit_of[(topic, unit)] = len(self.units)
            self.units.append(TableUnit(topic, unit, dict(texts())))
        return found

    def value_index(self, text: str) -> int:
        found = self._value_of.get(text)
        if found is None:
            found = self._value_of[text] = len(self.values)
            self.values.append(text)
            self.counts.append(0)
            self._first.append(len(self.rater))
        return found

    def add(self, rater: int, unit: int, text: str, at: int, column: int = 0) -> None:
        value = self.value_index(text)
        self.counts[value] += 1
        self.rater.append(rater)
        self.unit.append(unit)
        self.value.append(value)
        self.at.append(at)
        self.column.append(column)
        if len(self.rater) % 4096 == 0:
            budgets.get().hold(4096 * RATING_BYTES)

    def where(self, k: int) -> str:
        return self.describe(self.at[k], self.column[k])

    def first_where(self, value: int) -> str:
        """Where the distinct cell text ``value`` first appears."""
        return self.where(self._first[value])

    @property
    def ratings(self) -> int:
        return len(self.rater)


def _rater_name(text: str, found: Found) -> str:
    """A rater's name from the file: white space becomes ``_`` (a name is a username), said once."""
    name = text.strip()
    spaced = re.sub(r"\s+", "_", name)
    if spaced != name and not any(n.startswith("rater names with spaces") for n in found.notices):
        found.notices.append(f"rater names with spaces are written with _ ({name!r} is {spaced!r})")
    return spaced


def read_table(
    table: Table, tables: RatingTables, layout: Layout, *, slot: Callable[[int], str], head: Sequence = ()
) -> Found:
    """Every rating of a table file's rows, as ``layout`` reads them (``head``: rows already
    taken from ``table.rows``, read first). ``slot(k)`` names the k-th anonymous rater of a
    count table. Refused naming the row and column: a unit without an id, an id that is not
    one, a wide table's rater column without a name (or one named twice), a count that is
    not a whole number; and a rater who rated a unit twice."""
    header = table.header
    budget = budgets.get()
    found = Found(layout.shape, tables.unit, anonymous=layout.shape == COUNTS)
    unit_word = table.unit
    roles = layout.roles

    def describe(at: int, column: int) -> str:
        return f"{unit_word} {at}, column {column_name(header, column)}"

    found.describe = describe
    raters: dict[int, int] = {}
    categories: list[tuple[int, str]] = []
    if layout.shape == WIDE:
        others: dict[str, int] = {}
        for index in layout.picked:
            name = header[index].strip() if index < len(header) else ""
            if not name:
                raise InvalidInput(
                    f"column {index + 1}", "a rater's column needs the rater's name in the header (or leave it out)"
                )
            name = _rater_name(name, found)
            if name in others:
                raise InvalidInput(
                    f"column {index + 1}", f"rater {name!r} is also column {others[name] + 1}: each rater once"
                )
            others[name] = index
            raters[index] = found.rater_index(name, f"column {index + 1} ({header[index]})")
    if layout.shape == COUNTS:
        for index in layout.picked:
            name = header[index].strip() if index < len(header) else ""
            if not name:
                raise InvalidInput(f"column {index + 1}", "a category's column needs the category in its header")
            if name in {c for _, c in categories}:
                raise InvalidInput(f"column {index + 1}", f"category {name!r} is also another column: each once")
            categories.append((index, name))
            found.value_index(name)  # the categories in the columns' order
    width = len(header)
    text_roles = [text for text in tables.texts if text in roles]
    number_of_rows = 0
    for number, row in _chain(head, table.rows):
        budget.spend(len(row))
        budget.row()
        if not any(cell.strip() for cell in row):
            continue
        number_of_rows += 1
        if len(row) > width and any(cell.strip() for cell in row[width:]):
            raise InvalidInput(f"{unit_word} {number}", f"{len(row)} fields, the header has {width}")

        cell = partial(_cell, row)
        topic = ""
        if "topic" in roles:
            topic = cell(roles["topic"])
            if not topic:
                raise InvalidInput(describe(number, roles["topic"]), "no topic id")
            require_id(topic, describe(number, roles["topic"]))
        unit_column = roles[tables.unit]
        unit = str(number_of_rows) if unit_column < 0 else cell(unit_column)
        if not unit:
            raise InvalidInput(describe(number, unit_column), f"no {tables.unit} id")
        require_id(unit, describe(number, unit_column))
        given = {text: cell(roles[text]) for text in text_roles}
        at = found.unit_index(topic, unit, partial(_nonempty, given))
        for role in (CONTROL, ATTENTION):
            if role in roles and cell(roles[role]) not in MISSING:
                _known(found, at, cell(roles[role]), role == ATTENTION, describe(number, roles[role]))
        if layout.shape == LONG:
            label = cell(roles["label"])
            if label in MISSING:
                found.empty += 1
                continue
            name = cell(roles["rater"])
            if not name:
                raise InvalidInput(describe(number, roles["rater"]), "no rater")
            rater = found.rater_index(_rater_name(name, found), f"{unit_word} {number}: rater")
            found.add(rater, at, label, number, roles["label"])
        elif layout.shape == WIDE:
            for index in layout.picked:
                text = cell(index)
                if text in MISSING:
                    found.empty += 1
                    continue
                found.add(raters[index], at, text, number, index)
        else:
            _add_counts(found, categories, cell, at, number, slot, budget, describe)
    if found.ratings == 0:
        raise InvalidInput("file", "no ratings: every cell the layout reads is empty")
    return found


def _known(found: Found, unit: int, text: str, attention: bool, where: str) -> None:
    """Keep a unit's known answer; the same unit given another one (a second row of a long table,
    both columns) is refused, naming both places."""
    had = found.known.get(unit)
    if had is not None and (had[0], had[1]) != (text, attention):
        raise InvalidInput(
            where, f"another known answer of this {found.unit_word} is at {had[2]}: one a {found.unit_word}"
        )
    found.known[unit] = (text, attention, where)


def _cell(row: Sequence[str], index: int) -> str:
    return row[index].strip() if 0 <= index < len(row) else ""


def _nonempty(texts: Mapping[str, str]) -> dict[str, str]:
    return {key: text for key, text in texts.items() if text}


def _chain(first: Iterable, rest: Iterable) -> Iterable:
    yield from first
    yield from rest


def _add_counts(found: Found, categories, cell, at: int, number: int, slot, budget, describe) -> None:
    """A count table's row: the k-th label of the row (the categories in the columns' order)
    is slot k's."""
    counts = []
    for index, _ in categories:
        text = cell(index)
        count = 0 if text in MISSING else whole_number(text) if text.isascii() else None
        if count is None:
            raise InvalidInput(describe(number, index), f"expected a count (a whole number), got {text[:40]!r}")
        counts.append(count)
    total = sum(counts)
    budget.spend(total)  # the ratings the row makes, before they are made
    k = 0
    for (index, name), count in zip(categories, counts):
        for _ in range(count):
            k += 1
            rater = found.rater_index(slot(k), f"{describe(number, index)}: rating {k}")
            found.add(rater, at, name, number, index)


def _twice(found: Found, problems: Problems | None) -> np.ndarray:
    """A rater who rated a unit twice: refused naming both places, or (``problems``) every
    rating after a rater's first of a unit gathered as refused; the ratings left out (a mask)."""
    raters = np.frombuffer(found.rater, dtype=np.uint32).astype(np.int64)
    units = np.frombuffer(found.unit, dtype=np.uint32).astype(np.int64)
    keys = units * max(len(found.raters), 1) + raters
    order = np.argsort(keys, kind="stable")
    same = np.nonzero(keys[order][1:] == keys[order][:-1])[0]
    left_out = np.zeros(found.ratings, dtype=bool)
    for index in same[: None if problems is not None else 1]:
        # The stable sort keeps a pair's ratings in the file's order: its first is kept.
        first, second = int(order[index]), int(order[index + 1])
        unit = found.units[found.unit[second]]
        refused.refuse(
            problems,
            refused.DUPLICATE,
            found.where(second),
            f"{found.raters[found.rater[second]]!r} rated {found.unit_word} {unit.id!r} twice "
            f"(also {found.where(first)})",
        )
        left_out[second] = True
    return left_out


def read_interchange(raw: bytes, detected: Detected, tables: RatingTables) -> Found:
    """A Label Studio JSON export (``choices`` results) or doccano's zip of ``<user>.jsonl``
    (``label`` lists) as ratings: a unit per task or example, its id the data's ``<unit>``
    field or the task's (the line's) ``id``, its topic the data's ``topic`` where given
    (Concord's own export: the same topics again), its text the data's ``text`` (or its first
    text field); each annotator's choice a rating; a line without a label no rating."""
    found = Found("interchange", tables.unit)
    places: list[str] = []
    found.describe = lambda at, column: places[at]
    if detected.format == "json":
        for task in ix.read_labelstudio(raw):
            unit = _unit_of(found, tables, task.data, task.id, f"{task.where}.data")
            for annotation in task.annotations:
                where, choice = ix.choice(annotation)
                rater = found.rater_index(annotation.worker, f"{annotation.where}.completed_by")
                places.append(where)
                found.add(rater, unit, choice.strip(), len(places) - 1)
            budgets.get().spend(1 + len(task.annotations))
    else:
        for example in ix.read_doccano(raw):
            unit = _unit_of(found, tables, example.record, example.record.get("id"), example.where)
            budgets.get().spend(1)
            if not example.labels:
                found.empty += 1  # not annotated by this user
                continue
            label = ix.one_label(example)
            rater = found.rater_index(example.worker, example.where)
            places.append(f"{example.where}: label")
            found.add(rater, unit, label.strip(), len(places) - 1)
    if found.ratings == 0:
        raise InvalidInput("file", "no ratings: no task has an annotation with a choice")
    return found


def _unit_of(found: Found, tables: RatingTables, data: Mapping[str, Any], own_id: Any, where: str) -> int:
    topic = data.get("topic")
    topic = require_id(topic, f"{where}.topic") if topic is not None else ""
    unit = data.get(tables.unit)
    if unit is None and isinstance(own_id, int) and not isinstance(own_id, bool):
        unit = str(own_id)
    elif unit is None:
        unit = own_id
    if unit is None:
        raise InvalidInput(f"{where}.{tables.unit}", f"no {tables.unit} id (nor an id of the task)")
    unit = require_id(unit, f"{where}.{tables.unit}")

    def texts() -> dict[str, str]:
        given = {t: data[t] for t in tables.texts if isinstance(data.get(t), str) and data[t].strip()}
        if "text" in tables.texts and "text" not in given:
            first = next(
                (v for k, v in data.items() if k not in ("topic", tables.unit) and isinstance(v, str) and v.strip()),
                None,
            )
            if first is not None:
                given["text"] = first
        return given

    return found.unit_index(topic, unit, texts)


# -- checked against the campaign --------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A rating file checked for its campaign: what the import writes, and the first
    ratings and the counts as the preview shows them."""

    checked: CheckedImport
    rows: tuple[tuple[str, ...], ...]
    counts: tuple[tuple[str, int], ...]


def corrections(tables: RatingTables, posted: Mapping[str, Any]) -> dict[str, Any] | None:
    """The scale as the organiser corrected it on the page (the ``scale.*`` fields), or None
    when the page sent none (the first preview)."""
    if not posted:
        return None
    return paramforms.read(tables.scale_form, posted, prefix="scale")


def raw_scale(posted: Mapping[str, str]) -> dict[str, Any]:
    """The ``scale.*`` fields as sent, to show again beside an error reading them."""
    form: dict[str, Any] = {}
    for name, value in posted.items():
        key = name.removeprefix("scale.")
        form[key] = [line.strip() for line in value.splitlines() if line.strip()] if key == "categories" else value
    return form


def has_judgments(campaign: Campaign) -> bool:
    """A campaign with judgments keeps its scale: a file must fit it."""
    return Judgment.objects.filter(topic__campaign=campaign).exists()


def table_scale(
    campaign: Campaign, spec: KindSpec, found: Found, corrected: Mapping[str, Any] | None, *, fixed: bool
) -> TableScale:
    """The scale ``found`` is read on (the kind's ``RatingTables.scale``): from its labels, or as
    the organiser corrected it; the campaign's own while it has judgments (``fixed``)."""
    tables = spec.tables
    assert tables is not None
    values = list(zip(found.values, found.counts))
    return tables.scale(dict(campaign.params), values, corrected, fixed=fixed, anonymous=found.anonymous)


def check(
    campaign: Campaign,
    spec: KindSpec,
    found: Found,
    scale: TableScale,
    *,
    fixed: bool,
    map_members: bool = False,
    preview_rows: int = 10,
    problems: Problems | None = None,
) -> Checked:
    """Everything importing ``found`` into ``campaign`` on ``scale`` writes, checked: every
    distinct cell read on the scale once (refused naming where it first is), a rater's second
    rating of a unit refused naming both, the new topics, one judgment per rater and topic
    (scoped to the units they rated), the raters' accounts, and the campaign's new params (only
    while it has no judgments: ``fixed``). With ``problems``, the ratings off the scale, the
    second ratings of a unit, the judgments the kind refuses and those the campaign already has
    are gathered there and left out. Nothing is written."""
    tables = spec.tables
    assert tables is not None
    decoded: list[Any] = []
    off_scale: set[int] = set()
    for k, text in enumerate(found.values):
        try:
            decoded.append(scale.read(text, found.first_where(k)))
        except InvalidInput as error:
            more = found.counts[k] - 1 if problems is not None else 0
            why = error.message + (f" ({more:,} more rating{'s' if more != 1 else ''} of it)" if more else "")
            refused.refuse(problems, refused.LABEL, error.field, why, rows=found.counts[k])
            decoded.append(None)
            off_scale.add(k)
    left_out = _twice(found, problems)
    params = dict(scale.params)
    change = None
    if params != campaign.params:
        if fixed:
            raise InvalidInput("scale", "the campaign has judgments: its scale stays as it is")
        after = clean_campaign_params(campaign.kind, params, current=campaign.params, internal=True)
        change = ParamsChange(before=dict(campaign.params), after=after)
        params = after
    existing = dict(campaign.topics.values_list("external_id", "data"))
    new_topics, places = tables.topics(found.units, params, existing)
    checked_topics = checks.check_topics(campaign, new_topics) if new_topics else None
    known = {**existing, **(checked_topics.data if checked_topics else {})}
    answers = _known_answers(spec, found, places, checked_topics, params)
    grouped: dict[tuple[int, str], dict[str, Any]] = {}
    for k in range(found.ratings):
        if left_out[k] or found.value[k] in off_scale:
            continue
        topic, unit = places[found.unit[k]]
        grouped.setdefault((found.rater[k], topic), {})[unit] = decoded[found.value[k]]
    raters = sorted({rater for rater, _ in grouped})
    accounts = checks.clean_workers(
        campaign,
        {found.raters[r]: found.rater_where[r] for r in raters},
        map_members=map_members and not found.anonymous,
    )
    there = checks.existing_judgments(campaign, accounts, ((topic, found.raters[r]) for r, topic in grouped))
    kind = spec.data
    prepare = checks.judgment_table().prepare
    rows, scopes, clashes = [], [], []
    for (rater, topic), values in grouped.items():
        data = known[topic]
        every = kind.items(data)
        scope = [u for u in every if u in values] if len(values) < len(every) else None
        name = found.raters[rater]
        try:
            payload = kind.clean_judgment(
                tables.payload(values), data, complete=True, params={**params, "scope": scope} if scope else params
            )
        except InvalidInput as error:
            refused.refuse(
                problems,
                refused.JUDGMENT,
                f"rater {name!r}, topic {topic!r}: {error.field}",
                error.message,
                len(values),
            )
            continue
        if (topic, name) in there:
            clashes.append(checks.clash(problems, there[(topic, name)], topic, name, scope, payload))
            continue
        rows.append((topic, name, prepare("payload", payload)))
        scopes.append(scope)
    judgments = CheckedJudgments(
        campaign, checks.used_accounts(accounts, rows, clashes), rows, scopes, existing=clashes
    )
    shown = tuple(
        (
            found.where(k),
            found.raters[found.rater[k]],
            places[found.unit[k]][0],
            places[found.unit[k]][1],
            _shown(decoded[found.value[k]]) if found.value[k] not in off_scale else "(off the scale: left out)",
        )
        for k in range(min(preview_rows, found.ratings))
    )
    counts = (
        (f"{tables.unit}s", len(found.units)),
        ("new topics", len(new_topics)),
        ("raters", len(found.raters)),
        ("new imported assessors", len(judgments.accounts.new)),
        ("ratings", found.ratings),
        ("cells without a rating", found.empty),
        ("judgments", len(rows)),
        *((("known answers (controls)", answers),) if answers else ()),
    )
    return Checked(CheckedImport(checked_topics, None, judgments, change), shown, counts)


def _known_answers(
    spec: KindSpec,
    found: Found,
    places: Sequence[tuple[str, str]],
    topics: checks.CheckedTopics | None,
    params: Mapping[str, Any],
) -> int:
    """The units' known answers, checked by the kind (``controls.clean_answers``) and added to the
    new topics' (``CheckedTopics.controls``, written with them); refused naming the row and
    column where one is bad or names a unit of a topic the campaign has (its known answers are
    set on the controls page). How many."""
    new = topics.data if topics is not None else {}
    for unit, (text, attention, where) in found.known.items():
        topic, item = places[unit]
        if topic not in new:
            raise InvalidInput(
                where, f"topic {topic!r} is in the campaign already: set its known answers on its Controls page"
            )
        cleaned = controls.clean_answers(spec.data, new[topic], params, {item: text}, attention=attention, field=where)
        assert topics is not None
        topics.controls.setdefault(topic, []).extend(cleaned)
    return len(found.known)


def _shown(value: Any) -> str:
    if value is None:
        return "can\u2019t tell"
    if value is True:
        return "match"
    if value is False:
        return "no match"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def slot_names(campaign: Campaign, most: int = 0) -> Callable[[int], str]:
    """The anonymous raters of a count table imported into ``campaign``: ``c<campaign>-anonymous-<k>``
    (k from 1, zero-padded to ``most``'s digits so that they sort in order)."""
    width = max(1, len(str(most)))
    return lambda k: f"c{campaign.pk}-anonymous-{k:0{width}d}"


# -- topics of units, grouped by their topic: the shape kinds with topics share ----------


def grouped_topics(
    units: Sequence[TableUnit],
    existing: Mapping[str, Any],
    *,
    units_key: str,
    unit_word: str,
    data: Callable[[str, TableUnit, list[dict[str, str]]], dict[str, Any]],
    title: Callable[[str, TableUnit], str],
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Units grouped by their topic, in order of appearance: a topic the campaign has must
    hold the unit already (in ``existing[topic][units_key]``); the others become topics of
    ``data(topic id, its first unit, its units)`` (each unit ``{"id", "text"}``, the text its
    id where the file gives none), titled ``title(topic id, its first unit)``."""
    new: dict[str, tuple[TableUnit, list[dict[str, str]]]] = {}
    places = []
    for unit in units:
        if unit.topic in existing:
            have = {u["id"] for u in existing[unit.topic].get(units_key, [])}
            if unit.id not in have:
                raise InvalidInput(
                    f"{unit_word} {unit.id!r}",
                    f"topic {unit.topic!r} is in the campaign without {unit_word} {unit.id!r}: "
                    "a topic's units are those it was created with",
                )
        else:
            entry = new.setdefault(unit.topic, (unit, []))
            entry[1].append({"id": unit.id, "text": unit.texts.get("text") or unit.id})
        places.append((unit.topic, unit.id))
    topics = [
        {"external_id": topic, "title": title(topic, first), "data": data(topic, first, rows)}
        for topic, (first, rows) in new.items()
    ]
    return topics, places
