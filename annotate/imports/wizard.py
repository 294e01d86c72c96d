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

The preview tells what Import will do (``Choices.gather``): every row the
import would refuse (a judgment the campaign already has, an unknown topic, a
repeated row, a label off the scale, a judgment the kind refuses) is gathered
(annotate.imports.problems) and listed with what each choice does with it:
skip those rows, replace the judgments the campaign has (where they may be
replaced: :func:`annotate.imports.check.clash`), or cancel; a column of more
than two labels read as match / no match is said and must be confirmed
(:func:`binary_warning`). The confirmation reads the file again with the same
choices and imports only what the preview showed (:func:`confirmable`).

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from django.conf import settings

from annotate.imports import check, detect, ratings, read
from annotate.imports.check import CheckedImport, check_runs, check_topics
from annotate.imports.problems import Problem, Problems
from annotate.imports.write import REPLACE_MOST, write_checked
from annotate.models import Campaign
from annotate.services.members import shown_name
from concord import paramforms, reading
from concord.digits import whole_number
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
    #: A rating table's (annotate/imports/ratings.py): its shape (or ``crowd``: read as a crowd
    #: table), the column of each role (``col.<role>``: a number from 1, ``#`` the row's number,
    #: "" none), the rater or category columns (None: not sent) and the scale's fields as sent.
    shape: str = ""
    columns: Mapping[str, str] = field(default_factory=dict)
    picked: tuple[str, ...] | None = None
    scale: Mapping[str, str] = field(default_factory=dict)
    #: Raters of the file to mark model judges (an LLM used as a rater) as they are imported: the
    #: preview's boxes (``model_judge``, one a rater) and the names typed beside them when the file
    #: has more raters than the page lists (``model_judge.more``).
    model_judges: tuple[str, ...] = ()
    more_judges: str = ""
    #: Gather the rows the import would refuse and leave them out (annotate.imports.problems),
    #: as the wizard does; else the first refuses the file.
    gather: bool = False
    #: What to do with the rows gathered: ``skip`` them, or ``replace`` the judgments the
    #: campaign has (the others skipped); "" not chosen yet.
    resolve: str = ""
    #: A column of more than two labels may be read as match / no match (:func:`binary_warning`).
    binary: bool = False


#: The choices for the rows the import would refuse.
SKIP, REPLACE = "skip", "replace"
RESOLUTIONS = (SKIP, REPLACE)


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
    #: A rating table's layout and scale, to correct on the page.
    table: TableView | None = None
    #: A judgments file's raters (the first ``SHOWN_RATERS``), and how many more: the page's
    #: model-judge boxes (a rating table's are its ``table``'s).
    raters: tuple[str, ...] = ()
    more_raters: int = 0
    #: The rows the import would refuse, by kind (annotate.imports.problems); () none.
    problems: tuple[Problem, ...] = ()
    #: What Import does with them, per choice: (``skip`` or ``replace``, in a sentence); and
    #: why replacing is not offered ("" where it is, or where nothing is there to replace).
    resolutions: tuple[tuple[str, str], ...] = ()
    no_replace: str = ""
    #: A column of more than two labels read as match / no match, said (:func:`binary_warning`).
    binary: str = ""
    #: The preview's figures, which the confirmation reads again (:func:`confirmable`).
    signature: str = ""


@dataclass(frozen=True)
class Prepared:
    preview: Preview
    checked: CheckedImport
    #: The raters the import marks model judges (:func:`model_judges`: raters of the file, every one).
    model_judges: tuple[str, ...] = ()
    #: The rows gathered as refused (``Choices.gather``), left out of ``checked``.
    problems: Problems | None = None


#: The shape that reads a table as a crowd table (the kind's own long shape, e.g. pairs').
CROWD = "crowd"
#: Rows of a table its layout is guessed from.
GUESS_ROWS = 20
#: Raters the page lists by name.
SHOWN_RATERS = 100
#: Distinct labels the page lists with their counts.
SHOWN_VALUES = 40
#: Model judges the message after an import names.
SAID_JUDGES = 10


@dataclass(frozen=True)
class ColumnChoice:
    """One role of a rating table's columns (``col.<role>``) and the file's columns to read it from."""

    role: str
    label: str
    required: bool
    #: (value, text, selected): a column's number from 1, ``#`` the row's number, "" none
    options: tuple[tuple[str, str, bool], ...]


