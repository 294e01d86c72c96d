"""Parsers for imported files. They only read: every write is a service.

Every file is read through concord.reading (within the upload limit; text
decoded line by line as it is read). Errors name the line (or JSON field)
that is wrong.
"""

from __future__ import annotations

import csv
import html
import inspect
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from annotate.imports import problems as refused
from annotate.imports.problems import Problems
from annotate.models import Campaign
from concord import jsonsafe, reading
from concord.errors import InvalidInput
from kinds.base import require_id, require_object
from kinds.registry import get_kind
from kinds.spec import KindSpec

_TRUE = {"1", "true", "yes", "match", "y"}
_FALSE = {"0", "false", "no", "no-match", "nomatch", "n"}
#: The labels a crowd table's match / no match is read from (any case), unless told which value means a match.
MATCH_WORDS, NO_MATCH_WORDS = frozenset(_TRUE), frozenset(_FALSE)


def decode(raw: bytes | str, what: str = "file") -> str:
    """An uploaded file's whole text, within the upload limit (concord.jsonsafe.decode:
    UTF-8, with or without a byte-order mark, or UTF-16/32 with one; no NUL, no lone
    surrogate); what it refuses names the line. Line by line: concord.reading.numbered."""
    reading.require_size(raw, what)
    try:
        return jsonsafe.decode(raw)
    except jsonsafe.InputError as error:
        line = f"line {error.line}"
        raise InvalidInput(line if what == "file" else f"{what}: {line}", error.message) from None


read_json = reading.read_json
parse_json = reading.parse_json


@dataclass(frozen=True)
class CrowdLabel:
    """One imported label: ``worker`` judged ``candidate`` of ``topic`` (file line ``line``)."""

    worker: str
    topic: str
    candidate: str
    label: Any
    line: int


def read_topics(raw: bytes | str) -> list[Any]:
    """A JSON list of topics, or ``{"topics": [...]}``."""
    data = read_json(raw)
    if isinstance(data, dict):
        data = require_object(data, "file", allowed={"topics"}, required={"topics"})["topics"]
    if not isinstance(data, list):
        raise InvalidInput("file", 'expected a JSON list of topics or {"topics": [...]}')
    return data


@dataclass
class CrowdFile:
    """What a crowd file holds: topics to create, labels, a reference labelling;
    or, from formats that hold whole judgments (Label Studio, doccano), judgments
    ``{"assessor", "topic", "payload"}`` and where each is in the file (``sources``)."""

    topics: list[dict[str, Any]] = field(default_factory=list)
    labels: list[CrowdLabel] = field(default_factory=list)
    reference: dict[str, dict[str, bool]] = field(default_factory=dict)
    judgments: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    #: A ``worker,item,label`` file's items, in order: each its own topic, created
    #: by the campaign's kind (``Kind.topic_for_item``) where the campaign lacks it.
    items: list[str] = field(default_factory=list)
    #: A crowd table's distinct labels as written (the first ``LABEL_TEXTS``), with how often;
    #: ``more_texts``: it has others.
    texts: dict[str, int] = field(default_factory=dict)
    more_texts: bool = False

    def count_text(self, value: str) -> None:
        value = value.strip()
        if value in self.texts:
            self.texts[value] += 1
        elif len(self.texts) < LABEL_TEXTS:
            self.texts[value] = 1
        else:
            self.more_texts = True


#: Distinct labels a crowd table's reading keeps with their counts (what the preview says of them).
LABEL_TEXTS = 1000


def read_crowd_csv(
    raw: bytes | str, *, positive: str | None = None, delimiter: str = ",", problems: Problems | None = None
) -> CrowdFile:
    """Read (worker, item, label) rows.

    Accepted headers:

    - CrowdTruth (e.g. Snow et al. 2008): ``!amt_worker_ids, orig_id, response,
      gold`` plus the item's text (``text`` and ``hypothesis``, or ``event1``
      and ``event2``). Each ``orig_id`` becomes a topic with one candidate.
    - ``worker, topic, candidate, label``: items grouped into topics.
    - ``worker, item, label``: each item its own topic with one candidate.

    Labels are 1/0, true/false, yes/no or match/no-match; any other pair of
    values needs ``positive``, the value that means a match. Any other column,
    a column named twice, a row longer than the header or a file without rows
    is refused; so is a label that is not a match label, unless ``problems``
    gathers it (the row is left out).
    """
    reader = csv.DictReader(reading.Lines(raw), restval="", delimiter=delimiter)
    try:
        return _read_crowd_rows(reader, positive, problems)
    except csv.Error as error:
        # The reader counts the line it failed on only once it has read it.
        raise InvalidInput(f"line {reader.line_num + 1}", f"not CSV: {error}") from None


