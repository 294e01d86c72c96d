"""Label Studio JSON and doccano JSONL, the part every kind shares: reading
and writing the files' envelopes (tasks and annotations by several annotators;
one JSONL file per annotator in a zip). Each kind's ``interchange.py`` maps its
topics and payloads onto them (docs/formats.md, "Label Studio and doccano").

Label Studio (https://labelstud.io/guide/task_format): a JSON list of tasks
``{"id", "data", "annotations": [{"completed_by", "result": [{"type",
"from_name", "to_name", "value"}], "was_cancelled"}]}``. doccano
(``backend/data_export/celery_tasks.py``: a project whose annotations are not
shared exports a zip with one ``<username>.jsonl`` per member): each line
``{"id", "text", "label": [...], <metadata>}``.

Readers only read (errors name the task, annotation or line); writers return
the file's text (Label Studio) or bytes (doccano's zip).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from annotate.imports.read import CrowdFile
from concord import reading
from concord.errors import InvalidInput
from kinds.base import require_id, type_name
from kinds.spec import ExportFile


@dataclass(frozen=True)
class Annotation:
    """One annotator's annotation of a Label Studio task (cancelled ones are skipped)."""

    where: str  # "file[3].annotations[1]"
    worker: str
    result: list[dict[str, Any]]


@dataclass(frozen=True)
class Task:
    where: str  # "file[3]"
    data: dict[str, Any]
    annotations: list[Annotation]
    #: The task's own ``id`` (Label Studio numbers its tasks), None if it has none.
    id: Any = None


def _worker(completed_by: Any, where: str) -> str:
    """``completed_by``: Label Studio's user id (a number; the worker is
    ``labelstudio-<id>``) or a user object, whose ``email`` names the worker
    (Concord writes the assessor's name there)."""
    if isinstance(completed_by, int) and not isinstance(completed_by, bool):
        return f"labelstudio-{completed_by}"
    if isinstance(completed_by, dict):
        email = completed_by.get("email")
        if isinstance(email, str) and email:
            return email
        number = completed_by.get("id")
        if isinstance(number, int) and not isinstance(number, bool):
            return f"labelstudio-{number}"
    raise InvalidInput(where, f"expected a user id or a user object with an email or id, got {type_name(completed_by)}")


def read_labelstudio(raw: bytes | str) -> list[Task]:
    """The tasks of a Label Studio JSON export, with their submitted annotations."""
    data = reading.read_json(raw)
    if not isinstance(data, list) or not data:
        raise InvalidInput("file", "expected a Label Studio JSON export: a list of tasks with data and annotations")
    tasks = []
    for index, task in enumerate(data):
        where = f"file[{index}]"
        if not isinstance(task, dict):
            raise InvalidInput(where, f"expected a task (an object), got {type_name(task)}")
        if not isinstance(task.get("data"), dict):
            raise InvalidInput(f"{where}.data", "expected an object (the task's data)")
        annotations = task.get("annotations", [])
        if not isinstance(annotations, list):
            raise InvalidInput(f"{where}.annotations", f"expected a list, got {type_name(annotations)}")
        kept = []
        for number, annotation in enumerate(annotations):
            path = f"{where}.annotations[{number}]"
            if not isinstance(annotation, dict):
                raise InvalidInput(path, f"expected an annotation (an object), got {type_name(annotation)}")
            if annotation.get("was_cancelled") is True:
                continue  # skipped by its annotator: no judgment
            if "completed_by" not in annotation:
                raise InvalidInput(f"{path}.completed_by", "this field is required (who annotated)")
            result = annotation.get("result")
            if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
                raise InvalidInput(f"{path}.result", "expected a list of results (objects)")
            kept.append(Annotation(path, _worker(annotation["completed_by"], f"{path}.completed_by"), result))
        tasks.append(Task(where, task["data"], kept, task.get("id")))
    return tasks


