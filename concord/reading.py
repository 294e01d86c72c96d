"""Reading uploaded files within bounds: the one helper every importer reads through.

An upload is at most ``CONCORD_MAX_UPLOAD_BYTES`` (the request's limit; a
management command reading a file from disk is held to the same), and what
is read out of it never costs much more than its size:

- :func:`require_size`: a file over the limit is refused before it is read;
- :class:`Lines` / :func:`numbered`: a text file decoded as it is read, line
  by line (UTF-8 with or without a byte-order mark, or UTF-16/32 with one; no
  NUL; errors name the line), so a reader that stops at its first bad line
  has decoded nothing past it and no list of every line is ever built;
- :func:`zip_members`: the files of a zip, unpacked as they are read, the
  unpacked bytes counted as they come (the sizes a zip declares are not
  trusted): at most the upload limit in all, and at most ``MAX_ZIP_RATIO``
  times the zip's own size (``MIN_UNZIPPED`` always allowed), so a few
  kilobytes cannot unpack into hundreds of megabytes;
- :class:`Zip`: the same, a zip's files by name (a spreadsheet's parts);
- :func:`xml_parser` / :func:`parse_xml`: the one way any upload's XML is
  parsed (an AIPHES tree, a spreadsheet's parts): expat, fed a chunk at a
  time, refusing any document type declaration (so no entity is defined,
  expanded or fetched: what defusedxml guards against, without it);
  :func:`xml_events`: an XML file as a stream of events through it, nested
  at most ``MAX_XML_DEPTH`` elements deep (deeper: refused with the line).

Problems are ``InvalidInput`` naming the file (``what``) and the line.
"""

from __future__ import annotations

import codecs
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from xml.parsers import expat

from django.conf import settings

from concord import budget as budgets
from concord import jsonsafe
from concord.errors import InvalidInput

#: Unpacked bytes per byte of a zip at most (text compresses 3 to 10 times; a bomb, thousands).
MAX_ZIP_RATIO = 100
#: Unpacked bytes any zip may hold, whatever its size (small test files compress well).
MIN_UNZIPPED = 2**20
#: Files in one zip at most.
MAX_ZIP_MEMBERS = 10_000
#: Elements nested in one another at most in an XML file (an AIPHES tree is a few dozen deep).
MAX_XML_DEPTH = 100
#: Bytes decoded at a time.
CHUNK = 2**16


def upload_limit() -> int:
    return settings.CONCORD_MAX_UPLOAD_BYTES


def size_text(size: int) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def _located(what: str, where: str) -> str:
    """``line 3`` for the file, ``alice.jsonl: line 3`` for a named part of it."""
    return where if what == "file" else f"{what}: {where}"


def require_size(raw: bytes | str, what: str = "file") -> None:
    """Refuse a file larger than the upload limit (text: its UTF-8 size)."""
    size = len(raw) if isinstance(raw, bytes) else len(raw) if raw.isascii() else len(raw.encode("utf-8", "replace"))
    if size > upload_limit():
        raise InvalidInput(what, f"larger than {size_text(upload_limit())} (CONCORD_MAX_UPLOAD_BYTES)")


def read_file(path: Path, what: str | None = None) -> bytes:
    """A file from disk for a management command, refused past the upload limit (read no further)."""
    with open(path, "rb") as file:
        raw = file.read(upload_limit() + 1)
    if len(raw) > upload_limit():
        raise InvalidInput(what or str(path), f"larger than {size_text(upload_limit())} (CONCORD_MAX_UPLOAD_BYTES)")
    return raw


def read_json(raw: bytes | str, what: str = "file", *, bounded: bool = True) -> Any:
    """A JSON file through the one strict parser (concord.jsonsafe); errors name the
    path inside it (``file[0].title``) or its line. ``bounded=False``: a backup, read
    by an administrator's command whatever its size."""
    if bounded:
        require_size(raw, what)
    try:
        decoded = jsonsafe.decode(raw)
    except jsonsafe.InputError as error:
        raise InvalidInput(_located(what, f"line {error.line}"), error.message) from None
    return parse_json(decoded, what)


def parse_json(source: str, where: str) -> Any:
    """JSON text (one file, or one line of one) through the strict parser."""
    try:
        return jsonsafe.loads(source)
    except jsonsafe.InputError as error:
        raise InvalidInput(jsonsafe.located(where, error.path), error.message) from None


# -- text, line by line -------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose mark begins it
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class Readable(Protocol):
    """What a text reader reads from besides bytes and str: a zip's :class:`Member`,
    a table converted as it is read (annotate.imports.detect.TableText)."""

    def read(self, size: int = ..., /) -> bytes: ...