#: CrowdTruth columns Concord reads, and those it knowingly skips (Snow et al.'s
#: annotation ids, the task's start and end times, the task name).
CROWDTRUTH_COLUMNS = {"!amt_worker_ids", "orig_id", "response", "gold", "text", "hypothesis", "event1", "event2"}
CROWDTRUTH_SKIPPED = {"!amt_annotation_ids", "start", "end", "task"}
GROUPED_COLUMNS = ("worker", "topic", "candidate", "label")
ITEM_COLUMNS = ("worker", "item", "label")


def check_columns(reader: csv.DictReader, allowed: Iterable[str], required: Iterable[str] = ()) -> None:
    """The header names only ``allowed`` columns, each once, and all of ``required``."""
    columns = list(reader.fieldnames or [])
    allowed = set(allowed)
    repeated = sorted(c for c, count in Counter(columns).items() if count > 1)
    if repeated:
        raise InvalidInput("file", f"column {repeated[0]!r} appears twice in the header")
    unknown = [c for c in columns if c not in allowed]
    if unknown:
        raise InvalidInput(
            "file", f"unknown column(s) {', '.join(map(repr, unknown))} (known: {', '.join(sorted(allowed))})"
        )
    missing = [c for c in required if c not in columns]
    if missing:
        raise InvalidInput("file", f"expected the CSV header {','.join(required)} (missing: {', '.join(missing)})")


