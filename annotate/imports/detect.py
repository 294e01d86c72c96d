"""What an uploaded file is, by its content: format, encoding, delimiter.

Pure functions over the uploaded bytes and the file's name (no database):
:func:`detect` looks at the file's first bytes only (``HEAD`` of them, and
for a zip its list of members), so it costs the same for a 120,000-row file
as for a ten-line one. It decides which of the existing readers
(annotate.imports.read, the kinds' ``judgment_files``) reads the file; it
parses nothing itself. :func:`table_csv` turns a table that is not the
readers' plain comma-separated UTF-8 (a spreadsheet, another delimiter,
columns the organiser mapped) into that, within the upload limit.

Kinds of file, ``Detected.format``:

- ``csv``: delimited text (comma, semicolon or tab; ``delimiter``);
- ``json``: JSON, with ``shape`` one of ``topics``, ``runs``, ``judgments``,
  ``labelstudio`` (a list of tasks with ``annotations``), ``trec`` (the
  topics and documents of a TREC run import) or ``""``;
- ``jsonl``: one JSON object per line (SQuALITY, doccano members);
- ``xlsx`` / ``ods``: a spreadsheet (a zip holding ``xl/workbook.xml``, or
  an OpenDocument spreadsheet's ``mimetype``);
- ``zip``: another zip (doccano's export: ``<user>.jsonl`` members);
- ``trec-topics``, ``trec-run``, ``trec-qrels``: TREC's text formats;
- ``undecodable``: text, but not in an encoding Concord reads (``what``
  says which it looks like: UTF-16 without a byte-order mark, Windows-1252);
- ``image`` / ``binary``: not something Concord reads (``what`` says which).
"""

from __future__ import annotations

import bisect
import codecs
import csv
import io
import re
import zipfile
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotate.imports import xlsx
from concord import budget as budgets
from concord import reading
from concord.errors import InvalidInput

#: Bytes of a file looked at to detect what it is.
HEAD = 2**16

_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"RIFF", "a RIFF file (an image or a sound)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or Word file"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32 LE with a byte-order mark", "utf-32-le"),
    (codecs.BOM_UTF32_BE, "UTF-32 BE with a byte-order mark", "utf-32-be"),
    (codecs.BOM_UTF8, "UTF-8 with a byte-order mark", "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "UTF-16 LE with a byte-order mark", "utf-16"),
    (codecs.BOM_UTF16_BE, "UTF-16 BE with a byte-order mark", "utf-16"),
)
_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}
_TREC_RUN = re.compile(r"^\S+\s+Q0\s+\S+\s+-?\d+\s+-?[\d.eE+-]+\s+\S+\s*$")
_TREC_QRELS = re.compile(r"^\S+\s+\S+\s+\S+\s+-?\d+\s*$")


@dataclass(frozen=True)
class Detected:
    """What a file is. ``notices`` are what Concord did about it (not errors)."""

    format: str
    encoding: str = ""
    delimiter: str = ""
    shape: str = ""
    what: str = ""
    notices: tuple[str, ...] = field(default_factory=tuple)
    #: ``undecodable``: the line where the text stops being UTF-8.
    line: int = 0

    @property
    def delimiter_name(self) -> str:
        return _DELIMITERS.get(self.delimiter, "")

    @property
    def is_table(self) -> bool:
        return self.format in {"csv", "xlsx", "ods"}


def detect(raw: bytes, filename: str = "") -> Detected:
    """The format, encoding and delimiter of ``raw``, from its first bytes."""
    reading.require_size(raw)
    if raw.startswith(b"PK\x03\x04") or raw.startswith(b"PK\x05\x06"):
        return _zip(raw)
    for magic, what in _IMAGES:
        if raw.startswith(magic):
            return Detected("image" if "image" in what else "binary", what=what)
    encoding, label, text = _text_head(raw)
    if isinstance(text, UnicodeDecodeError):
        return _broken(raw[:HEAD], encoding, label, text)
    if text is None:
        return _not_text(raw[:HEAD])
    notices = () if label == "UTF-8" else (f"{label}: detected, read as such",)
    return _text(text, filename, label, notices)