class Lines:
    """The lines of a text file, each with its ending, decoded as they are read.

    Iterate over it (``csv.reader`` takes it as is); ``number`` is the number of
    the last line given. A line is what ends at ``\\n`` (``\\r\\n`` stays in it),
    as ``io.StringIO`` splits; :func:`numbered` splits further as ``str.splitlines``.
    """

    def __init__(self, source: bytes | str | Readable, what: str = "file") -> None:
        if isinstance(source, (bytes, str)):
            require_size(source, what)
        self.source = source
        self.what = what
        self.number = 0
        self.budget: budgets.Budget | None = None

    def __iter__(self) -> Iterator[str]:
        # Inside an import's budget (a web request), each line is a cell of its work.
        self.budget = budgets.active()
        if isinstance(self.source, str):
            for line in io.StringIO(self.source):
                self.number += 1
                self._check(line)
                yield line
            return
        stream = io.BytesIO(self.source) if isinstance(self.source, bytes) else self.source
        yield from self._decoded(stream)

    def _decoded(self, stream: Readable) -> Iterator[str]:
        head = stream.read(max(CHUNK, 4))
        encoding, start = "utf-8", 0
        for bom, name in _BOMS:
            if head.startswith(bom):
                encoding, start = name, len(bom)
                break
        decoder = codecs.getincrementaldecoder(encoding)("strict")
        newline = "\n".encode(encoding)
        pending, chunk, offset = "", head[start:], start
        if not chunk:  # the first read held the byte-order mark only
            chunk = stream.read(CHUNK)
        while True:
            final = not chunk
            try:
                piece = decoder.decode(chunk, final)
            except UnicodeDecodeError as error:
                line = self.number + pending.count("\n") + error.object[: error.start].count(newline) + 1
                label = "UTF-8" if encoding == "utf-8" else encoding.upper()[:6]
                at = offset + error.start - len(error.object) + len(chunk) + 1
                lone = encoding.startswith("utf-16") and error.reason in {
                    "illegal encoding",
                    "illegal UTF-16 surrogate",
                }
                why = ", a lone surrogate (half of a character)" if lone else ""
                raise InvalidInput(
                    _located(self.what, f"line {line}"), f"not {label} text (byte {at}{why}): save the file as UTF-8"
                ) from None
            offset += len(chunk)
            pending += piece
            *complete, pending = pending.split("\n")
            for line in complete:
                self.number += 1
                self._check(line)
                yield line + "\n"
            if final:
                break
            chunk = stream.read(CHUNK)
        if pending:
            self.number += 1
            self._check(pending)
            yield pending

    def _check(self, line: str) -> None:
        if self.budget is not None:
            self.budget.spend()
        problem = jsonsafe.problem_with(line) if "\x00" in line or not line.isascii() else None
        if problem is None:
            return
        if "\x00" in line and _looks_like_utf16(line):
            problem = "not UTF-8 text: it looks like UTF-16 without a byte-order mark; save it as UTF-8"
        raise InvalidInput(_located(self.what, f"line {self.number}"), problem)


def _looks_like_utf16(text: str) -> bool:
    sample = text[:512]
    return len(sample) >= 2 and max(sample[0::2].count("\x00"), sample[1::2].count("\x00")) * 2 >= len(sample) * 0.8


def numbered(source: bytes | str | Readable, what: str = "file") -> Iterator[tuple[int, str]]:
    """(line number, text without its ending) for every line, numbered as
    ``str.splitlines`` numbers them, decoded as they are read."""
    number = 0
    for line in Lines(source, what):
        for part in line.splitlines() or [""]:
            number += 1
            yield number, part


# -- zips ------------------------------------------------------------------------------


@dataclass
class _Budget:
    allowed: int
    what: str
    used: int = 0

    def spend(self, size: int, name: str) -> None:
        self.used += size
        if self.used > self.allowed:
            self.refuse(f"unzips to more than {size_text(self.allowed)} (by {name})")

    def refuse(self, what_it_does: str) -> None:
        raise InvalidInput(
            self.what,
            f"{what_it_does}: a zip may unpack to {MAX_ZIP_RATIO} times its size ({size_text(MIN_UNZIPPED)} at "
            f"least), and to {size_text(upload_limit())} at most",
        )


class Member:
    """One file of a zip, unpacked as it is read (``read(size)``), each byte counted
    against the zip's allowance; an unpacking error (a bad CRC, a cut entry) is a refusal."""

    def __init__(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget) -> None:
        self.name = info.filename
        self.budget = budget
        try:
            self.stream = archive.open(info)
        except (zipfile.BadZipFile, RuntimeError, ValueError, NotImplementedError) as error:
            raise InvalidInput(self.name, f"cannot be unzipped ({error})") from None

    def read(self, size: int = CHUNK) -> bytes:
        try:
            data = self.stream.read(size)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
            raise InvalidInput(self.name, f"cannot be unzipped ({error})") from None
        self.budget.spend(len(data), self.name)
        return data


def unzipped_allowance(zipped: int) -> int:
    """What a zip of ``zipped`` bytes may unpack to."""
    return min(upload_limit(), max(MIN_UNZIPPED, MAX_ZIP_RATIO * zipped))