def csv_rows(reader: csv.DictReader) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row) for every row; a row longer than the header is refused,
    and so is a file without rows (once the rows are read)."""
    width = len(reader.fieldnames or [])
    seen = False
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as error:
            # The reader counts the line it failed on only once it has read it.
            raise InvalidInput(f"line {reader.line_num + 1}", f"not CSV: {error}") from None
        if None in row:  # csv.DictReader keeps the fields beyond the header under None
            raise InvalidInput(f"line {reader.line_num}", f"{width + len(row[None])} fields, the header has {width}")
        seen = True
        yield reader.line_num, row
    if not seen:
        raise InvalidInput("file", "no rows: the file has a header and nothing else")


def _read_crowd_rows(reader: csv.DictReader, positive: str | None, problems: Problems | None) -> CrowdFile:
    columns = set(reader.fieldnames or [])
    if {"!amt_worker_ids", "orig_id", "response"} <= columns:
        check_columns(reader, CROWDTRUTH_COLUMNS | CROWDTRUTH_SKIPPED)
        return _read_crowdtruth(reader, positive, problems)
    if set(GROUPED_COLUMNS) <= columns:
        check_columns(reader, GROUPED_COLUMNS)
        return _read_generic(reader, positive, problems, grouped=True)
    if set(ITEM_COLUMNS) <= columns:
        check_columns(reader, ITEM_COLUMNS)
        return _read_generic(reader, positive, problems, grouped=False)
    raise InvalidInput("file", missing_columns(list(reader.fieldnames or [])))


#: The column sets of a crowd table, the nearest first when they tie.
CROWD_SCHEMAS = (ITEM_COLUMNS, GROUPED_COLUMNS, ("!amt_worker_ids", "orig_id", "response"))


def crowd_schema(columns: Iterable[str]) -> tuple[str, ...] | None:
    """The crowd table ``columns`` make (CROWD_SCHEMAS), or None."""
    found = set(columns)
    return next((schema for schema in reversed(CROWD_SCHEMAS) if set(schema) <= found), None)


def nearest_schema(columns: Iterable[str]) -> tuple[str, ...]:
    """The crowd table ``columns`` come nearest to (most columns in common)."""
    found = set(columns)
    return max(CROWD_SCHEMAS, key=lambda schema: len(found & set(schema)))


def missing_columns(columns: list[str]) -> str:
    """``missing column `label` (found: worker, item, answer)``: what the nearest crowd table lacks."""
    schema = nearest_schema(columns)
    missing = [c for c in schema if c not in columns]
    found = ", ".join(columns) if any(columns) else "no header"
    return (
        f"missing column{'s' if len(missing) > 1 else ''} {', '.join(f'`{c}`' for c in missing)} (found: {found}); "
        "a crowd table has worker,item,label, worker,topic,candidate,label or CrowdTruth's "
        "!amt_worker_ids,orig_id,response"
    )


def _label(value: str, positive: str | None, line: int, problems: Problems | None = None) -> bool | None:
    """A label read as match or no match; None: not a match label, gathered in ``problems``
    (else refused)."""
    value = value.strip()
    if positive is not None:
        return value == positive
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    refused.refuse(
        problems, refused.LABEL, f"line {line}: label", f"{value!r} is not a match label; say which value means a match"
    )
    return None


def _text(value: str | None) -> str:
    return html.unescape(value or "").strip()


def _read_crowdtruth(reader: csv.DictReader, positive: str | None, problems: Problems | None) -> CrowdFile:
    result = CrowdFile()
    seen: set[str] = set()
    for line, row in csv_rows(reader):
        item = (row["orig_id"] or "").strip()
        worker = (row["!amt_worker_ids"] or "").strip()
        if not item or not worker:
            raise InvalidInput(f"line {line}", "orig_id and !amt_worker_ids must not be empty")
        require_id(item, f"line {line}: orig_id")  # it becomes a topic's id
        if item not in seen:
            seen.add(item)
            result.topics.append(_crowdtruth_topic(row, item))
            gold = _label(row["gold"], positive, line, problems) if (row.get("gold") or "").strip() else None
            if gold is not None:
                result.reference[item] = {"item": gold}
        result.count_text(row["response"] or "")
        label = _label(row["response"] or "", positive, line, problems)
        if label is not None:
            result.labels.append(CrowdLabel(worker, item, "item", label, line))
    return result


def _crowdtruth_topic(row: dict[str, str], item: str) -> dict[str, Any]:
    text = _text(row.get("text"))
    if row.get("hypothesis") is not None:
        candidate = _text(row.get("hypothesis"))
    else:
        candidate = " / ".join(filter(None, (_text(row.get("event1")), _text(row.get("event2")))))
    return {
        "external_id": item,
        "title": f"Item {item}",
        "data": {"query": text or f"Item {item}", "candidates": [{"id": "item", "text": candidate or f"Item {item}"}]},
    }


def _read_generic(
    reader: csv.DictReader, positive: str | None, problems: Problems | None, *, grouped: bool
) -> CrowdFile:
    result = CrowdFile()
    seen: set[str] = set()
    for line, row in csv_rows(reader):
        worker = (row["worker"] or "").strip()
        topic = ((row["topic"] if grouped else row["item"]) or "").strip()
        candidate = ((row["candidate"] if grouped else "item") or "").strip()
        if not worker or not topic or not candidate:
            raise InvalidInput(f"line {line}", "worker, topic/item and candidate must not be empty")
        require_id(topic, f"line {line}: {'topic' if grouped else 'item'}")
        if not grouped and topic not in seen:
            seen.add(topic)
            result.items.append(topic)
        result.count_text(row["label"] or "")
        label = _label(row["label"] or "", positive, line, problems)
        if label is not None:
            result.labels.append(CrowdLabel(worker, topic, candidate, label, line))
    return result


def read_runs(raw: bytes | str, *, kind: KindSpec, filename: str = "") -> list[dict[str, Any]]:
    """Runs as JSON (``[{"name", "data"}]``) or, for kinds that read them
    (``KindSpec.runs_csv``), as CSV (a ``.csv`` file, or text starting ``topic,``)."""
    first = next((text for _, text in reading.numbered(raw) if text.strip()), "")
    if filename.endswith(".csv") or first.lstrip().startswith("topic,"):
        if kind.runs_csv is None:
            raise InvalidInput("file", f"{kind.label} runs come as JSON, not CSV")
        try:
            return kind.runs_csv(reading.Lines(raw))
        except csv.Error as error:  # in the header line (csv_rows names the line of a bad row)
            raise InvalidInput("line 1", f"not CSV: {error}") from None
    data = read_json(raw)
    if isinstance(data, dict):
        data = require_object(data, "file", allowed={"runs"}, required={"runs"})["runs"]
    if not isinstance(data, list):
        raise InvalidInput("file", 'expected a JSON list of runs or {"runs": [...]}')
    return data


def read_judgments_json(raw: bytes | str) -> list[dict[str, Any]]:
    """Judgments as JSON: ``[{"assessor", "topic", "payload"}]`` (all submitted)."""
    data = read_json(raw)
    if isinstance(data, dict):
        data = require_object(data, "file", allowed={"judgments"}, required={"judgments"})["judgments"]
    if not isinstance(data, list):
        raise InvalidInput("file", 'expected a JSON list of judgments or {"judgments": [...]}')
    return data


#: Generic judgment formats, chosen by ``format`` or the file's suffix.
GENERIC_FORMATS = {".json": "JSON judgments", ".csv": "crowd CSV"}


def judgment_formats(kind: KindSpec) -> list[str]:
    """The ``format`` values a campaign of ``kind`` takes: the kind's suffixes, ``.json`` and ``.csv``."""
    return [*kind.judgment_files, *GENERIC_FORMATS]