@dataclass(frozen=True)
class TableView:
    """What the page shows of a rating table to correct before it is imported: its shape, which
    column is which, the rater (or category) columns, the scale found and its form, the labels
    found with their counts and the raters found."""

    shape: str
    shapes: tuple[tuple[str, str, bool], ...]
    columns: tuple[ColumnChoice, ...]
    picked_label: str
    picked: tuple[tuple[str, str, bool], ...]
    scale_text: str
    scale_fields: tuple[paramforms.Field, ...]
    values: tuple[tuple[str, int], ...]
    more_values: int
    #: The raters found (the first ``SHOWN_RATERS``), and how many more: each with its model-judge
    #: box (:func:`model_judges`), but a count table's anonymous slots.
    raters: tuple[str, ...]
    more_raters: int
    anonymous: bool
    fixed: bool


class TableChoices(InvalidInput):
    """A rating table that cannot be read as laid out or on the scale given: the error, and the
    page's layout and scale to correct (the file stays staged)."""

    def __init__(self, error: InvalidInput, view: TableView, detected: detect.Detected) -> None:
        super().__init__(error.field, error.message)
        self.view = view
        self.detected = detected


class NotRaters(InvalidInput):
    """A model judge named on the preview that the file does not make a rater (400 naming the
    field): the file reads, so its preview is shown again with the names to correct (the file
    stays staged)."""

    def __init__(self, error: InvalidInput, prepared: Prepared) -> None:
        super().__init__(error.field, error.message)
        self.prepared = prepared


class NotConfirmed(InvalidInput):
    """A confirmation refused although the file reads (:func:`confirmable`): its preview is
    shown again with the error (the file stays staged)."""

    def __init__(self, field: str, message: str, prepared: Prepared) -> None:
        super().__init__(field, message)
        self.prepared = prepared


class Unreadable(InvalidInput):
    """A file the wizard reads nothing of (an image, a binary, text it cannot decode, a TREC
    file): never staged."""


class MappingNeeded(InvalidInput):
    """A table whose columns are not a crowd table's, or a mapped table refused as read
    (``field``, ``message``): ``found`` (the file's columns) and ``wanted``, to map (again)."""

    def __init__(
        self,
        message: str,
        found: list[str],
        wanted: tuple[str, ...],
        detected: detect.Detected,
        field: str = "file",
    ) -> None:
        super().__init__(field, message)
        self.found = found
        self.wanted = wanted
        self.detected = detected


def takes_crowd_labels(spec: KindSpec) -> bool:
    """The kind turns crowd (worker, item, label) rows into payloads (it overrides ``Kind.payload_from_labels``)."""
    return type(spec.data).payload_from_labels is not Kind.payload_from_labels


def prepare(campaign: Campaign, raw: bytes, filename: str, choices: Choices) -> Prepared:
    """Read and check ``raw`` for ``campaign`` as an import would, with the model judges named
    among its raters (:func:`model_judges`) and, with ``choices.gather``, the rows it would
    refuse gathered, left out and said with what each choice does (:func:`outcome`); nothing
    is written."""
    problems = Problems(replace=choices.resolve == REPLACE) if choices.gather else None
    prepared = _read(campaign, raw, filename, choices, problems)
    prepared = replace(prepared, problems=problems)
    prepared = replace(prepared, preview=outcome(prepared))
    return replace(prepared, model_judges=model_judges(prepared, choices))


def _read(campaign: Campaign, raw: bytes, filename: str, choices: Choices, problems: Problems | None) -> Prepared:
    spec = get_kind(campaign.kind)
    detected = detect.detect(raw, filename)
    refuse_unread(spec, detected)
    point_to_upload(spec, raw, detected, choices.sheet)
    if detected.is_table:
        return _table(campaign, spec, raw, filename, detected, choices, problems)
    if _interchange_as_ratings(spec, detected, choices):
        return _interchange(campaign, spec, raw, filename, detected, choices, problems)
    if detected.format == "json" and detected.shape == "topics":
        return _topics(campaign, raw, filename, detected)
    if detected.format == "json" and detected.shape == "runs":
        runs = read.read_runs(raw, kind=spec, filename=filename)
        return _runs(campaign, runs, filename, detected, "runs (JSON)")
    format = _judgment_format(spec, detected, choices)
    return _judgments(campaign, spec, raw, filename, detected, choices, format, problems)


