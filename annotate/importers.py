"""Parsers for imported files. They only read: every write is a service.

Errors name the line (or JSON field) that is wrong.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from annotate import services
from annotate.labels import CrowdLabel
from annotate.models import Campaign
from concord import jsonsafe
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.base import require_id, require_object

_TRUE = {"1", "true", "yes", "match", "y"}
_FALSE = {"0", "false", "no", "no-match", "nomatch", "n"}


def decode(raw: bytes | str, what: str = "file") -> str:
    """An uploaded file's text (concord.jsonsafe.decode: UTF-8, with or
    without a byte-order mark, or UTF-16/32 with one; no NUL, no lone
    surrogate); what it refuses names the line."""
    try:
        return jsonsafe.decode(raw)
    except jsonsafe.InputError as error:
        line = f"line {error.line}"
        raise InvalidInput(line if what == "file" else f"{what}: {line}", error.message) from None


def read_json(raw: bytes | str, what: str = "file") -> Any:
    """A JSON file, parsed strictly (concord.jsonsafe.loads): errors name
    the path inside the file (``file[0].title``) or its line."""
    return parse_json(decode(raw, what), what)


def parse_json(text: str, where: str) -> Any:
    """JSON text through the one strict parser; InvalidInput naming ``where`` and the path in it."""
    try:
        return jsonsafe.loads(text)
    except jsonsafe.InputError as error:
        raise InvalidInput(jsonsafe.located(where, error.path), error.message) from None


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
    """What a crowd file holds: topics to create, labels, a reference labelling."""

    topics: list[dict[str, Any]] = field(default_factory=list)
    labels: list[CrowdLabel] = field(default_factory=list)
    reference: dict[str, dict[str, bool]] = field(default_factory=dict)


def read_crowd_csv(raw: bytes | str, *, positive: str | None = None) -> CrowdFile:
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
    is refused.
    """
    reader = csv.DictReader(io.StringIO(decode(raw)), restval="")
    try:
        return _read_crowd_rows(reader, positive)
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
    repeated = sorted({c for c in columns if columns.count(c) > 1})
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


def _read_crowd_rows(reader: csv.DictReader, positive: str | None) -> CrowdFile:
    columns = set(reader.fieldnames or [])
    if {"!amt_worker_ids", "orig_id", "response"} <= columns:
        check_columns(reader, CROWDTRUTH_COLUMNS | CROWDTRUTH_SKIPPED)
        return _read_crowdtruth(reader, positive)
    if set(GROUPED_COLUMNS) <= columns:
        check_columns(reader, GROUPED_COLUMNS)
        return _read_generic(reader, positive, grouped=True)
    if set(ITEM_COLUMNS) <= columns:
        check_columns(reader, ITEM_COLUMNS)
        return _read_generic(reader, positive, grouped=False)
    raise InvalidInput(
        "file",
        "unknown columns; expected CrowdTruth (!amt_worker_ids, orig_id, response), "
        "worker,topic,candidate,label or worker,item,label",
    )


def _label(value: str, positive: str | None, line: int) -> bool:
    value = value.strip()
    if positive is not None:
        return value == positive
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise InvalidInput(f"line {line}: label", f"{value!r} is not a match label; say which value means a match")


def _text(value: str | None) -> str:
    return html.unescape(value or "").strip()


def _read_crowdtruth(reader: csv.DictReader, positive: str | None) -> CrowdFile:
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
            if (row.get("gold") or "").strip():
                result.reference[item] = {"item": _label(row["gold"], positive, line)}
        result.labels.append(CrowdLabel(worker, item, "item", _label(row["response"] or "", positive, line), line))
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


def _read_generic(reader: csv.DictReader, positive: str | None, *, grouped: bool) -> CrowdFile:
    result = CrowdFile()
    for line, row in csv_rows(reader):
        worker = (row["worker"] or "").strip()
        topic = ((row["topic"] if grouped else row["item"]) or "").strip()
        candidate = ((row["candidate"] if grouped else "item") or "").strip()
        if not worker or not topic or not candidate:
            raise InvalidInput(f"line {line}", "worker, topic/item and candidate must not be empty")
        require_id(topic, f"line {line}: {'topic' if grouped else 'item'}")
        result.labels.append(CrowdLabel(worker, topic, candidate, _label(row["label"] or "", positive, line), line))
    return result


