"""An .xlsx workbook's sheets and rows, read as a stream with work bounded by its bytes.

An .xlsx is a zip of XML parts (ECMA-376, SpreadsheetML): ``xl/workbook.xml``
names the sheets, ``xl/_rels/workbook.xml.rels`` says which part holds each,
``xl/sharedStrings.xml`` holds the texts that cells refer to by number,
``xl/styles.xml`` says which cells show dates, and each sheet's part holds its
rows. They are read here rather than by openpyxl, which trusts what a file
declares: it pads every row to the sheet's declared dimension and makes up the
rows the file lacks (4.6 KB declaring ``A1:XFD1000000`` keeps a web worker
busy for many minutes), loads the shared strings whole as Python objects, and
parses with entities unless defusedxml happens to be installed. Here:

- every part is unzipped as it is read, within the zip's allowance
  (concord.reading.Zip), and parsed by concord.reading's XML parser: a
  document type declaration is refused (so no entity is ever defined or
  expanded), and any XML error is a refusal naming the part and its line;
- a sheet's rows are read as they come, one chunk of its XML at a time, with
  the cells the file has: the declared dimension is ignored, a row the file
  lacks is not made up, and a row's cells go to the columns their references
  name (blank cells in between count as work: one cell at ``XFD`` makes a
  row of 16,384);
- the shared strings are kept as one string and their offsets, at most
  ``shared_string_limit()`` of them and the upload limit of text, held
  against the request's memory budget; a cell's text longer than a CSV field
  may be (``csv.field_size_limit()``) is refused naming the cell;
- every cell, blank or not, and every row is counted against the request's
  budget (concord.budget), so no file costs more than its share.
"""

from __future__ import annotations

import csv
import math
import posixpath
import re
import sys
from array import array
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from concord import budget as budgets
from concord import reading
from concord.errors import InvalidInput

#: Rows of a sheet read at most (Excel's own limit is 1,048,576).
MAX_ROWS = 1_000_000
#: Columns a row may have (Excel's: A to XFD).
MAX_COLUMNS = 16_384
#: Shared strings allowed: one per this many bytes of the upload limit (``<si><t>ab</t></si>``
#: is 18 bytes; the work and the memory of each are bounded by the count, not by its length).
SHARED_STRING_BYTES = 16
#: The sheet part names Concord takes an error in a spreadsheet to be in (shown to the organiser).
WORKBOOK = "xl/workbook.xml"

_CELL_REFERENCE = re.compile(r"([A-Z]{1,3})([0-9]*)")
#: Number formats built into Excel that show dates or times (ECMA-376 18.8.30).
_DATE_FORMATS = frozenset([*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)])
_QUOTED = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]')


def shared_string_limit() -> int:
    """Shared strings a workbook may hold: one per ``SHARED_STRING_BYTES`` of the upload limit
    (3,276,800 for 50 MiB)."""
    return reading.upload_limit() // SHARED_STRING_BYTES


def _local(name: str) -> str:
    """An element's name without its namespace (the parser gives ``"<URI> <name>"``)."""
    return name[name.rfind(" ") + 1 :]


def column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def column_letters(number: int) -> str:
    letters = ""
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