def takes_rank(reader: Callable[..., Any]) -> bool:
    """The kind's reader reads one of several ranks (its ``rank`` keyword, e.g. SQuALITY's)."""
    return "rank" in inspect.signature(reader).parameters


def pick_format(kind: KindSpec, filename: str, format: str | None) -> str:
    """Which reader reads a judgments file: ``format`` when given (one of
    :func:`judgment_formats`), else the longest of the kind's suffixes
    (``KindSpec.judgment_files``, e.g. ``.labelstudio.json``, SQuALITY's ``.jsonl``)
    the file's name ends with, else ``.json`` for a ``.json`` file, else ``.csv``."""
    if format:
        known = judgment_formats(kind)
        if format not in known:
            raise InvalidInput("format", f"unknown format {format!r} (known: {', '.join(known)})")
        return format
    for suffix in sorted(kind.judgment_files, key=len, reverse=True):
        if filename.endswith(suffix):
            return suffix
    return ".json" if filename.endswith(".json") else ".csv"


@dataclass(frozen=True)
class JudgmentFile:
    """A judgments file as read (nothing checked against the campaign yet): JSON
    judgments ``entries``, or a crowd file (``crowd``) of the reader ``format``."""

    format: str
    entries: list[Any] | None = None
    crowd: CrowdFile | None = None

    @property
    def count(self) -> int:
        """Judgments it makes: entries, or (worker, topic) pairs and whole judgments."""
        if self.entries is not None:
            return len(self.entries)
        assert self.crowd is not None
        return len({(label.worker, label.topic) for label in self.crowd.labels}) + len(self.crowd.judgments)


def read_judgment_file(
    campaign: Campaign,
    raw: bytes,
    *,
    filename: str,
    format: str | None = None,
    positive: str | None = None,
    rank: str = "overall",
    delimiter: str = ",",
    problems: Problems | None = None,
) -> JudgmentFile:
    """Parse a judgments file with the reader :func:`pick_format` chooses (``.json``:
    judgments; a format of the campaign's kind (``KindSpec.judgment_files``, e.g.
    Label Studio's ``.labelstudio.json``, SQuALITY's ``.jsonl``); ``.csv``: a crowd
    CSV, whose items become topics where the kind makes them, ``Kind.topic_for_item``;
    ``problems`` gathers its labels that are not match labels)."""
    kind = get_kind(campaign.kind)
    chosen = pick_format(kind, filename, format)
    if chosen == ".json":
        return JudgmentFile(chosen, entries=read_judgments_json(raw))
    if chosen == ".csv":
        crowd = read_crowd_csv(raw, positive=positive, delimiter=delimiter, problems=problems)
        _topics_for_items(campaign, kind, crowd)
        return JudgmentFile(chosen, crowd=crowd)
    reader = kind.judgment_files[chosen]
    return JudgmentFile(
        chosen, crowd=reader(raw, params=campaign.params, **({"rank": rank} if takes_rank(reader) else {}))
    )


def _topics_for_items(campaign: Campaign, kind: KindSpec, crowd: CrowdFile) -> None:
    """A ``worker,item,label`` file's items the campaign lacks become topics, where the kind makes them."""
    if not crowd.items:
        return
    known = set(campaign.topics.filter(external_id__in=crowd.items).values_list("external_id", flat=True))
    for item in crowd.items:
        if item not in known and (topic := kind.data.topic_for_item(item)) is not None:
            crowd.topics.append(topic)