def _string(value: Any, field: str, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a string, got {type_name(value)}")
    return value


def task_text(task: Task, key: str, *, required: bool = True) -> str | None:
    """A string of the task's data (``data.<key>``)."""
    return _string(task.data.get(key), f"{task.where}.data.{key}", required)


def task_id(task: Task, key: str) -> str:
    """An id of the task's data (a topic, candidate or document id)."""
    return require_id(task.data.get(key), f"{task.where}.data.{key}")


def _one_result(annotation: Annotation, kind: str) -> tuple[str, Any]:
    found = [(i, r) for i, r in enumerate(annotation.result) if r.get("type") == kind]
    if len(found) != 1:
        raise InvalidInput(f"{annotation.where}.result", f"expected one result of type {kind!r}, found {len(found)}")
    index, result = found[0]
    value = result.get("value")
    where = f"{annotation.where}.result[{index}].value"
    if not isinstance(value, dict) or kind not in value:
        raise InvalidInput(where, f"expected an object with {kind!r}")
    return f"{where}.{kind}", value[kind]


def choice(annotation: Annotation) -> tuple[str, str]:
    """The one choice of the annotation's ``choices`` result, and where it is."""
    where, choices = _one_result(annotation, "choices")
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], str):
        raise InvalidInput(where, "expected a list of exactly one choice (a string)")
    return where, choices[0]


def ranking(annotation: Annotation) -> tuple[str, list[str]]:
    """The item ids of the annotation's ``ranker`` result, best first: ``{"ranker":
    [ids]}`` (a List with a Ranker), or one bucket ``{"ranker": {name: [ids]}}``."""
    where, ranked = _one_result(annotation, "ranker")
    if isinstance(ranked, dict):
        if len(ranked) != 1:
            raise InvalidInput(where, f"expected one bucket holding every item, found {len(ranked)} buckets")
        ((bucket, ranked),) = ranked.items()
        where = f"{where}.{bucket}"
    if not isinstance(ranked, list) or not all(isinstance(i, str) for i in ranked):
        raise InvalidInput(where, "expected a list of item ids, best first")
    return where, ranked


def choices_result(choice_value: str, *, from_name: str, to_name: str) -> dict[str, Any]:
    return {"from_name": from_name, "to_name": to_name, "type": "choices", "value": {"choices": [choice_value]}}


def ranker_result(order: Sequence[str], *, from_name: str, to_name: str) -> dict[str, Any]:
    return {"from_name": from_name, "to_name": to_name, "type": "ranker", "value": {"ranker": list(order)}}


def write_labelstudio(tasks: Iterable[tuple[dict[str, Any], Sequence[tuple[str, list[dict[str, Any]]]]]]) -> str:
    """A Label Studio JSON export: ``tasks`` are ``(data, [(assessor, result), ...])``.
    Annotators are numbered in order of appearance; ``completed_by`` carries the
    number and the assessor's name (as ``email``, which the reader takes back)."""
    users: dict[str, int] = {}
    out = []
    annotation_id = 0
    for number, (data, given) in enumerate(tasks, start=1):
        rows = []
        for assessor, result in given:
            annotation_id += 1
            user = users.setdefault(assessor, len(users) + 1)
            results = [{"id": f"r{annotation_id}-{i}", **r} for i, r in enumerate(result)]
            rows.append(
                {
                    "id": annotation_id,
                    "completed_by": {"id": user, "email": assessor},
                    "result": results,
                    "was_cancelled": False,
                    "ground_truth": False,
                    "task": number,
                }
            )
        out.append({"id": number, "data": data, "annotations": rows, "predictions": []})
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"


@dataclass(frozen=True)
class Example:
    """One line of a doccano annotator's JSONL file."""

    where: str  # "alice.jsonl: line 3"
    worker: str
    record: dict[str, Any]
    labels: list[str]


def read_doccano(raw: bytes | str) -> list[Example]:
    """The examples of a doccano export of a project whose annotators did not
    share annotations: a zip of ``<username>.jsonl`` files, each line ``{"text",
    "label": [...], ...}``. Lines with no label (not annotated by that user) are kept
    with ``labels == []``; the kinds skip them. The zip is unpacked as its lines are
    read, within what concord.reading allows a zip, and refused at its first bad line."""
    if isinstance(raw, str) or not raw.startswith(b"PK"):
        raise InvalidInput(
            "file",
            "expected doccano's export of a project with several annotators: a zip of <username>.jsonl files "
            "(one JSONL file gives no annotator names; its labels are everyone's)",
        )
    examples = []
    for member in reading.zip_members(raw):
        name = member.name.rsplit("/", 1)[-1]
        if not name.endswith(".jsonl"):
            raise InvalidInput(member.name, "expected <username>.jsonl files only")
        worker = name.removesuffix(".jsonl")
        for line, text in reading.numbered(member, member.name):
            if not text.strip():
                continue
            where = f"{member.name}: line {line}"
            record = reading.parse_json(text, where)
            if not isinstance(record, dict):
                raise InvalidInput(where, f"expected an object, got {type_name(record)}")
            labels = record.get("label", [])
            if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
                raise InvalidInput(f"{where}: label", "expected a list of labels (strings)")
            examples.append(Example(where, worker, record, labels))
    if not examples:
        raise InvalidInput("file", "no examples: the zip holds no lines")
    return examples