class Workbook:
    """An .xlsx upload: its sheets (:attr:`names`) and the rows of one (:meth:`rows`).

    Opening it reads the workbook and its relationships only; the shared
    strings and styles are read when a sheet's rows are."""

    def __init__(self, raw: bytes, budget: budgets.Budget | None = None) -> None:
        self.budget = budget or budgets.get()
        self.zip = reading.Zip(raw, "file")
        self.date1904 = False
        sheets: list[tuple[str, str]] = []
        parts = self._relationships()

        def start(name: str, attributes: dict[str, str]) -> None:
            local = _local(name)
            if local == "sheet":
                relation = next((v for k, v in attributes.items() if k.endswith("relationships id")), "")
                sheets.append((attributes.get("name", ""), relation))
            elif local == "workbookPr":
                self.date1904 = attributes.get("date1904", "").lower() in {"1", "true"}

        self._parse(WORKBOOK, start)
        if not sheets:
            raise InvalidInput(WORKBOOK, "a workbook without sheets")
        self.names = [name for name, _ in sheets]
        self.paths = {name: parts.get(relation, "") for name, relation in sheets}
        self.shared_path = next((p for t, p in parts.typed if t.endswith("/sharedStrings")), "xl/sharedStrings.xml")
        self.styles_path = next((p for t, p in parts.typed if t.endswith("/styles")), "xl/styles.xml")

    # -- parts ---------------------------------------------------------------------

    def _parse(self, part: str, start: Any, end: Any = None, text: Any = None, *, required: bool = True) -> bool:
        """Parse ``part`` with the given handlers (namespaced names); False if the zip lacks it."""
        member = self.zip.open(part)
        if member is None:
            if required:
                raise InvalidInput("file", f"not a readable .xlsx workbook (no {part})")
            return False
        parser = reading.xml_parser(part, namespaces=True)
        parser.StartElementHandler = start
        if end is not None:
            parser.EndElementHandler = end
        if text is not None:
            parser.CharacterDataHandler = text
        for _ in reading.parse_xml(parser, member, part):
            pass
        return True

    def _relationships(self) -> _Parts:
        parts = _Parts()
        part = "xl/_rels/workbook.xml.rels"

        def start(name: str, attributes: dict[str, str]) -> None:
            if _local(name) == "Relationship" and attributes.get("TargetMode") != "External":
                target = attributes.get("Target", "")
                path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
                parts.add(attributes.get("Id", ""), attributes.get("Type", ""), path)

        self._parse(part, start, required=False)
        return parts

    def _shared_strings(self) -> _Strings:
        strings = _Strings(self.budget)
        limit, text_limit = shared_string_limit(), reading.upload_limit()
        field_limit = csv.field_size_limit()
        part = self.shared_path
        state = {"depth": 0, "text": False, "phonetic": 0, "length": 0}
        pieces: list[str] = []

        def start(name: str, attributes: dict[str, str]) -> None:
            local = _local(name)
            if local == "si":
                if strings.count >= limit:
                    raise InvalidInput(
                        part, f"more than {limit:,} shared strings (one per 16 bytes of the upload limit)"
                    )
                pieces.clear()
                state["length"] = 0
            elif local == "t":
                state["text"] = True
            elif local == "rPh":  # a phonetic reading, not the cell's text
                state["phonetic"] += 1

        def end(name: str) -> None:
            local = _local(name)
            if local == "si":
                self.budget.spend()
                strings.add("".join(pieces))
                if strings.chars > text_limit:
                    raise InvalidInput(part, f"more than {reading.size_text(text_limit)} of shared strings")
            elif local == "t":
                state["text"] = False
            elif local == "rPh":
                state["phonetic"] -= 1

        def text(data: str) -> None:
            if state["text"] and not state["phonetic"]:
                state["length"] += len(data)
                if state["length"] > field_limit:
                    raise InvalidInput(
                        part,
                        f"shared string {strings.count} is longer than {field_limit:,} characters (a table's cell)",
                    )
                pieces.append(data)

        self._parse(part, start, end, text, required=False)
        strings.close()
        return strings

    def _date_styles(self) -> set[int]:
        """The cell styles (their index in ``cellXfs``) that show a date or a time."""
        custom: dict[int, str] = {}
        styles: list[int] = []
        state = {"cellXfs": False}

        def start(name: str, attributes: dict[str, str]) -> None:
            local = _local(name)
            if local == "numFmt":
                identifier = _whole(attributes.get("numFmtId", ""))
                if identifier is not None:
                    custom[identifier] = attributes.get("formatCode", "")
            elif local == "cellXfs":
                state["cellXfs"] = True
            elif local == "xf" and state["cellXfs"]:
                styles.append(_whole(attributes.get("numFmtId", "0")) or 0)
                self.budget.spend()

        def end(name: str) -> None:
            if _local(name) == "cellXfs":
                state["cellXfs"] = False

        self._parse(self.styles_path, start, end, required=False)
        return {
            index
            for index, number in enumerate(styles)
            if number in _DATE_FORMATS or (number in custom and _is_date_format(custom[number]))
        }

    # -- rows ----------------------------------------------------------------------

    def rows(self, sheet: str = "") -> Iterator[tuple[int, list[str]]]:
        """(row number, text cells) of every row of ``sheet`` (the first by default) the
        file has, in order, trailing blank cells dropped; read as they are taken."""
        if sheet and sheet not in self.paths:
            raise InvalidInput("sheet", f"no sheet {sheet!r} (sheets: {', '.join(self.names)})")
        name = sheet or self.names[0]
        part = self.paths[name]
        if part not in self.zip.by_name:
            raise InvalidInput("file", f"not a readable .xlsx workbook (no {part or 'part'} for sheet {name!r})")
        shared = self._shared_strings()
        dates = self._date_styles()
        reader = _SheetReader(part, shared, dates, self.date1904, self.budget)
        parser = reading.xml_parser(part, namespaces=True)
        parser.StartElementHandler = reader.start
        parser.EndElementHandler = reader.end
        parser.CharacterDataHandler = reader.text
        member = self.zip.open(part)
        assert member is not None
        for _ in reading.parse_xml(parser, member, part):
            yield from reader.ready
            reader.ready.clear()


