"""Sample files for a kind's uploads page, built from the kind's own examples
(``KindSpec.examples``, the data the contract test checks), so that they
cannot go stale: the topic ``t1`` as topics JSON, the two example
submissions as judgments JSON, the example run as runs JSON; for kinds
that read crowd labels back from their payloads (``Kind.labels_of_payload``),
the same judgments as a crowd table in CSV and .xlsx; and the same judgments
in every judgments file the kind both writes (``Exports``, group "judgments")
and reads (``KindSpec.judgment_files``): Label Studio JSON, doccano's zip; for kinds that read
rating tables (``KindSpec.tables``), the same judgments as a table of each shape."""

from __future__ import annotations

import codecs
import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from kinds.spec import KindSpec

#: The example topic's id (kinds.spec.Examples: the examples' runs name it).
TOPIC = "t1"


@dataclass(frozen=True)
class Sample:
    name: str
    label: str
    content_type: str
    content: bytes


def samples(spec: KindSpec) -> list[Sample]:
    """Every sample file of the kind, in the order the uploads page lists them."""
    examples = spec.examples
    found = [
        _json(
            "topics.json", "Topics (JSON)", [{"external_id": TOPIC, "title": "Example topic", "data": examples.topic}]
        ),
        _json(
            "judgments.json",
            "Judgments (JSON)",
            [
                {"assessor": f"assessor-{number}", "topic": TOPIC, "payload": payload}
                for number, payload in enumerate(examples.payloads, 1)
            ],
        ),
    ]
    if examples.run is not None:
        found.append(_json("runs.json", "Runs (JSON)", [{"name": "sysA", "data": examples.run}]))
    found += _interchange(spec)
    rows = _crowd_rows(spec)
    if rows:
        found.append(Sample("crowd.csv", "Crowd labels (CSV)", "text/csv; charset=utf-8", _csv(rows)))
        found.append(
            Sample(
                "crowd.xlsx",
                "Crowd labels (.xlsx)",
                _XLSX,
                _xlsx(rows),
            )
        )
    found += _rating_tables(spec)
    return [Sample(f"{spec.data.name}-{s.name}", s.label, s.content_type, s.content) for s in found]


def sample(spec: KindSpec, name: str) -> Sample | None:
    return next((s for s in samples(spec) if s.name == name), None)


@dataclass(frozen=True)
class _Campaign:
    params: dict[str, Any]


@dataclass(frozen=True)
class _Topic:
    pk: int
    external_id: str
    title: str
    data: dict[str, Any]


@dataclass(frozen=True)
class _Row:
    """What an export writer reads of a judgment (scoring.selectors.JudgmentRow)."""

    topic_id: int
    assessor: str
    payload: dict[str, Any]


#: The export format's label on the uploads page, by the kind's own export names.
_INTERCHANGE_LABELS = {"labelstudio": "Label Studio JSON", "doccano": "doccano, a zip of JSONL"}


def _interchange(spec: KindSpec) -> list[Sample]:
    """The example judgments written by the kind's own exporter, in each format its
    importer reads back (the export's file name ends with a suffix of ``judgment_files``)."""
    examples = spec.examples
    topic = _Topic(1, TOPIC, "Example topic", dict(examples.topic))
    rows = [_Row(1, f"assessor-{n}", dict(p)) for n, p in enumerate(examples.payloads, 1)]
    found = []
    for name, export in spec.exports.formats.items():
        described = spec.exports.describe(name, "")
        suffix = f".{export.extension}"
        if described is None or described.group != "judgments":
            continue
        if not any(suffix.endswith(read) for read in spec.judgment_files):
            continue
        content = spec.exports.write(_Campaign(dict(examples.params)), [topic], rows, format=name, truth="")
        label = f"Judgments ({_INTERCHANGE_LABELS.get(name, name)})"
        found.append(Sample(f"judgments{suffix}", label, export.content_type, _bytes(content)))
    return found


def _bytes(content: str | bytes) -> bytes:
    return content.encode() if isinstance(content, str) else content


def _json(name: str, label: str, value: Any) -> Sample:
    return Sample(name, label, "application/json", json.dumps(value, indent=2, ensure_ascii=False).encode())


def _crowd_rows(spec: KindSpec) -> list[list[str]]:
    """``worker,topic,candidate,label`` rows of the example submissions, or none."""
    rows = []
    for number, payload in enumerate(spec.examples.payloads, 1):
        labels = spec.data.labels_of_payload(payload)
        if labels is None:
            return []
        rows += [[f"worker-{number}", TOPIC, item, _label(label)] for item, label in labels.items()]
    return [["worker", "topic", "candidate", "label"], *rows] if rows else []


_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _rating_tables(spec: KindSpec) -> list[Sample]:
    """The example judgments as a rating table of each shape the kind reads
    (``KindSpec.tables``; docs/formats.md, "Rating tables"): wide (as CSV, as Excel's CSV with
    a byte-order mark, semicolons and CRLF, and as .xlsx), long, and counts per category."""
    tables = spec.tables
    if tables is None:
        return []
    raters = [f"assessor-{n}" for n in range(1, len(spec.examples.payloads) + 1)]
    given = [tables.values(payload) for payload in spec.examples.payloads]
    units = spec.data.items(spec.examples.topic)
    key = ["topic", tables.unit] if tables.topic_required else [tables.unit]

    def place(unit: str) -> list[str]:
        return [TOPIC, unit] if tables.topic_required else [unit]

    wide = [[*key, *raters]] + [[*place(u), *(_cell(values, u) for values in given)] for u in units]
    found = [
        Sample(
            "wide.csv",
            "Rating table, wide (CSV: a row per unit, a column per assessor)",
            "text/csv; charset=utf-8",
            _csv(wide),
        ),
        Sample(
            "wide-excel.csv",
            "Rating table, wide (Excel's CSV: semicolons, BOM)",
            "text/csv; charset=utf-8",
            _excel_csv(wide),
        ),
        Sample("wide.xlsx", "Rating table, wide (.xlsx)", _XLSX, _xlsx(wide)),
    ]
    if "long" in tables.shapes:
        long = [["rater", *key, "label"]] + [
            [rater, *place(u), _label(values[u])] for rater, values in zip(raters, given) for u in units if u in values
        ]
        found.append(
            Sample("long.csv", "Rating table, long (CSV: a row per rating)", "text/csv; charset=utf-8", _csv(long))
        )
    if "counts" in tables.shapes:
        categories: list[str] = []
        for values in given:
            for value in values.values():
                if value is not None and _label(value) not in categories:
                    categories.append(_label(value))
        counts = [[*key, *categories]] + [
            [
                *place(u),
                *(
                    str(sum(1 for values in given if values.get(u) is not None and _label(values[u]) == c))
                    for c in categories
                ),
            ]
            for u in units
        ]
        found.append(
            Sample(
                "counts.csv",
                "Counts per category (CSV: a row per unit, a column per category)",
                "text/csv; charset=utf-8",
                _csv(counts),
            )
        )
    return found


def _cell(values: Any, unit: str) -> str:
    """A wide table's cell: the rater's label of the unit, empty where they gave none."""
    return _label(values[unit]) if unit in values else ""


def _excel_csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=";", lineterminator="\r\n").writerows(rows)
    return codecs.BOM_UTF8 + out.getvalue().encode()


def _label(value: Any) -> str:
    if value is None:
        return "can't tell"  # as the labels kind's files write it, and read it back
    return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def _csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _xlsx(rows: list[list[str]]) -> bytes:
    # Imported here only: openpyxl is slow to import and few requests need it.
    import openpyxl

    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