def read_runs(raw: bytes | str, *, filename: str = "") -> list[dict[str, Any]]:
    """Runs as JSON (``[{"name", "data"}]``) or CSV: for orderings the header
    ``topic,run,order`` (``order``: item ids separated by spaces), for
    clusterings ``topic,run,sentence,cluster`` (an empty cluster: left out)."""
    text = decode(raw)
    if filename.endswith(".csv") or text.lstrip().startswith("topic,"):
        header = text.lstrip().split("\n", 1)[0]
        try:
            return read_clustering_runs_csv(text) if "sentence" in header else _read_ordering_runs_csv(text)
        except csv.Error as error:  # in the header line (csv_rows names the line of a bad row)
            raise InvalidInput("line 1", f"not CSV: {error}") from None
    data = read_json(text)
    if isinstance(data, dict):
        data = require_object(data, "file", allowed={"runs"}, required={"runs"})["runs"]
    if not isinstance(data, list):
        raise InvalidInput("file", 'expected a JSON list of runs or {"runs": [...]}')
    return data


def _read_ordering_runs_csv(text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    if not {"topic", "run", "order"} <= set(reader.fieldnames or []):
        raise InvalidInput("file", "expected the CSV header topic,run,order")
    check_columns(reader, ("topic", "run", "order"))
    runs: dict[str, dict[str, list[str]]] = {}
    for line, row in csv_rows(reader):
        run, topic = (row["run"] or "").strip(), (row["topic"] or "").strip()
        if not run or not topic:
            raise InvalidInput(f"line {line}", "topic and run must not be empty")
        if topic in runs.setdefault(run, {}):
            raise InvalidInput(f"line {line}", f"run {run!r} orders topic {topic!r} twice")
        runs[run][topic] = (row["order"] or "").split()
    return [{"name": name, "data": {"orderings": orderings}} for name, orderings in runs.items()]


def read_judgments_json(raw: bytes | str) -> list[dict[str, Any]]:
    """Judgments as JSON: ``[{"assessor", "topic", "payload"}]`` (all submitted)."""
    data = read_json(raw)
    if isinstance(data, dict):
        data = require_object(data, "file", allowed={"judgments"}, required={"judgments"})["judgments"]
    if not isinstance(data, list):
        raise InvalidInput("file", 'expected a JSON list of judgments or {"judgments": [...]}')
    return data


SQUALITY_RANKS = ("overall", "correctness", "selection")


def read_squality(raw: bytes | str, *, rank: str = "overall") -> CrowdFile:
    """SQuALITY human evaluation (``all-responses.jsonl``): for each question,
    each reviewer's rank of the answers becomes an ordering (best first).

    A topic per question (``<passage-id>-q<n>``) with the answers as items
    (ids: the system names); reviewers become assessors ``reviewer-<id>``.
    """
    if rank not in SQUALITY_RANKS:
        raise InvalidInput("rank", f"expected one of {', '.join(SQUALITY_RANKS)}")
    result = CrowdFile()
    for line, text in enumerate(decode(raw).splitlines(), start=1):
        if not text.strip():
            continue
        passage = parse_json(text, f"line {line}")
        try:
            questions = passage["questions"]
            passage_id = str(passage["passage-id"])
        except (KeyError, TypeError) as error:
            raise InvalidInput(f"line {line}", f"not a SQuALITY passage ({error})") from None
        if not isinstance(questions, dict):
            raise InvalidInput(f"line {line}", "questions: expected an object of question -> answers")
        for number, answers in questions.items():
            if not isinstance(answers, dict) or not all(
                isinstance(a, dict) and isinstance(a.get("response"), str) and isinstance(a.get("reviews"), list)
                for a in answers.values()
            ):
                raise InvalidInput(f"line {line}", f"question {number}: expected answers with a response and reviews")
            topic = f"{passage_id}-q{number}"
            result.topics.append(
                {
                    "external_id": topic,
                    "title": f"Passage {passage_id}, question {number}",
                    "data": {"items": [{"id": system, "text": a["response"]} for system, a in answers.items()]},
                }
            )
            for system, answer in answers.items():
                for review in answer["reviews"]:
                    if not isinstance(review, dict) or "worker_id" not in review or f"{rank}-rank" not in review:
                        raise InvalidInput(
                            f"line {line}", f"question {number}: a review without worker_id or {rank}-rank"
                        )
                    worker = f"reviewer-{review['worker_id']}"
                    result.labels.append(CrowdLabel(worker, topic, system, review[f"{rank}-rank"], line))
    if not result.labels:
        raise InvalidInput("file", "no rows: no passage with reviews")
    return result


def import_judgment_file(
    campaign: Campaign,
    raw: bytes,
    *,
    filename: str,
    positive: str | None = None,
    rank: str = "overall",
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    map_members: bool = False,
) -> services.ImportSummary:
    """Parse a judgments file by its name (``.json``: judgments; ``.jsonl``:
    SQuALITY; anything else: a crowd CSV) and import it, all or nothing.
    ``map_members``: names of this campaign's assessors are theirs
    (services.clean_workers); otherwise a name that is an account is refused."""
    if filename.endswith(".json"):
        entries = read_judgments_json(raw)
        if on_total:
            on_total(len(entries) if isinstance(entries, list) else 0)
        return services.import_judgments(campaign=campaign, entries=entries, progress=progress, map_members=map_members)
    crowd = read_squality(raw, rank=rank) if filename.endswith(".jsonl") else read_crowd_csv(raw, positive=positive)
    if on_total:
        on_total(len({(label.worker, label.topic) for label in crowd.labels}))
    return services.import_crowd_file(
        campaign=campaign,
        topics=crowd.topics,
        labels=crowd.labels,
        reference=crowd.reference,
        progress=progress,
        map_members=map_members,
    )


def read_aiphes_topic(
    nuggets: bytes | str, *, topic: str, title: str = "", documents: bytes | str | None = None
) -> dict[str, Any]:
    """An AIPHES hierarchical-summarisation topic as a clustering topic.

    ``nuggets`` is ``Trees/Input/Topic_<id>_*.txt`` (nugget id TAB text TAB
    context...). With ``documents`` (``SourceDocuments/HierarchicalSum_<id>.xml``)
    each nugget is placed in the first source document whose text contains
    it; otherwise, and for nuggets found nowhere, in a document ``unknown``.
    """
    sources = _aiphes_documents(documents) if documents is not None else {}
    sentences = []
    for line, text in enumerate(decode(nuggets).splitlines(), start=1):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) < 2 or whole_number(fields[0].strip()) is None:
            raise InvalidInput(f"line {line}", "expected: nugget id (digits 0-9) TAB nugget text")
        nugget, content = fields[0].strip(), fields[1].strip()
        wanted = " ".join(content.lower().split())
        home = next((doc for doc, body in sources.items() if wanted and wanted in body), "unknown")
        sentences.append(
            {"id": nugget, "document": home, "position": whole_number(nugget), "text": content or f"Nugget {nugget}"}
        )
    used = list(dict.fromkeys(s["document"] for s in sentences))
    return {
        "external_id": topic,
        "title": title or f"Topic {topic}",
        "data": {"documents": [{"id": doc} for doc in used], "sentences": sentences},
    }