class _Parts:
    """A workbook's relationships: id -> part, and (type, part) in order."""

    def __init__(self) -> None:
        self.by_id: dict[str, str] = {}
        self.typed: list[tuple[str, str]] = []

    def add(self, identifier: str, kind: str, path: str) -> None:
        self.by_id[identifier] = path
        self.typed.append((kind, path))

    def get(self, identifier: str, default: str) -> str:
        return self.by_id.get(identifier, default)


class _Strings:
    """The shared strings: one string and the offsets of each in it (4 or 8 bytes a
    string, not a Python object each), held against the memory budget."""

    def __init__(self, budget: budgets.Budget) -> None:
        self.budget = budget
        self.offsets = array("Q", [0])
        self.chars = 0
        self._pieces: list[str] = []
        self._chunks: list[str] = []
        self.text = ""

    @property
    def count(self) -> int:
        return len(self.offsets) - 1

    def add(self, text: str) -> None:
        self.chars += len(text)
        self.offsets.append(self.chars)
        self._pieces.append(text)
        self.budget.hold(sys.getsizeof(text) - sys.getsizeof("") + self.offsets.itemsize)
        if len(self._pieces) >= 4096:
            self._chunks.append("".join(self._pieces))
            self._pieces.clear()

    def close(self) -> None:
        self._chunks.append("".join(self._pieces))
        self._pieces.clear()
        self.text = "".join(self._chunks)
        self._chunks.clear()

    def get(self, index: int) -> str | None:
        if not 0 <= index < self.count:
            return None
        return self.text[self.offsets[index] : self.offsets[index + 1]]