def example_text(example: Example, key: str, *, required: bool = True) -> str | None:
    """A string of the example's line (``<key>``)."""
    return _string(example.record.get(key), f"{example.where}: {key}", required)


def example_id(example: Example, key: str) -> str:
    return require_id(example.record.get(key), f"{example.where}: {key}")


def one_label(example: Example) -> str:
    if len(example.labels) != 1:
        raise InvalidInput(f"{example.where}: label", f"expected one label, got {len(example.labels)}")
    return example.labels[0]


def write_doccano(files: Mapping[str, Sequence[dict[str, Any]]]) -> bytes:
    """doccano's export of a project with several annotators: ``{username: [line, ...]}``
    -> a zip of ``<username>.jsonl``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for username, lines in files.items():
            archive.writestr(
                f"{username}.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
            )
    return buffer.getvalue()


# -- one choice per (topic, unit): the shape pairs and relevance share -------------------


@dataclass(frozen=True)
class Labels:
    """How a kind's choices map onto its payload's values (they may depend on the
    campaign's params, e.g. relevance's scale): ``read(choice, where)`` checks one,
    naming ``where``; ``write(value)`` is the choice a payload value is exported as."""

    read: Callable[[str, str], Any]
    write: Callable[[Any], str]


@dataclass(frozen=True)
class UnitChoices:
    """A kind whose Label Studio task (or doccano example) is one (topic, unit) and
    whose annotation is one choice: the data carry ``topic``, ``topic_title``, the
    topic's query fields, ``<unit>`` (the unit's id) and the unit's ``text``; the
    annotation is a ``choices`` result from ``choice_name`` to ``text`` (or a
    doccano label); the payload is ``{payload: {unit id: value}}``."""

    unit: str  # "candidate": the data key of the unit's id, and the word errors use
    units: str  # "candidates": the topic data's list of units ({"id", "text"})
    payload: str  # "matches": the payload's key
    choice_name: str  # Label Studio's from_name of the choice
    verb: str  # "labelled": what an annotator did to a unit, in errors
    query: Callable[
        [Callable[..., str | None]], dict[str, str]
    ]  # topic data's query fields from an item's text(key, required=)
    query_of: Callable[[Mapping[str, Any]], dict[str, str]]  # an item's query fields from the topic data
    labels: Callable[[Any], Labels]  # params -> Labels

    def reader(self, format: str, doc: str) -> Callable[..., CrowdFile]:
        """The kind's reader of ``format`` (a ``KindSpec.judgment_files`` entry), documented by ``doc``."""

        def read(raw: bytes | str, *, params: Any = None) -> CrowdFile:
            return read_unit_choices(self, raw, format=format, params=params)

        read.__doc__ = doc
        return read

    def export(self, campaign: Any, topics: Sequence[Any], judgments: Sequence[Any], *, format: str) -> Any:
        """Every assessor's submitted judgments as Label Studio JSON or doccano's zip."""
        return write_unit_choices(self, campaign, topics, judgments, format=format)


@dataclass(frozen=True)
class _Item:
    """A Label Studio task or a doccano example, read the same way."""

    where: str
    text: Callable[..., str | None]
    id: Callable[[str], str]
    labels: Callable[[], list[tuple[str, str, str, str]]]  # (where, worker, the value's where, the choice)


def _from_tasks(raw: bytes | str) -> list[_Item]:
    def labels(task: Task) -> list[tuple[str, str, str, str]]:
        return [(a.where, a.worker, *choice(a)) for a in task.annotations]

    return [
        _Item(t.where, partial(task_text, t), partial(task_id, t), partial(labels, t)) for t in read_labelstudio(raw)
    ]


def _from_examples(raw: bytes | str) -> list[_Item]:
    def labels(example: Example) -> list[tuple[str, str, str, str]]:
        if not example.labels:
            return []  # not annotated by this user
        return [(example.where, example.worker, f"{example.where}: label", one_label(example))]

    return [
        _Item(e.where, partial(example_text, e), partial(example_id, e), partial(labels, e)) for e in read_doccano(raw)
    ]