# -- what Import will do --------------------------------------------------------------


def outcome(prepared: Prepared) -> Preview:
    """The preview with the rows gathered as refused, what Import does with them under each
    choice, and its signature (what the confirmation must read again)."""
    preview, problems = prepared.preview, prepared.problems
    judgments = prepared.checked.judgments
    resolutions: list[tuple[str, str]] = []
    no_replace = ""
    counts = preview.counts
    if problems and judgments is not None:
        new, existing = len(judgments.rows), judgments.existing
        replaceable = sum(1 for e in existing if not e.kept)
        left = problems.rows(existing=False)
        whole = f"{_count(new + len(existing), 'judgment')} of the file"
        rest = f"; {_count(left, 'other row')} listed, left out" if left else ""
        if existing:
            counts = (*counts, ("judgments already there", len(existing)))
            resolutions.append((SKIP, f"{whole}: {new:,} new, {len(existing):,} already there — skipped{rest}."))
            if replaceable > REPLACE_MOST:
                no_replace = (
                    f"{replaceable:,} judgments may be replaced, more than one import replaces "
                    f"({REPLACE_MOST:,}, each with its history, in the import's last transaction): skip them, "
                    "or split the file"
                )
            elif not replaceable:
                no_replace = "none of the judgments already there may be replaced: each says why"
            else:
                kept = len(existing) - replaceable
                how = (
                    f"{replaceable:,} replaced, {kept:,} skipped (not replaceable: each says why)"
                    if kept
                    else "replaced"
                )
                resolutions.append(
                    (
                        REPLACE,
                        f"{whole}: {new:,} new, {len(existing):,} already there — {how}{rest}. A judgment replaced "
                        "becomes a new submitted version; the one it replaces stays in its history.",
                    )
                )
        else:
            resolutions.append((SKIP, f"{whole} written; the {_count(left, 'row')} listed left out."))
        if left:
            counts = (*counts, ("rows left out", left))
    listed = tuple(problems.listed()) if problems else ()
    signature = _signature(counts, listed, preview.binary, no_replace)
    return replace(
        preview,
        counts=counts,
        problems=listed,
        resolutions=tuple(resolutions),
        no_replace=no_replace,
        signature=signature,
    )


def _signature(counts: Any, listed: tuple[Problem, ...], binary: str, no_replace: str) -> str:
    figures = json.dumps([list(counts), [(p.kind, p.rows) for p in listed], binary, no_replace], ensure_ascii=False)
    return hashlib.sha256(figures.encode()).hexdigest()[:20]


def confirmable(prepared: Prepared, choices: Choices, expected: str = "") -> None:
    """Refuse (:class:`NotConfirmed`) a confirmation that would not do what its preview said:
    the file reads otherwise than when previewed (``expected``: the preview's signature, when
    the page sent it), rows the import refuses and no choice of what to do with them, a
    replacement not offered, a column read as match / no match not confirmed, or nothing left
    to import."""
    preview = prepared.preview
    if expected and expected != preview.signature:
        raise NotConfirmed(
            "expected",
            "what Import would do is not what the preview said (the campaign, or a choice on this page, "
            "changed since): here it is again; check it, then import",
            prepared,
        )
    if preview.problems and choices.resolve not in RESOLUTIONS:
        rows = sum(p.rows for p in preview.problems)
        raise NotConfirmed(
            "resolve",
            f"Import would refuse the {_count(rows, 'row')} listed: choose to skip them"
            + (
                " or to replace the judgments already there"
                if any(v == REPLACE for v, _ in preview.resolutions)
                else ""
            )
            + ", or cancel",
            prepared,
        )
    if choices.resolve == REPLACE and preview.problems and not any(v == REPLACE for v, _ in preview.resolutions):
        raise NotConfirmed("resolve", preview.no_replace or "nothing listed may be replaced: skip, or cancel", prepared)
    if preview.binary and not choices.binary:
        raise NotConfirmed("binary", f"{preview.binary}: tick the box to import them so, or cancel", prepared)
    judgments = prepared.checked.judgments
    if preview.problems and judgments is not None and not judgments.rows and not judgments.replacing:
        raise NotConfirmed("file", "nothing to import: every judgment of the file is among the rows listed", prepared)


#: Labels a warning names one by one.
SAID_VALUES = 8