class _SheetReader:
    """The handlers of one sheet's parser: rows it has read wait in ``ready``."""

    def __init__(self, part: str, shared: _Strings, dates: set[int], date1904: bool, budget: budgets.Budget) -> None:
        self.part = part
        self.shared = shared
        self.dates = dates
        self.date1904 = date1904
        self.budget = budget
        self.field_limit = csv.field_size_limit()
        self.ready: list[tuple[int, list[str]]] = []
        self.in_data = False
        self.row_number = 0
        self.rows = 0
        self.cells: list[tuple[int, str]] = []
        self.column = 0
        self.reference = ""
        self.cell_type = ""
        self.style = ""
        self.collect = False  # inside <v>, or <t> of an inline string (not of a phonetic reading)
        self.phonetic = 0
        self.pieces: list[str] = []
        self.length = 0
        self.in_cell = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        local = _local(name)
        if local == "c" and self.in_data:
            self._cell_start(attributes)
        elif local in {"v", "t"} and self.in_cell and not self.phonetic:
            self.collect = True
        elif local == "row" and self.in_data:
            self._row_start(attributes)
        elif local == "rPh":
            self.phonetic += 1
        elif local == "sheetData":
            self.in_data = True

    def end(self, name: str) -> None:
        local = _local(name)
        if local == "c" and self.in_cell:
            self._cell_end()
        elif local in {"v", "t"}:
            self.collect = False
        elif local == "row" and self.in_data:
            self._row_end()
        elif local == "rPh":
            self.phonetic -= 1
        elif local == "sheetData":
            self.in_data = False

    def text(self, data: str) -> None:
        if self.collect:
            self.length += len(data)
            if self.length > self.field_limit:
                raise InvalidInput(
                    f"cell {self.reference}",
                    f"longer than {self.field_limit:,} characters, more than a table's cell holds",
                )
            self.pieces.append(data)

    def _row_start(self, attributes: dict[str, str]) -> None:
        given = attributes.get("r")
        number = self.row_number + 1 if given is None else _whole(given)
        if number is None or number < 1 or number > 1_048_576:
            raise InvalidInput(self.part, f"a row numbered {given!r}: rows are numbered 1 to 1,048,576")
        if number <= self.row_number:
            raise InvalidInput(f"row {number}", f"after row {self.row_number}: rows must come in order")
        self.rows += 1
        if self.rows > MAX_ROWS:
            raise InvalidInput("file", f"more than {MAX_ROWS:,} rows")
        self.budget.row()
        self.row_number = number
        self.column = 0
        self.cells = []

    def _cell_start(self, attributes: dict[str, str]) -> None:
        reference = attributes.get("r")
        if reference is None:
            column = self.column + 1
        else:
            match = _CELL_REFERENCE.fullmatch(reference)
            column = column_number(match[1]) if match else 0
            if not match or column > MAX_COLUMNS:
                raise InvalidInput(
                    f"row {self.row_number}", f"a cell at {reference!r}, not a cell of a sheet (A1 to XFD1048576)"
                )
        if column <= self.column:
            raise InvalidInput(
                f"row {self.row_number}",
                f"cell {column_letters(column)} after {column_letters(self.column)}: cells must come in order",
            )
        if column > MAX_COLUMNS:
            raise InvalidInput(f"row {self.row_number}", f"more than {MAX_COLUMNS:,} cells")
        self.column = column
        self.reference = f"{column_letters(column)}{self.row_number}"
        self.cell_type = attributes.get("t", "n")
        self.style = attributes.get("s", "")
        self.pieces.clear()
        self.length = 0
        self.in_cell = True

    def _cell_end(self) -> None:
        self.in_cell = self.collect = False
        self.budget.spend()
        raw = "".join(self.pieces)
        value = self._value(raw)
        if value:
            self.cells.append((self.column, value))

    def _value(self, raw: str) -> str:
        cell_type = self.cell_type
        if cell_type == "s":
            index = _whole(raw.strip())
            value = None if index is None else self.shared.get(index)
            if value is None:
                raise InvalidInput(
                    f"cell {self.reference}",
                    f"refers to shared string {raw.strip()!r}; the workbook has {self.shared.count:,}",
                )
            return value
        if cell_type in {"inlineStr", "str", "e", "d"}:
            return raw
        if cell_type == "b":
            return {"1": "True", "0": "False"}.get(raw.strip(), raw)
        raw = raw.strip()
        if not raw:
            return ""
        number = _number(raw)
        if number is None:
            raise InvalidInput(f"cell {self.reference}", f"{raw[:40]!r} is not a number")
        if self.style and (_whole(self.style) in self.dates):
            date = _date(number, self.date1904)
            if date:
                return date
        if isinstance(number, float) and number.is_integer():
            return str(int(number))  # a spreadsheet's 1 is 1.0
        return str(number)

    def _row_end(self) -> None:
        width = self.cells[-1][0] if self.cells else 0
        # The blank cells between those the file has are work too: charged before they are made.
        self.budget.spend(width - len(self.cells))
        row = [""] * width
        for column, value in self.cells:
            row[column - 1] = value
        self.ready.append((self.row_number, row))
        self.cells = []


def _whole(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None


def _number(text: str) -> int | float | None:
    if len(text) > 64:
        return None
    try:
        if "." in text or "e" in text or "E" in text:
            number = float(text)
            return number if math.isfinite(number) else None
        return int(text)
    except ValueError:
        return None


def _is_date_format(code: str) -> bool:
    """A custom number format shows a date or a time: it has d, m, y, h or s outside quotes and brackets."""
    return bool(re.search(r"[dmyhsDMYHS]", _QUOTED.sub("", code.split(";")[0])))


def _date(serial: float, date1904: bool) -> str:
    """A date cell's text (``2024-03-01``, ``2024-03-01 12:30:00``, ``12:30:00``), or "" if out of range."""
    if not 0 <= serial < 2_958_466:  # 9999-12-31
        return ""
    if date1904:
        base = datetime(1904, 1, 1)
    else:  # Excel counts a 29 February 1900 that was not
        base = datetime(1899, 12, 30) if serial >= 60 else datetime(1899, 12, 31)
    moment = base + timedelta(seconds=round(serial * 86400))
    if serial < 1:
        return moment.time().isoformat()
    if moment.time() == datetime.min.time():
        return moment.date().isoformat()
    return moment.isoformat(" ")


def sheet_names(raw: bytes) -> list[str]:
    """The sheets of an .xlsx workbook, in order."""
    return Workbook(raw).names