class Zip:
    """A zip's files, by name or in order, each unpacked as it is read (:class:`Member`)
    and counted against one allowance for the whole zip.

    The sizes the zip declares are checked first (one that says it unpacks past
    its allowance is refused before anything is unpacked), and the bytes are
    counted as they come (one that lies is refused as it passes the allowance)."""

    def __init__(self, raw: bytes, what: str = "file") -> None:
        require_size(raw, what)
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(raw))
            self.members = [m for m in self.archive.infolist() if not m.is_dir()]
        except (zipfile.BadZipFile, ValueError, NotImplementedError) as error:
            raise InvalidInput(what, f"not a zip file ({error})") from None
        if len(self.members) > MAX_ZIP_MEMBERS:
            raise InvalidInput(what, f"{len(self.members):,} files; a zip holds at most {MAX_ZIP_MEMBERS:,}")
        self.budget = _Budget(unzipped_allowance(len(raw)), what)
        declared = sum(m.file_size for m in self.members)
        if declared > self.budget.allowed:
            self.budget.refuse(f"says it unzips to {size_text(declared)}, more than {size_text(self.budget.allowed)}")
        self.by_name = {m.filename: m for m in self.members}

    def open(self, name: str) -> Member | None:
        """The file ``name``, to read as it unpacks; None when the zip has none."""
        info = self.by_name.get(name)
        return None if info is None else Member(self.archive, info, self.budget)


def zip_members(raw: bytes, what: str = "file") -> Iterator[Member]:
    """Every file of a zip, in order, to read as it unpacks (:class:`Member`), within
    the zip's allowance (:class:`Zip`)."""
    archive = Zip(raw, what)
    for info in archive.members:
        yield Member(archive.archive, info, archive.budget)


# -- XML ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    """An XML event: ``kind`` is ``start`` (with ``attributes``), ``end`` or ``text``
    (``text``); ``depth`` counts the element itself (the root is 1)."""

    kind: str
    tag: str
    depth: int
    attributes: dict[str, str]
    text: str = ""


def xml_parser(what: str = "file", *, namespaces: bool = False) -> Any:
    """An expat parser that reads no document type declaration: one is refused
    with its line before anything in it is read (so no entity is ever defined,
    expanded or fetched; a reference to an undefined one is an XML error).
    ``namespaces``: element and attribute names as ``"<namespace URI> <local name>"``.
    Feed it with :func:`parse_xml`."""
    parser = expat.ParserCreate(namespace_separator=" " if namespaces else None)

    def refuse(*args: Any) -> None:
        raise InvalidInput(what, f"line {parser.CurrentLineNumber}: a document type declaration (DTD) is not read")

    parser.StartDoctypeDeclHandler = refuse
    # Unreachable once the declaration is refused; refused again should expat ever
    # report one without it (expat goes on parsing the chunk it was given).
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    return parser


def parse_xml(parser: Any, source: bytes | Member, what: str = "file") -> Iterator[None]:
    """Feed ``source`` to ``parser`` (:func:`xml_parser`) ``CHUNK`` bytes at a time,
    yielding after each so that the caller takes what its handlers gathered: at
    most one chunk's worth is ever waiting. An XML error is refused naming ``what``
    and the line."""
    if isinstance(source, bytes):
        view = memoryview(source)
        chunks: Iterator[bytes] = (bytes(view[at : at + CHUNK]) for at in range(0, len(source), CHUNK))
    else:
        chunks = iter(lambda: source.read(CHUNK), b"")
    for chunk in chunks:
        _parse(parser, chunk, False, what)
        yield
    _parse(parser, b"", True, what)
    yield


def _parse(parser: Any, chunk: bytes, final: bool, what: str) -> None:
    try:
        parser.Parse(chunk, final)
    except expat.ExpatError as error:
        raise InvalidInput(what, f"not XML: {error}") from None


def xml_events(raw: bytes | str, what: str = "file", *, max_depth: int = MAX_XML_DEPTH) -> Iterator[Element]:
    """An XML file's elements and text, parsed as it is read (expat, no tree built)."""
    require_size(raw, what)
    if isinstance(raw, str):
        problem = jsonsafe.problem_with(raw)
        if problem:
            raise InvalidInput(what, problem)
        raw = raw.encode("utf-8")
    parser = xml_parser(what)
    events: list[Element] = []
    stack: list[str] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        if len(stack) >= max_depth:
            raise InvalidInput(what, f"line {parser.CurrentLineNumber}: elements nested deeper than {max_depth} levels")
        stack.append(tag)
        events.append(Element("start", tag, len(stack), attributes))

    def end(tag: str) -> None:
        events.append(Element("end", tag, len(stack), {}))
        stack.pop()

    def characters(data: str) -> None:
        events.append(Element("text", stack[-1] if stack else "", len(stack), {}, data))

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = characters
    for _ in parse_xml(parser, raw, what):
        yield from events
        events.clear()