def read_unit_choices(shape: UnitChoices, raw: bytes | str, *, format: str, params: Any = None) -> CrowdFile:
    """Topics rebuilt from the file's items, and one judgment per (annotator, topic)."""
    decode = shape.labels(params).read
    topics: dict[str, dict[str, Any]] = {}
    answers: dict[tuple[str, str], dict[str, Any]] = {}
    sources: dict[tuple[str, str], str] = {}
    for item in _from_tasks(raw) if format == "labelstudio" else _from_examples(raw):
        topic, unit = item.id("topic"), item.id(shape.unit)
        title = item.text("topic_title", required=False)
        query = shape.query(item.text)
        text = item.text("text")
        entry = topics.setdefault(
            topic, {"external_id": topic, "title": title or topic, "data": {**query, shape.units: []}}
        )
        if {k: v for k, v in entry["data"].items() if k != shape.units} != query:
            raise InvalidInput(item.where, f"topic {topic!r} has another query in an earlier item")
        if unit not in {u["id"] for u in entry["data"][shape.units]}:
            entry["data"][shape.units].append({"id": unit, "text": text})
        for where, worker, value_where, value in item.labels():
            decoded = decode(value, value_where)
            given = answers.setdefault((worker, topic), {})
            if unit in given:
                raise InvalidInput(where, f"{worker!r} {shape.verb} {shape.unit} {unit!r} of topic {topic!r} twice")
            given[unit] = decoded
            sources.setdefault((worker, topic), f"{where} ({worker!r}, topic {topic!r})")
    keys = list(answers)
    return CrowdFile(
        topics=list(topics.values()),
        judgments=[{"assessor": w, "topic": t, "payload": {shape.payload: answers[(w, t)]}} for w, t in keys],
        sources=[sources[k] for k in keys],
    )


def write_unit_choices(
    shape: UnitChoices, campaign: Any, topics: Sequence[Any], judgments: Sequence[Any], *, format: str
) -> Any:
    """Every assessor's submitted judgments (``JudgmentRow``) as Label Studio JSON or doccano's zip."""
    encode = shape.labels(campaign.params).write
    by_topic: dict[int, list[Any]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    items = [
        (
            topic,
            unit["id"],
            {
                "topic": topic.external_id,
                "topic_title": topic.title,
                **shape.query_of(topic.data),
                shape.unit: unit["id"],
                "text": unit["text"],
            },
        )
        for topic in topics
        for unit in topic.data[shape.units]
    ]
    if format == "labelstudio":
        return write_labelstudio(
            (
                data,
                [
                    (
                        row.assessor,
                        [
                            choices_result(
                                encode(row.payload[shape.payload][unit]), from_name=shape.choice_name, to_name="text"
                            )
                        ],
                    )
                    for row in by_topic.get(topic.pk, [])
                    if unit in row.payload.get(shape.payload, {})
                ],
            )
            for topic, unit, data in items
        )
    assessors = sorted({row.assessor for row in judgments})
    files: dict[str, list[dict[str, Any]]] = {name: [] for name in assessors}
    for number, (topic, unit, data) in enumerate(items, start=1):
        given = {row.assessor: row.payload.get(shape.payload, {}) for row in by_topic.get(topic.pk, [])}
        for name in assessors:
            values = given.get(name, {})
            files[name].append({"id": number, **data, "label": [encode(values[unit])] if unit in values else []})
    return write_doccano(files)


#: What the export help adds for a kind that writes these formats.
EXPORT_HELP = (
    " labelstudio / doccano: every assessor's submitted judgments (not a truth set: the truth chosen is ignored) "
    "as a Label Studio JSON export or doccano's zip of <username>.jsonl files; they import back into a campaign "
    "of the same kind (docs/formats.md, 'Label Studio and doccano')."
)


def dispatch(formats: Mapping[str, Any], own: Any, rest: Any) -> Any:
    """An ``Exports.write`` that writes ``formats`` with ``own(campaign, topics,
    judgments, format=)`` and every other format with the kind's ``rest``."""

    def write(campaign: Any, topics: Any, judgments: Any, *, format: str, truth: str) -> Any:
        if format in formats:
            return own(campaign, topics, judgments, format=format)
        return rest(campaign, topics, judgments, format=format, truth=truth)

    write.__doc__ = rest.__doc__
    return write


#: What a Label Studio or doccano export is, whatever the truth set chosen.
JUDGMENTS_FILE = ExportFile("judgments", "judgments", by_truth=False)


def describe(formats: Mapping[str, Any], rest: Any) -> Any:
    """An ``Exports.describe`` to go with :func:`dispatch`: ``formats`` are every
    assessor's judgments; every other format is the kind's ``rest(format, truth)``."""

    def what(format: str, truth: str) -> ExportFile | None:
        return JUDGMENTS_FILE if format in formats else rest(format, truth)

    return what