def _zip(raw: bytes) -> Detected:
    try:
        names = zipfile.ZipFile(io.BytesIO(raw)).namelist()
    except (zipfile.BadZipFile, ValueError, NotImplementedError):
        return Detected("binary", what="a damaged zip file")
    if "xl/workbook.xml" in names:
        return Detected("xlsx", what="an Excel workbook (.xlsx)")
    if "mimetype" in names and "content.xml" in names:
        return Detected("ods", what="an OpenDocument spreadsheet (.ods)")
    return Detected("zip", what=f"a zip of {len(names)} file{'s' if len(names) != 1 else ''}")


def _text_head(raw: bytes) -> tuple[str, str, str | UnicodeDecodeError | None]:
    """(Python codec, what to call it, the decoded head; None when it is not text, or
    the decoding error of a head whose byte-order mark says what it is)."""
    head = raw[:HEAD]
    encoding, label = next(((codec, name) for bom, name, codec in _BOMS if head.startswith(bom)), ("utf-8", "UTF-8"))
    try:
        # Not final: the head may end inside a character.
        text = codecs.getincrementaldecoder(encoding)("strict").decode(head, False)
    except UnicodeDecodeError as error:
        return encoding, label, error if label != "UTF-8" else None
    if "\x00" in text:
        return encoding, label, None
    return encoding, label, text


def _broken(head: bytes, encoding: str, label: str, error: UnicodeDecodeError) -> Detected:
    """Text whose byte-order mark says its encoding, with bytes that are not of it:
    ``what`` says what is wrong and where (``line``), not another guess at the encoding."""
    codec = label.split(" with ")[0]  # "UTF-16 LE"
    plain = codec.lower().replace(" ", "-")  # its codec without the mark: utf-16-le
    before = error.object[: error.start]
    bom = next((mark for mark, name, _ in _BOMS if name == label), b"")
    line = before.removeprefix(bom).decode(plain, "replace").count("\n") + 1
    at = len(head) - len(error.object) + error.start + 1
    if plain.startswith("utf-16") and error.reason in {"illegal encoding", "illegal UTF-16 surrogate"}:
        wrong = "a lone surrogate (half of a character)"
    else:
        wrong = error.reason
    return Detected(
        "undecodable", encoding=label, what=f"{label}, but byte {at} (line {line}) is not {codec}: {wrong}", line=line
    )


def _not_text(head: bytes) -> Detected:
    """Text in another encoding (``undecodable``: ``what`` says which, ``line``
    where UTF-8 fails), or a binary file."""
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if len(head) >= 4 and max(even, odd) >= 0.8 * len(head) / 2 and min(even, odd) <= 0.1 * len(head) / 2:
        endian = "LE" if odd > even else "BE"
        return Detected("undecodable", what=f"UTF-16 {endian} without a byte-order mark", line=1)
    controls = sum(1 for byte in head if byte < 9 or 13 < byte < 32)
    if b"\x00" not in head and controls <= len(head) // 100:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as error:
            line = head[: error.start].count(b"\n") + 1
            return Detected("undecodable", what="another encoding (Windows-1252 or Latin-1?)", line=line)
    return Detected("binary", what="a binary file (not text, nor a spreadsheet Concord reads)")


def _text(text: str, filename: str, label: str, notices: tuple[str, ...]) -> Detected:
    body = text.lstrip("\ufeff \t\r\n")
    lines = [line for line in body.splitlines()[:20] if line.strip() and not line.startswith("#")]
    if body.startswith("<top>") or re.match(r"<top>|<topic\b", body[:200]):
        return Detected("trec-topics", label, what="TREC topics (<top> ... </top>)", notices=notices)
    if body.startswith("[") or body.startswith("{"):
        if body.startswith("{") and len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines[:5]):
            return Detected("jsonl", label, what="JSON lines", notices=notices)
        shape = _json_shape(body)
        return Detected("json", label, shape=shape, what=_JSON_WHAT.get(shape, "JSON"), notices=notices)
    if lines and all(_TREC_RUN.match(line) for line in lines[:10]):
        return Detected("trec-run", label, what="a TREC run (qid Q0 docid rank score tag)", notices=notices)
    if lines and all(_TREC_QRELS.match(line) for line in lines[:10]) and "," not in lines[0]:
        return Detected("trec-qrels", label, what="TREC relevance judgments (qrels)", notices=notices)
    delimiter = sniff_delimiter(lines[:10], filename)
    if delimiter != ",":
        notices = (*notices, f"{_DELIMITERS[delimiter]}-separated: detected, reading with {delimiter!r}")
    return Detected("csv", label, delimiter=delimiter, what="a table (delimited text)", notices=notices)