def binary_warning(values: list[tuple[str, int]], decode: Any, more: bool = False) -> str:
    """What the preview says of a column of more than two distinct labels (``values``: text,
    count; ``more``: it has others) that ``decode`` (a label's text -> True, False, or None: not
    a match label) makes match / no match when it read some label other than the match words
    (``read.MATCH_WORDS``, ``NO_MATCH_WORDS``) so: the value meaning a match was typed and turned
    a scale into two values (9 on a 0-9 scale). "" when nothing was turned (the labels kind's
    scales and graded relevance decode to no booleans)."""
    if len(values) <= 2 and not more:
        return ""
    matches, others = [], []
    for text, _ in values:
        value = decode(text)
        if value is None:
            continue
        if not isinstance(value, bool):
            return ""
        (matches if value else others).append(text)
    turned = [t for t in matches if t.lower() not in read.MATCH_WORDS]
    turned += [t for t in others if t.lower() not in read.NO_MATCH_WORDS]
    if not turned or not matches or not others:
        return ""
    distinct = f"more than {len(values):,}" if more else f"{len(values):,}"
    verb = "is" if len(matches) == 1 else "are"
    return (
        f"{distinct} distinct labels: {_values_text(matches)} {verb} read as a match, {_values_text(others)} as no "
        "match (the value meaning a match turns the scale into two values). To keep every label, import the file "
        "into a labels campaign instead"
    )


def _values_text(texts: list[str]) -> str:
    """``0-8`` (whole numbers in a row), else the first few quoted, and how many more."""
    numbers = [whole_number(t) if t.isascii() else None for t in texts]
    if len(texts) > 1 and all(n is not None for n in numbers):
        ordered = sorted(set(numbers))
        if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) == len(texts):
            return f"{ordered[0]}-{ordered[-1]}"
    shown = ", ".join(repr(t) if not t.isdigit() else t for t in texts[:SAID_VALUES])
    return shown + (f" and {len(texts) - SAID_VALUES:,} more" if len(texts) > SAID_VALUES else "")


def write(prepared: Prepared) -> str:
    """Write what :func:`prepare` checked; what was imported, in a sentence."""
    checked = prepared.checked
    imported = write_checked(
        checked.topics,
        runs=checked.runs,
        judgments=checked.judgments,
        params=checked.params,
        model_judges=prepared.model_judges,
    )
    parts = [_count(len(imported.topics), "topic")]
    if imported.runs:
        parts.append(_count(len(imported.runs), "run"))
    if imported.summary is not None:
        summary = imported.summary
        parts.append(_count(summary.judgments, "judgment"))
        parts.append(_count(summary.assessors_created, "new imported assessor"))
    if imported.replaced:
        parts.append(f"replaced {_count(imported.replaced, 'judgment')} (the earlier versions kept in their history)")
    problems = prepared.problems
    if problems:
        skipped = len(checked.judgments.existing) - len(checked.judgments.replacing) if checked.judgments else 0
        left = problems.rows(existing=False)
        if skipped:
            parts.append(f"skipped {_count(skipped, 'judgment')} already there")
        if left:
            parts.append(f"left out {_count(left, 'row')} listed at the preview")
    table = prepared.preview.table
    said = f"; the campaign's scale: {table.scale_text}" if checked.params is not None and table else ""
    judges = prepared.model_judges
    if judges:
        more = f" and {len(judges) - SAID_JUDGES:,} more" if len(judges) > SAID_JUDGES else ""
        said += f"; marked model judge{'s' if len(judges) != 1 else ''}: {', '.join(judges[:SAID_JUDGES])}{more}"
    return f"Imported {', '.join(parts)} from {prepared.preview.filename}{said}."


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


# -- model judges ---------------------------------------------------------------------