def _aiphes_documents(raw: bytes | str) -> dict[str, str]:
    from xml.etree import ElementTree

    try:
        root = ElementTree.fromstring(decode(raw))
    except ElementTree.ParseError as error:
        raise InvalidInput("documents", f"not XML: {error}") from None
    documents = {}
    for index, document in enumerate(root.iter("document")):
        name = document.get("clueWebID") or f"doc{index + 1}"
        body = " ".join(" ".join((c.text or "").split()) for c in document.iter("content"))
        documents[name.replace("/", "-")] = body.lower()
    return documents


def read_aiphes_tree(raw: bytes | str, *, depth: int = 1) -> list[list[str]]:
    """One annotator's tree as clusters: every bubble at ``depth`` (top-level
    bubbles are depth 1) with all nuggets below it forms a cluster; nuggets in
    shallower bubbles form a cluster per bubble; nuggets outside any bubble
    are left out (irrelevant)."""
    from xml.etree import ElementTree

    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidInput("depth", "expected a whole number >= 1")
    try:
        root = ElementTree.fromstring(decode(raw))
    except ElementTree.ParseError as error:
        raise InvalidInput("file", f"not XML: {error}") from None
    clusters: dict[int, list[str]] = {}

    def walk(element, level: int, owner: int | None) -> None:
        for child in element:
            if child.tag == "Nugget" and owner is not None:
                clusters.setdefault(owner, []).append(child.get("id"))
            elif child.tag == "Bubble":
                walk(child, level + 1, owner if level + 1 > depth else id(child))

    walk(root, 0, None)
    return [members for members in clusters.values() if members]