_JSON_WHAT = {
    "labelstudio": "Label Studio JSON (tasks with annotations)",
    "topics": "topics (JSON)",
    "judgments": "judgments (JSON)",
    "runs": "runs (JSON)",
    "trec": 'the topics and document texts of a TREC run import (JSON {"topics": {...}, "documents": {...}})',
}


def _json_shape(head: str) -> str:
    """Which of Concord's JSON files ``head`` begins: the keys of its first object
    (``trec``: the topics-and-documents file of a TREC run import)."""
    if re.match(r'\{\s*"(topics"\s*:\s*\{|documents"\s*:)', head):
        return "trec"
    first = re.search(r"\{(.{0,4000})", head, re.S)
    keys = set(re.findall(r'"([A-Za-z_]+)"\s*:', first[1] if first else ""))
    if keys & {"annotations", "predictions"}:
        return "labelstudio"
    if "external_id" in keys:
        return "topics"
    if {"assessor", "payload"} <= keys:
        return "judgments"
    if {"name", "data"} <= keys:
        return "runs"
    if {"data", "id"} <= keys:
        return "labelstudio"  # tasks not annotated yet
    for wrapper in ("topics", "judgments", "runs"):
        if re.match(r'\{\s*"' + wrapper + '"', head):
            return wrapper
    return ""


def sniff_delimiter(lines: list[str], filename: str = "") -> str:
    """Comma, semicolon or tab: the one that splits the first lines into the
    same number of fields (more than one), preferring the most fields; a
    ``.tsv`` name means tab when that works."""
    best, best_fields = ",", 1
    order = ("\t", ",", ";") if filename.lower().endswith(".tsv") else (",", ";", "\t")
    for delimiter in order:
        try:
            widths = {len(row) for row in csv.reader(lines, delimiter=delimiter)}
        except csv.Error:
            continue
        if len(widths) == 1 and (width := widths.pop()) > best_fields:
            best, best_fields = delimiter, width
    return best


# -- tables ---------------------------------------------------------------------------

#: Rows of a spreadsheet read at most (annotate.imports.xlsx).
MAX_SHEET_ROWS = xlsx.MAX_ROWS


def sheet_names(raw: bytes) -> list[str]:
    """The sheets of an .xlsx workbook, in order."""
    return xlsx.sheet_names(raw)


def sheet_rows(raw: bytes, sheet: str = "") -> Iterator[list[str]]:
    """The rows of one sheet (the first, or ``sheet``) as text cells, read as they come
    (annotate.imports.xlsx: the cells the file has, whatever its declared dimension)."""
    for _, row in xlsx.Workbook(raw).rows(sheet):
        yield row


@dataclass
class Table:
    """A table file opened for reading: its sheets (a spreadsheet's), its header
    (the first row, trimmed) and its rows after the header, numbered (``unit``:
    a spreadsheet's ``row``, a text file's ``line``), read as they are taken."""

    sheets: tuple[str, ...]
    header: list[str]
    rows: Iterator[tuple[int, list[str]]]
    unit: str
    first: tuple[int, list[str]]

    def all_rows(self) -> Iterator[tuple[int, list[str]]]:
        """Every row, the header's first."""
        yield self.first
        yield from self.rows


def open_table(raw: bytes, detected: Detected, sheet: str = "") -> Table:
    """A table file's sheets and header, its rows to read after (:class:`Table`)."""
    if detected.format == "xlsx":
        book = xlsx.Workbook(raw)
        sheets, unit = tuple(book.names), "row"
        rows = book.rows(sheet)
    else:
        sheets, unit = (), "line"
        rows = _text_rows(raw, detected)
    first = next(rows, (1, []))
    return Table(sheets, _header_cells(first[1]), rows, unit, first)


def _text_rows(raw: bytes, detected: Detected) -> Iterator[tuple[int, list[str]]]:
    if detected.format != "csv":
        raise InvalidInput("file", f"{detected.what or detected.format}, not a table")
    lines = reading.Lines(raw)
    reader = csv.reader(lines, delimiter=detected.delimiter or ",")
    number = 1
    try:
        for row in reader:
            yield number, row
            number = reader.line_num + 1
    except csv.Error as error:
        raise InvalidInput(f"line {reader.line_num + 1}", f"not CSV: {error}") from None