def model_judges(prepared: Prepared, choices: Choices) -> tuple[str, ...]:
    """The raters ``choices`` names as model judges (``model_judge``: the preview's boxes;
    ``model_judge.more``: names typed, separated by commas or white space), each once, in the
    order named. Every one must be a rater of the file (an account the import writes judgments
    under, new or existing); a count table has none to name (its raters are anonymous slots).
    Else :class:`NotRaters` naming the field and the first name at fault."""
    named = [("model_judge", name) for name in choices.model_judges]
    named += [("model_judge.more", name) for name in re.split(r"[\s,]+", choices.more_judges) if name]
    if not named:
        return ()
    table = prepared.preview.table
    judgments = prepared.checked.judgments
    raters: set[str] = set()
    if judgments is not None and not (table is not None and table.anonymous):
        raters = {*judgments.accounts.new, *judgments.accounts.existing}
    for where, name in named:
        if name in raters:
            continue
        if not raters:
            why = (
                "a table of counts names no raters (its labels are anonymous rating slots)"
                if table is not None and table.anonymous
                else "this file holds no judgments"
            )
            raise NotRaters(InvalidInput(where, f"{why}: none can be a model judge"), prepared)
        listed = table.raters if table is not None else prepared.preview.raters
        some = ", ".join(listed[:5]) + (", ..." if len(raters) > 5 else "")
        raise NotRaters(
            InvalidInput(where, f"{shown_name(name)} is not a rater of this file (its raters: {some})"), prepared
        )
    return tuple(dict.fromkeys(name for _, name in named))


# -- what a file is, and where it goes ------------------------------------------------


def refuse_unread(spec: KindSpec, detected: detect.Detected) -> None:
    """Refuse, saying why, a file no reader of the wizard reads: an image, a
    binary, a TREC file (pointing at the kind's own form when it has one)."""
    if detected.format == "image":
        raise Unreadable("file", f"{detected.what}, not a table: choose the CSV, spreadsheet or JSON file")
    if detected.format == "undecodable" and detected.encoding:
        raise Unreadable(f"line {detected.line}", f"not readable text: {detected.what}; save the file as UTF-8")
    if detected.format == "undecodable":
        raise Unreadable(
            f"line {detected.line}",
            f"not UTF-8 text: {detected.what} detected; save the file as UTF-8 (in Excel: CSV UTF-8)",
        )
    if detected.format == "binary":
        raise Unreadable("file", f"{detected.what}: choose a CSV, .xlsx or JSON file")
    if detected.format == "ods":
        raise Unreadable("file", f"{detected.what}: save it as .xlsx or CSV (UTF-8) and choose that")
    if detected.format.startswith("trec-") or detected.shape == "trec":
        forms = [upload.label for upload in spec.uploads]
        where = (
            f"use the form {' or '.join(repr(f) for f in forms)} further down this page"
            if forms
            else f"{spec.label} campaigns read no TREC files"
        )
        raise Unreadable("file", f"this looks like {detected.what}: {where}")


def point_to_upload(spec: KindSpec, raw: bytes, detected: detect.Detected, sheet: str = "") -> None:
    """Refuse (:class:`Unreadable`), naming the form that reads it, a file whose columns are one
    of the kind's own uploads' (``Upload.recognise``: a preference campaign's battles, say), which
    the generic readers would misread or refuse for columns they do not know."""
    recognising = [upload for upload in spec.uploads if upload.recognise is not None]
    if not recognising:
        return
    columns = file_columns(raw, detected, sheet)
    for upload in recognising:
        assert upload.recognise is not None
        if columns and upload.recognise(columns):
            raise Unreadable(
                "file",
                f"this looks like {upload.label.lower()} (columns {', '.join(columns)}): use the form "
                f"{upload.label!r} further down the Uploads page",
            )


def file_columns(raw: bytes, detected: detect.Detected, sheet: str = "") -> list[str]:
    """A table's header, or the keys of a JSON Lines file's first object; [] for other files."""
    if detected.format in ("csv", "xlsx"):
        return detect.open_table(raw, detected, sheet).header
    if detected.format == "jsonl":
        first = next((text for _, text in reading.numbered(raw) if text.strip()), "")
        try:
            value = json.loads(first)
        except ValueError:
            return []
        return [str(key) for key in value] if isinstance(value, dict) else []
    return []


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
    campaign: Campaign,
    spec: KindSpec,
    raw: bytes,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    problems: Problems | None,
) -> Prepared:
    table = detect.open_table(raw, detected, choices.sheet)
    sheets, found = table.sheets, table.header
    if _reads_as_ratings(spec, found, choices):
        return _rating_table(campaign, spec, filename, detected, choices, table, problems)
    try:
        mapping = _mapping(choices.mapping, found)
    except InvalidInput as error:
        wanted = tuple(name.removeprefix("map.") for name in choices.mapping)
        raise MappingNeeded(error.message, found, _wanted(wanted), detected, field=error.field) from None
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
    try:
        return _crowd_table(campaign, raw, filename, detected, choices, problems, table, mapping)
    except (MappingNeeded, NotRaters):
        raise
    except InvalidInput as error:
        if not mapping:
            raise
        # The columns mapped stay on the page with the error, to correct either.
        schema = read.crowd_schema(columns) or read.nearest_schema(columns)
        raise MappingNeeded(error.message, found, schema, detected, field=error.field) from None