def read_clustering_runs_csv(text: str) -> list[dict[str, Any]]:
    """CSV ``topic,run,sentence,cluster`` -> runs of clusterings (cluster labels are any strings)."""
    reader = csv.DictReader(io.StringIO(text))
    columns = ("topic", "run", "sentence", "cluster")
    check_columns(reader, columns, required=columns)
    runs: dict[str, dict[str, dict[str, list[str]]]] = {}
    for line, row in csv_rows(reader):
        run, topic, sentence, cluster = ((row.get(k) or "").strip() for k in ("run", "topic", "sentence", "cluster"))
        if not run or not topic or not sentence:
            raise InvalidInput(f"line {line}", "topic, run and sentence must not be empty")
        if cluster:
            runs.setdefault(run, {}).setdefault(topic, {}).setdefault(cluster, []).append(sentence)
    return [
        {"name": name, "data": {"clusterings": {t: list(clusters.values()) for t, clusters in topics.items()}}}
        for name, topics in runs.items()
    ]


def _tab_rows(raw: bytes | str, columns: int, what: str):
    """Non-empty, non-comment lines split on tabs into ``columns`` fields (the last takes the rest)."""
    for line, text in enumerate(decode(raw, what).splitlines(), start=1):
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.rstrip("\n").split("\t", columns - 1)
        if len(fields) < columns or not all(f.strip() for f in fields[: columns - 1]):
            raise InvalidInput(f"{what}: line {line}", f"expected {columns} tab-separated fields")
        yield line, [f.strip() for f in fields]


def read_nugget_topics(questions: bytes | str, key: bytes | str) -> list[dict[str, Any]]:
    """Questions (``topic TAB target``) and their answer key, TREC style
    (``topic TAB nugget id TAB vital|okay TAB text``; the label may be ``-``
    when there is no original one), as nuggets topics."""
    targets: dict[str, str] = {}
    for line, (topic, target) in _tab_rows(questions, 2, "questions"):
        if topic in targets:
            raise InvalidInput(f"questions: line {line}", f"question {topic!r} twice")
        targets[topic] = target
    nuggets: dict[str, list[dict[str, str]]] = {t: [] for t in targets}
    for line, (topic, nugget, label, text) in _tab_rows(key, 4, "key"):
        if topic not in targets:
            raise InvalidInput(f"key: line {line}", f"unknown question {topic!r}")
        entry = {"id": nugget, "text": text}
        if label not in ("-", "none"):
            entry["label"] = label
        nuggets[topic].append(entry)
    return [
        {"external_id": t, "title": f"What is {target}?", "data": {"target": target, "nuggets": nuggets[t]}}
        for t, target in targets.items()
    ]


def read_nugget_runs(responses: bytes | str, matches: bytes | str | None = None) -> list[dict[str, Any]]:
    """Runs from responses (``run TAB topic TAB text``; several lines of one
    run and topic are one response) and, optionally, nugget matches
    (``run TAB topic TAB nugget id``, one line per nugget found)."""
    texts: dict[str, dict[str, list[str]]] = {}
    for _, (run, topic, text) in _tab_rows(responses, 3, "responses"):
        texts.setdefault(run, {}).setdefault(topic, []).append(text)
    found: dict[str, dict[str, list[str]]] = {}
    if matches is not None:
        for line, (run, topic, nugget) in _tab_rows(matches, 3, "matches"):
            if topic not in texts.get(run, {}):
                raise InvalidInput(f"matches: line {line}", f"run {run!r} has no response to {topic!r}")
            found.setdefault(run, {}).setdefault(topic, []).append(nugget)
    return [
        {
            "name": run,
            "data": {
                "responses": {
                    topic: {
                        "text": "\n".join(parts),
                        **({"matches": found.get(run, {}).get(topic, [])} if matches is not None else {}),
                    }
                    for topic, parts in topics.items()
                }
            },
        }
        for run, topics in texts.items()
    ]