def table_rows(raw: bytes, detected: Detected, sheet: str = "") -> Iterator[list[str]]:
    """The rows of a table file: a spreadsheet's sheet, or delimited text decoded
    line by line (concord.reading.Lines: its errors name the line)."""
    if detected.format == "xlsx":
        yield from sheet_rows(raw, sheet)
        return
    for _, row in _text_rows(raw, detected):
        yield row


def _trimmed(row: list[str]) -> list[str]:
    """``row`` without its trailing empty cells (a spreadsheet's blank columns), in one pass."""
    end = len(row)
    while end and row[end - 1] == "":
        end -= 1
    return row if end == len(row) else row[:end]


class TableText:
    """A table's rows as comma-separated UTF-8, made as it is read (``read(size)``).

    What the CSV readers read a spreadsheet or a remapped table from
    (concord.reading.Lines takes it as it takes a zip's member): a reader that
    stops at a bad row has converted nothing much past it. The header is
    renamed by ``mapping`` (column found -> column wanted; with a mapping,
    columns it does not name are left out); trailing empty cells and wholly
    empty rows after the header are dropped, at most the upload limit is made,
    and every cell is counted against the import's budget (concord.budget).
    :meth:`source_line` says which row of the file a line of the CSV is."""

    #: Bytes of CSV made ahead at most.
    AHEAD = 2**13

    def __init__(self, rows: Iterable[tuple[int, list[str]]], mapping: Mapping[str, str] | None = None) -> None:
        self.rows = iter(rows)
        self.mapping = mapping
        self.budget = budgets.get()
        self.limit = reading.upload_limit()
        self.made = 0
        self.lines = 0
        self.keep: list[int] | None = None
        self._out = io.StringIO()
        self._writer = csv.writer(self._out, lineterminator="\n")
        # Where a line of the CSV is not the file's row of the same number: (line, row) from there on.
        self._lines = array("Q")
        self._sources = array("Q")
        self._done = False

    def read(self, size: int = -1) -> bytes:
        """At least one row's CSV (about ``AHEAD`` bytes), or b"" at the end."""
        out, writer = self._out, self._writer
        out.seek(0)
        out.truncate()
        while not self._done and out.tell() < self.AHEAD:
            try:
                number, row = next(self.rows)
            except StopIteration:
                self._done = True
                break
            self._write(writer, number, _trimmed(row))
        chunk = out.getvalue().encode("utf-8")
        self.made += len(chunk)
        if self.made > self.limit:
            raise InvalidInput(
                "file", f"larger than {reading.size_text(self.limit)} as a table (CONCORD_MAX_UPLOAD_BYTES)"
            )
        return chunk

    def _write(self, writer: Any, number: int, row: list[str]) -> None:
        self.budget.spend(len(row))
        if self.lines == 0:
            header = _header_cells(row)
            if self.mapping:
                self.keep = [index for index, name in enumerate(header) if name in self.mapping]
                header = [self.mapping[header[index]] for index in self.keep]
            writer.writerow(header)
        elif not row:
            return
        else:
            if self.keep is not None:
                row = [row[index] if index < len(row) else "" for index in self.keep]
            writer.writerow(row)
        self.lines += 1
        if self.source_line(self.lines) != number:
            self._lines.append(self.lines)
            self._sources.append(number)
            self.budget.hold(16)

    def whole(self) -> bytes:
        """All of it at once (held against the import's memory budget)."""
        chunks = []
        while chunk := self.read():
            chunks.append(chunk)
            self.budget.hold(len(chunk))
        return b"".join(chunks)

    def source_line(self, line: int) -> int:
        """The row (or line) of the file that made line ``line`` of the CSV."""
        at = bisect.bisect_right(self._lines, line) - 1
        return line if at < 0 else self._sources[at] + line - self._lines[at]


def table_csv(
    rows: Iterable[list[str]] | Iterable[tuple[int, list[str]]], mapping: Mapping[str, str] | None = None
) -> bytes:
    """The rows (lists of cells, or (number, cells)) as comma-separated UTF-8, whole
    (:class:`TableText`: renamed by ``mapping``, within the upload limit and the
    import's budget)."""
    numbered = (row if isinstance(row, tuple) else (number, row) for number, row in enumerate(rows, start=1))
    return TableText(numbered, mapping).whole()


def _header_cells(first: list[str]) -> list[str]:
    return [cell.strip().lstrip("\ufeff") for cell in _trimmed(first)]


def header(raw: bytes, detected: Detected, sheet: str = "") -> list[str]:
    """A table's column names (its first row)."""
    return open_table(raw, detected, sheet).header
