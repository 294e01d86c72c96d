"""The import wizard: one file, read as what it is, previewed, then written.

:func:`prepare` detects what a file is (annotate.imports.detect), picks the reader
that reads it (annotate.imports.read, the kind's ``judgment_files`` and
``runs_csv``) and runs the import's check phase (annotate.services
``check_*``): everything is read and checked, nothing is written. Its
``Prepared.preview`` is what the organiser sees before confirming;
:func:`write` writes the same checked parts through
``annotate.imports.write.write_checked`` (annotate/imports/fence.py: batches behind the
campaign's fence). A table whose columns are not a crowd table's raises
:class:`MappingNeeded`, which names the columns found and those wanted.

Between the preview and the confirmation the file waits server-side
(:class:`Staging`): one file per user and campaign, no larger than the
upload limit, for at most ``CONCORD_STAGED_SECONDS`` (10 minutes), within a
cap per user and one for everyone (docs/architecture.md, "Import wizard";
docs/security.md).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from annotate.imports import check, detect, read
from annotate.imports.check import CheckedImport, check_runs, check_topics
from annotate.imports.write import write_checked
from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.base import Kind
from kinds.registry import get_kind
from kinds.spec import KindSpec

#: Rows of the file shown in the preview.
PREVIEW_ROWS = 10
#: Characters of a topic's data or a payload shown per row.
SHOWN_CHARS = 120


@dataclass(frozen=True)
class Choices:
    """What the organiser chose on the preview: how to read the file."""

    format: str = ""
    positive: str = ""
    rank: str = "overall"
    map_members: bool = False
    sheet: str = ""
    #: Column wanted -> column of the file (a table whose columns were not recognised).
    mapping: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Preview:
    """What Concord will read from a file, before anything is written."""

    filename: str
    detected: detect.Detected
    reads_as: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    counts: tuple[tuple[str, int], ...]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prepared:
    preview: Preview
    checked: CheckedImport


class MappingNeeded(InvalidInput):
    """A table whose columns are not a crowd table's: ``found`` (the file's) and ``wanted``."""

    def __init__(self, message: str, found: list[str], wanted: tuple[str, ...], detected: detect.Detected) -> None:
        super().__init__("file", message)
        self.found = found
        self.wanted = wanted
        self.detected = detected


def takes_crowd_labels(spec: KindSpec) -> bool:
    """The kind turns crowd (worker, item, label) rows into payloads (it overrides ``Kind.payload_from_labels``)."""
    return type(spec.data).payload_from_labels is not Kind.payload_from_labels


def prepare(campaign: Campaign, raw: bytes, filename: str, choices: Choices) -> Prepared:
    """Read and check ``raw`` for ``campaign`` as an import would; nothing is written."""
    spec = get_kind(campaign.kind)
    detected = detect.detect(raw, filename)
    refuse_unread(spec, detected)
    if detected.is_table:
        return _table(campaign, spec, raw, filename, detected, choices)
    if detected.format == "json" and detected.shape == "topics":
        return _topics(campaign, raw, filename, detected)
    if detected.format == "json" and detected.shape == "runs":
        runs = read.read_runs(raw, kind=spec, filename=filename)
        return _runs(campaign, runs, filename, detected, "runs (JSON)")
    return _judgments(campaign, spec, raw, filename, detected, choices, _judgment_format(spec, detected, choices))


def write(prepared: Prepared) -> str:
    """Write what :func:`prepare` checked; what was imported, in a sentence."""
    checked = prepared.checked
    imported = write_checked(checked.topics, runs=checked.runs, judgments=checked.judgments)
    parts = [_count(len(imported.topics), "topic")]
    if imported.runs:
        parts.append(_count(len(imported.runs), "run"))
    if imported.summary is not None:
        summary = imported.summary
        parts.append(_count(summary.judgments, "judgment"))
        parts.append(_count(summary.assessors_created, "new imported worker"))
    return f"Imported {', '.join(parts)} from {prepared.preview.filename}."


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


# -- what a file is, and where it goes ------------------------------------------------


def refuse_unread(spec: KindSpec, detected: detect.Detected) -> None:
    """Refuse, saying why, a file no reader of the wizard reads: an image, a
    binary, a TREC file (pointing at the kind's own form when it has one)."""
    if detected.format == "image":
        raise InvalidInput("file", f"{detected.what}, not a table: choose the CSV, spreadsheet or JSON file")
    if detected.format == "undecodable" and detected.encoding:
        raise InvalidInput(f"line {detected.line}", f"not readable text: {detected.what}; save the file as UTF-8")
    if detected.format == "undecodable":
        raise InvalidInput(
            f"line {detected.line}",
            f"not UTF-8 text: {detected.what} detected; save the file as UTF-8 (in Excel: CSV UTF-8)",
        )
    if detected.format == "binary":
        raise InvalidInput("file", f"{detected.what}: choose a CSV, .xlsx or JSON file")
    if detected.format == "ods":
        raise InvalidInput("file", f"{detected.what}: save it as .xlsx or CSV (UTF-8) and choose that")
    if detected.format.startswith("trec-") or detected.shape == "trec":
        forms = [upload.label for upload in spec.uploads]
        where = (
            f"use the form {' or '.join(repr(f) for f in forms)} further down this page"
            if forms
            else f"{spec.label} campaigns read no TREC files"
        )
        raise InvalidInput("file", f"this looks like {detected.what}: {where}")


def _judgment_format(spec: KindSpec, detected: detect.Detected, choices: Choices) -> str:
    """The judgments reader (importers.pick_format's names) for a file that is not a table."""
    if choices.format:
        return choices.format
    wanted = {
        ("json", "labelstudio"): ".labelstudio.json",
        ("jsonl", ""): ".jsonl",
        ("zip", ""): ".zip",
    }.get((detected.format, detected.shape if detected.format == "json" else ""))
    if detected.format == "json" and wanted is None:
        if detected.shape == "judgments":
            return ".json"
        raise InvalidInput(
            "file",
            "JSON, but not topics ([{external_id, data}]), runs ([{name, data}]) nor judgments "
            "([{assessor, topic, payload}]) as its first entry shows",
        )
    if wanted not in spec.judgment_files:
        reads = ", ".join([*spec.judgment_files, ".json", "CSV", ".xlsx"])
        raise InvalidInput("file", f"{detected.what}: {spec.label} campaigns do not read it (they read {reads})")
    return wanted


def _table(
    campaign: Campaign, spec: KindSpec, raw: bytes, filename: str, detected: detect.Detected, choices: Choices
) -> Prepared:
    table = detect.open_table(raw, detected, choices.sheet)
    sheets, found = table.sheets, table.header
    mapping = _mapping(choices.mapping, found)
    columns = [mapping.get(c, c) for c in found if not mapping or c in mapping]
    if spec.runs_csv is not None and columns[:1] == ["topic"] and "run" in columns:
        text = detect.TableText(table.all_rows(), mapping or None)
        with _rows_named(text, table.unit):
            runs = read.read_runs(text.whole(), kind=spec, filename="runs.csv")
        return _runs(campaign, runs, filename, detected, "runs (a table)", sheets)
    if not takes_crowd_labels(spec):
        raise InvalidInput(
            "file",
            f"a table with the columns {', '.join(found)}: {spec.label} campaigns read judgments as JSON "
            f"({', '.join(['.json', *spec.judgment_files])}), not as a table",
        )
    if read.crowd_schema(columns) is None:
        raise MappingNeeded(read.missing_columns(columns), found, read.nearest_schema(columns), detected)
    if detected.format == "csv" and not mapping:
        parsed = read.read_judgment_file(
            campaign,
            raw,
            filename="file.csv",
            format=".csv",
            positive=choices.positive or None,
            delimiter=detected.delimiter,
        )
        return _judgments_prepared(campaign, parsed, filename, detected, choices, sheets)
    # Converted as the crowd reader reads it: a bad row stops the reading there.
    text = detect.TableText(table.all_rows(), mapping or None)
    with _rows_named(text, table.unit):
        parsed = read.read_judgment_file(
            campaign, text, filename="file.csv", format=".csv", positive=choices.positive or None
        )
        return _judgments_prepared(campaign, parsed, filename, detected, choices, sheets)


@contextmanager
def _rows_named(text: detect.TableText, unit: str) -> Iterator[None]:
    """Errors about line N of the converted CSV name the file's own row (a
    spreadsheet's ``row 12``) or line."""
    try:
        yield
    except MappingNeeded:
        raise
    except InvalidInput as error:
        found = re.match(r"line (\d+)", error.field)
        if found is None:
            raise
        source = text.source_line(int(found[1]))
        raise InvalidInput(f"{unit} {source}{error.field[found.end() :]}", error.message) from None


def _mapping(chosen: Mapping[str, str], found: list[str]) -> dict[str, str]:
    """The organiser's choice (column wanted -> column of the file) as file column -> wanted."""
    mapping: dict[str, str] = {}
    for wanted, column in chosen.items():
        if not column:
            continue
        if column not in found:
            raise InvalidInput(f"map.{wanted}", f"no column {column!r} in the file (found: {', '.join(found)})")
        if column in mapping:
            raise InvalidInput(f"map.{wanted}", f"column {column!r} is already read as {mapping[column]!r}")
        mapping[column] = wanted
    return mapping


def _topics(campaign: Campaign, raw: bytes, filename: str, detected: detect.Detected) -> Prepared:
    checked = check_topics(campaign, read.read_topics(raw))
    # The rows hold the data as the database takes it (on PostgreSQL an adapter): shown is the cleaned data.
    rows = tuple((tid, title, _shown(checked.data[tid])) for tid, title, _ in checked.rows[:PREVIEW_ROWS])
    preview = Preview(
        filename,
        detected,
        "topics (JSON)",
        ("topic", "title", "data"),
        rows,
        (("new topics", len(checked.rows)),),
        detected.notices,
    )
    return Prepared(preview, CheckedImport(checked, None, None))


def _runs(
    campaign: Campaign,
    runs: list[Any],
    filename: str,
    detected: detect.Detected,
    reads_as: str,
    sheets: tuple[str, ...] = (),
) -> Prepared:
    checked = check_runs(campaign, runs)
    rows = tuple((run["name"], _shown(run["data"])) for run in runs[:PREVIEW_ROWS])
    preview = Preview(
        filename, detected, reads_as, ("run", "data"), rows, (("runs", len(checked.rows)),), detected.notices, sheets
    )
    return Prepared(preview, CheckedImport(None, checked, None))


def _judgments(
    campaign: Campaign,
    spec: KindSpec,
    raw: bytes,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    format: str,
) -> Prepared:
    parsed = read.read_judgment_file(
        campaign,
        raw,
        filename=filename,
        format=format,
        positive=choices.positive or None,
        rank=choices.rank or "overall",
    )
    return _judgments_prepared(campaign, parsed, filename, detected, choices)


def _judgments_prepared(
    campaign: Campaign,
    parsed: read.JudgmentFile,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    sheets: tuple[str, ...] = (),
) -> Prepared:
    checked = check.check_judgment_file(campaign, parsed, map_members=choices.map_members)
    judgments = checked.judgments
    assert judgments is not None
    crowd = parsed.crowd
    warnings = list(detected.notices)
    if checked.topics is not None:
        warnings.append(f"{_count(len(checked.topics.rows), 'topic')} the campaign lacks will be created from the file")
    if checked.runs is not None:
        warnings.append("the file's reference labels (gold) will be stored as the run 'gold'")
    if crowd is not None and crowd.labels:
        columns: tuple[str, ...] = ("line", "worker", "topic", "item", "label")
        rows = tuple(
            (str(label.line), label.worker, label.topic, label.candidate, _label(label.label))
            for label in crowd.labels[:PREVIEW_ROWS]
        )
        items = len({(label.topic, label.candidate) for label in crowd.labels})
        extra: tuple[tuple[str, int], ...] = (("labels", len(crowd.labels)), ("items", items))
    else:
        columns = ("assessor", "topic", "payload")
        entries = parsed.entries if parsed.entries is not None else crowd.judgments if crowd else []
        rows = tuple((e["assessor"], e["topic"], _shown(e["payload"])) for e in entries[:PREVIEW_ROWS])
        extra = ()
    topics = {topic for topic, _, _ in judgments.rows}
    counts = (
        ("topics", len(topics)),
        ("new topics", len(checked.topics.rows) if checked.topics else 0),
        *extra,
        ("assessors", len({worker for _, worker, _ in judgments.rows})),
        ("new imported workers", len(judgments.accounts.new)),
        ("judgments", len(judgments.rows)),
    )
    reads_as = {".json": "judgments (JSON)", ".csv": "crowd labels (a table)"}.get(parsed.format, parsed.format)
    preview = Preview(filename, detected, reads_as, columns, rows, counts, tuple(warnings), sheets)
    return Prepared(preview, checked)


def _label(value: Any) -> str:
    if value is True:
        return "match"
    if value is False:
        return "no match"
    return str(value)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


# -- the file between the preview and the confirmation --------------------------------


@dataclass(frozen=True)
class Staged:
    name: str
    raw: bytes


class StagingFull(InvalidInput):
    """Everyone's files waiting for confirmation fill the space or the count allowed (503)."""


def staging_directory() -> Path:
    return Path(tempfile.gettempdir()) / "concord-imports"


def staged_for() -> int:
    """Seconds a previewed file waits for its confirmation."""
    return settings.CONCORD_STAGED_SECONDS


def sweep_staged(directory: Path | None = None) -> int:
    """Remove every staged file older than :func:`staged_for` (anyone's); how many.
    Run on every preview and confirmation, and every minute by the task worker."""
    directory = directory or staging_directory()
    cutoff = time.time() - staged_for()
    removed = 0
    for entry in _entries(directory):
        if entry.mtime < cutoff:
            entry.path.unlink(missing_ok=True)
            removed += 1
    return removed


@dataclass(frozen=True)
class _Entry:
    path: Path
    size: int
    mtime: float


def _entries(directory: Path) -> list[_Entry]:
    entries = []
    try:
        listing = list(directory.iterdir())
    except FileNotFoundError:
        return []
    for path in listing:
        try:
            stat = path.stat()
        except OSError:
            continue  # removed meanwhile by another request's sweep
        entries.append(_Entry(path, stat.st_size, stat.st_mtime))
    return entries


class Staging:
    """The file a user previewed, kept for its confirmation: one per user and
    campaign, whichever session previewed it last.

    It is kept in the temporary directory as ``u<user>-c<campaign>-<token>``,
    the token random and known only to the session that previewed it, with its
    SHA-256 (a file changed on disk is refused), at most :func:`staged_for`
    seconds. Staging a file replaces the user's previous one for the campaign,
    from any sign-in (that session's confirmation then finds nothing); the
    user's oldest staged files (other campaigns) go while the user's would be
    more than ``CONCORD_STAGED_BYTES_PER_USER``; and a file is refused while
    everyone's would be more than ``CONCORD_STAGED_BYTES`` or
    ``CONCORD_STAGED_FILES`` files. Expired files of anyone are removed
    whenever a file is staged or confirmed (:func:`sweep_staged`; the task
    worker does it every minute too)."""

    def __init__(self, session: Any, user: Any, campaign: Campaign, directory: Path | None = None) -> None:
        self.session = session
        self.key = f"concord-import-{campaign.pk}"
        self.directory = directory or staging_directory()
        self.user_prefix = f"u{user.pk}-"
        self.prefix = f"u{user.pk}-c{campaign.pk}-"

    def put(self, name: str, raw: bytes) -> None:
        per_user = settings.CONCORD_STAGED_BYTES_PER_USER
        if len(raw) > per_user:
            raise InvalidInput(
                "file",
                f"larger than {reading.size_text(per_user)}, what a file may take while it waits for its "
                "confirmation (CONCORD_STAGED_BYTES_PER_USER)",
            )
        self.directory.mkdir(mode=0o700, exist_ok=True)
        sweep_staged(self.directory)
        self.session.pop(self.key, None)
        entries = []
        for entry in _entries(self.directory):
            if entry.path.name.startswith(self.prefix):  # this user's previous file for the campaign
                entry.path.unlink(missing_ok=True)
            else:
                entries.append(entry)
        mine = sorted((e for e in entries if e.path.name.startswith(self.user_prefix)), key=lambda e: e.mtime)
        held = sum(e.size for e in mine)
        for entry in mine:
            if held + len(raw) <= per_user:
                break
            entry.path.unlink(missing_ok=True)
            entries.remove(entry)
            held -= entry.size
        total, files = sum(e.size for e in entries), len(entries)
        if total + len(raw) > settings.CONCORD_STAGED_BYTES or files + 1 > settings.CONCORD_STAGED_FILES:
            raise StagingFull(
                "file",
                f"too many files are waiting for their confirmation on the server ({files:,}, "
                f"{reading.size_text(total)}; CONCORD_STAGED_BYTES, CONCORD_STAGED_FILES): try again in a few minutes",
            )
        token = secrets.token_hex(16)
        path = self.directory / f"{self.prefix}{token}"
        partial = self.directory / f"partial-{token}"
        try:
            partial.write_bytes(raw)
            partial.replace(path)
        finally:
            partial.unlink(missing_ok=True)
        self.session[self.key] = {
            "token": token,
            "name": name,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "at": time.time(),
        }

    def get(self) -> Staged:
        sweep_staged(self.directory)
        entry = self.session.get(self.key)
        path = self._path(entry)
        if path is None or not path.exists() or time.time() - entry["at"] > staged_for():
            minutes = max(1, round(staged_for() / 60))
            raise InvalidInput(
                "file",
                f"no file waiting for confirmation (it expires after {minutes} minute{'s' if minutes != 1 else ''}, "
                "and a later preview of yours replaces it): choose it again",
            )
        raw = path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
            raise InvalidInput("file", "the file waiting for confirmation changed: choose it again")
        return Staged(entry["name"], raw)

    def drop(self) -> None:
        """Remove this session's staged file for the campaign, if any."""
        path = self._path(self.session.pop(self.key, None))
        if path is not None:
            path.unlink(missing_ok=True)

    def _path(self, entry: Any) -> Path | None:
        token = entry.get("token") if isinstance(entry, dict) else None
        if not isinstance(token, str) or not re.fullmatch(r"[0-9a-f]{32}", token):
            return None
        return self.directory / f"{self.prefix}{token}"