def _wanted(named: tuple[str, ...]) -> tuple[str, ...]:
    """The crowd table's columns a mapping names some of (the page's mapping rows)."""
    return next((schema for schema in read.CROWD_SCHEMAS if set(named) <= set(schema)), read.nearest_schema(named))


def _crowd_table(
    campaign: Campaign,
    raw: bytes,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    problems: Problems | None,
    table: detect.Table,
    mapping: dict[str, str],
) -> Prepared:
    sheets = table.sheets
    if detected.format == "csv" and not mapping:
        parsed = read.read_judgment_file(
            campaign,
            raw,
            filename="file.csv",
            format=".csv",
            positive=choices.positive or None,
            delimiter=detected.delimiter,
            problems=problems,
        )
        return _judgments_prepared(campaign, parsed, filename, detected, choices, problems, sheets)
    # Converted as the crowd reader reads it: a bad row stops the reading there.
    text = detect.TableText(table.all_rows(), mapping or None)
    with _rows_named(text, table.unit):
        parsed = read.read_judgment_file(
            campaign, text, filename="file.csv", format=".csv", positive=choices.positive or None, problems=problems
        )
        prepared = _judgments_prepared(campaign, parsed, filename, detected, choices, problems, sheets)
    if problems:
        problems.rename(lambda where: _row_named(text, table.unit, where))
    return prepared


# -- rating tables (annotate/imports/ratings.py) ---------------------------------------


def _reads_as_ratings(spec: KindSpec, columns: list[str], choices: Choices) -> bool:
    """A table is read as a rating table by a kind that takes them, unless the organiser asked
    for a crowd table; a kind whose crowd tables are its long shape (pairs) reads a table as a
    wide one when the organiser says so, or when its header names the units' topic and id
    columns and no rater or label column (else as a crowd table, whose columns are mapped)."""
    tables = spec.tables
    if tables is None:
        return False
    if choices.shape:
        return choices.shape != CROWD
    if choices.mapping:
        return False
    if ratings.LONG in tables.shapes or not takes_crowd_labels(spec):
        return True
    return read.crowd_schema(columns) is None and ratings.wide_by_name(tables, columns)


def _interchange_as_ratings(spec: KindSpec, detected: detect.Detected, choices: Choices) -> bool:
    """A Label Studio or doccano file is read as ratings by a kind that says so, unless the
    organiser chose a reader by its format."""
    tables = spec.tables
    labelstudio = detected.format == "json" and detected.shape == "labelstudio"
    return bool(tables and tables.interchange and not choices.format and (labelstudio or detected.format == "zip"))


def table_shapes(spec: KindSpec) -> tuple[tuple[str, str], ...]:
    """The shapes a table may be read as in a campaign of ``spec``: (value, what it is)."""
    tables = spec.tables
    if tables is None:
        return ()
    shapes = [(shape, ratings.SHAPE_NAMES[shape].format(unit=tables.unit)) for shape in tables.shapes]
    if ratings.LONG not in tables.shapes and takes_crowd_labels(spec):
        shapes.insert(0, (CROWD, "crowd table: worker, topic or item, label (CrowdTruth, ...)"))
    return tuple(shapes)


def _rating_table(
    campaign: Campaign,
    spec: KindSpec,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    table: detect.Table,
    problems: Problems | None,
) -> Prepared:
    tables = spec.tables
    assert tables is not None
    header = table.header
    head = []
    for number, row in table.rows:
        head.append((number, row))
        if len(head) == GUESS_ROWS:
            break
    shapes = [shape for shape, _ in table_shapes(spec) if shape != CROWD]
    guessed = ratings.guess(tables, header, [row for _, row in head], shapes)
    state = _state(guessed, choices)
    try:
        layout = ratings.layout(
            tables,
            header,
            [row for _, row in head],
            shapes,
            shape=choices.shape,
            columns=choices.columns,
            picked=choices.picked,
        )
        state = _state(layout, Choices(shape=layout.shape))
        found = ratings.read_table(table, tables, layout, slot=ratings.slot_names(campaign, 99), head=head)
    except InvalidInput as error:
        raise TableChoices(error, _view(spec, header, state, choices), detected) from None
    reads_as = f"a rating table ({ratings.SHAPE_NAMES[layout.shape].format(unit=tables.unit)})"
    return _ratings_prepared(
        campaign, spec, filename, detected, choices, problems, found, reads_as, table.sheets, header, state
    )


def _interchange(
    campaign: Campaign,
    spec: KindSpec,
    raw: bytes,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    problems: Problems | None,
) -> Prepared:
    tables = spec.tables
    assert tables is not None
    found = ratings.read_interchange(raw, detected, tables)
    return _ratings_prepared(campaign, spec, filename, detected, choices, problems, found, f"ratings ({detected.what})")


def _state(layout: ratings.Layout, choices: Choices) -> tuple[str, dict[str, str], list[str]]:
    """The page's layout controls: the guessed layout, overlaid with what the organiser sent."""
    roles = {r: str(i + 1) if i >= 0 else ratings.ROW_NUMBER for r, i in layout.roles.items()}
    roles.update(choices.columns)
    picked = list(choices.picked) if choices.picked is not None else [str(i + 1) for i in layout.picked]
    return choices.shape or layout.shape, roles, picked


def _ratings_prepared(
    campaign: Campaign,
    spec: KindSpec,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    problems: Problems | None,
    found: ratings.Found,
    reads_as: str,
    sheets: tuple[str, ...] = (),
    header: list[str] | None = None,
    state: tuple[str, dict[str, str], list[str]] | None = None,
) -> Prepared:
    tables = spec.tables
    assert tables is not None
    scale = None
    fixed = ratings.has_judgments(campaign)
    try:
        corrected = ratings.corrections(tables, choices.scale)
        scale = ratings.table_scale(campaign, spec, found, corrected, fixed=fixed)
        result = ratings.check(
            campaign,
            spec,
            found,
            scale,
            fixed=fixed,
            map_members=choices.map_members,
            preview_rows=PREVIEW_ROWS,
            problems=problems,
        )
    except InvalidInput as error:
        view = _view(spec, header, state, choices, found=found, scale=scale, fixed=fixed, error=error)
        raise TableChoices(error, view, detected) from None
    view = _view(spec, header, state, choices, found=found, scale=scale, fixed=fixed)
    warnings = [*detected.notices, *found.notices]
    if found.anonymous:
        warnings.append(
            "a table of counts: who gave which label is not in the file, so its labels are kept as the "
            "judgments of anonymous rating slots; the report shows the figures counts give (Fleiss' kappa, "
            "Gwet's AC1 and AC2, percent agreement, Brennan-Prediger, Krippendorff's alpha, each label's) and "
            "none of those that need to know the assessors (per pair, per assessor, Conger's kappa, intraclass correlations)"
        )
    if result.checked.params is not None:
        warnings.append(f"the campaign's scale will be: {scale.text}")

    def decode(text: str) -> Any:
        try:
            return scale.read(text, "")
        except InvalidInput:
            return None

    preview = Preview(
        filename,
        detected,
        reads_as,
        ("where", "rater", "topic", tables.unit, "label"),
        result.rows,
        result.counts,
        tuple(warnings),
        sheets,
        view,
        binary=binary_warning(list(zip(found.values, found.counts)), decode),
    )
    return Prepared(preview, result.checked)


def _view(
    spec: KindSpec,
    header: list[str] | None,
    state: tuple[str, dict[str, str], list[str]] | None,
    choices: Choices,
    *,
    found: ratings.Found | None = None,
    scale: Any = None,
    fixed: bool = False,
    error: InvalidInput | None = None,
) -> TableView:
    tables = spec.tables
    assert tables is not None
    columns: list[ColumnChoice] = []
    picked: list[tuple[str, str, bool]] = []
    shape, shapes, picked_label = "", (), ""
    if header is not None and state is not None:
        shape, roles, chosen = state
        shapes = tuple((value, text, value == shape) for value, text in table_shapes(spec))
        names = [f"{k + 1}: {ratings.column_name(header, k)}" for k in range(len(header))]
        for role in ratings.roles_of(tables, shape if shape in ratings.SHAPE_NAMES else ratings.WIDE):
            required = role in (tables.unit, "rater", "label") or (role == "topic" and tables.topic_required)
            selected = roles.get(role, "")
            options = [] if required else [("", "(none)", selected == "")]
            if role == tables.unit and shape != ratings.LONG:
                options.append((ratings.ROW_NUMBER, "(the row's number)", selected == ratings.ROW_NUMBER))
            options += [(str(k + 1), name, selected == str(k + 1)) for k, name in enumerate(names)]
            columns.append(ColumnChoice(role, ratings.role_label(tables, role), required, tuple(options)))
        if shape in (ratings.WIDE, ratings.COUNTS):
            picked_label = "The raters' columns" if shape == ratings.WIDE else "The categories' columns"
            picked = [(str(k + 1), names[k], str(k + 1) in chosen) for k in range(len(header))]
    form = dict(scale.form) if scale is not None else ratings.raw_scale(choices.scale)
    fields = paramforms.fields(tables.scale_form, prefix="scale", values=form, error=error)
    if fixed:
        fields = [f for f in fields if f.name == "scale.cant_tell"]
    values = tuple(zip(found.values, found.counts)) if found is not None else ()
    raters = tuple(found.raters[:SHOWN_RATERS]) if found is not None else ()
    return TableView(
        shape=shape,
        shapes=shapes,
        columns=tuple(columns),
        picked_label=picked_label,
        picked=tuple(picked),
        scale_text=scale.text if scale is not None else "",
        scale_fields=tuple(fields),
        values=values[:SHOWN_VALUES],
        more_values=max(0, len(values) - SHOWN_VALUES),
        raters=raters,
        more_raters=max(0, len(found.raters) - SHOWN_RATERS) if found is not None else 0,
        anonymous=found.anonymous if found is not None else False,
        fixed=fixed,
    )


@contextmanager
def _rows_named(text: detect.TableText, unit: str) -> Iterator[None]:
    """Errors about line N of the converted CSV name the file's own row (a
    spreadsheet's ``row 12``) or line."""
    try:
        yield
    except (MappingNeeded, NotRaters):
        raise
    except InvalidInput as error:
        named = _row_named(text, unit, error.field)
        if named == error.field:
            raise
        raise InvalidInput(named, error.message) from None


def _row_named(text: detect.TableText, unit: str, where: str) -> str:
    """``line N...`` of the converted CSV as the file's own row (``row 12...``) or line."""
    found = re.match(r"line (\d+)", where)
    if found is None:
        return where
    return f"{unit} {text.source_line(int(found[1]))}{where[found.end() :]}"


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
        (
            ("new topics", len(checked.rows)),
            *((("known answers (controls)", checked.control_count),) if checked.controls else ()),
        ),
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
    problems: Problems | None,
) -> Prepared:
    parsed = read.read_judgment_file(
        campaign,
        raw,
        filename=filename,
        format=format,
        positive=choices.positive or None,
        rank=choices.rank or "overall",
        problems=problems,
    )
    return _judgments_prepared(campaign, parsed, filename, detected, choices, problems)


def _judgments_prepared(
    campaign: Campaign,
    parsed: read.JudgmentFile,
    filename: str,
    detected: detect.Detected,
    choices: Choices,
    problems: Problems | None,
    sheets: tuple[str, ...] = (),
) -> Prepared:
    checked = check.check_judgment_file(campaign, parsed, map_members=choices.map_members, problems=problems)
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
        ("new imported assessors", len(judgments.accounts.new)),
        ("judgments", len(judgments.rows)),
    )
    reads_as = {".json": "judgments (JSON)", ".csv": "crowd labels (a table)"}.get(parsed.format, parsed.format)
    # The raters the import writes under (a rater whose every judgment is skipped is not one).
    raters = list(dict.fromkeys(worker for _, worker, _ in judgments.rows))
    binary = ""
    if crowd is not None and choices.positive:
        positive = choices.positive.strip()
        binary = binary_warning(list(crowd.texts.items()), lambda text: text == positive, crowd.more_texts)
    preview = Preview(
        filename,
        detected,
        reads_as,
        columns,
        rows,
        counts,
        tuple(warnings),
        sheets,
        raters=tuple(raters[:SHOWN_RATERS]),
        more_raters=max(0, len(raters) - SHOWN_RATERS),
        binary=binary,
    )
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
    """``CONCORD_STAGING_DIR``, or ``concord-imports`` in this machine's temporary directory."""
    return Path(settings.CONCORD_STAGING_DIR or Path(tempfile.gettempdir()) / "concord-imports")


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
