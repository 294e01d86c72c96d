"""TREC runs into a relevance campaign: pools to a depth, and the runs kept to be scored.

The run file is TREC's six columns, ``qid Q0 docid rank score tag`` (read by
:func:`stats.ireval.parse_run`; several systems in one file, the tag names
the system). A topic's pool is the union of every run's top ``depth``
documents (ranked as trec_eval ranks: by score, descending, ties by
document id, descending), each document keeping the systems that put it
there; the pool is shown to assessors sorted by document id, so its order
tells nothing of the systems' (as NIST's pools). Topics and document texts
come from a JSON file::

    {"topics": {"401": {"title": "...", "description": "...", "narrative": "..."}},
     "documents": {"FT911-3": "text of the document", ...}}

All or nothing: any error names the line of the run file (or the field of
the topics file) and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotate.imports.check import check_runs, check_topics
from annotate.imports.write import write_checked
from annotate.models import Campaign, Run, Topic
from concord import reading
from concord.errors import InvalidInput
from concord.params import Int, ParamsSchema
from kinds.base import require_id, require_object, require_text, type_name
from kinds.relevance.data import RelevanceKind
from stats import ireval


def read_topics(data: Any) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """The topics file: ``(topics {qid: {title, description?, narrative?}}, documents {docid: text})``."""
    require_object(data, "topics_file", allowed={"topics", "documents"}, required={"topics", "documents"})
    topics, documents = data["topics"], data["documents"]
    if not isinstance(topics, dict) or not topics:
        raise InvalidInput("topics_file.topics", f"expected an object of topic id -> query, got {type_name(topics)}")
    if not isinstance(documents, dict):
        raise InvalidInput(
            "topics_file.documents", f"expected an object of document id -> text, got {type_name(documents)}"
        )
    cleaned = {}
    for qid, query in topics.items():
        path = f"topics_file.topics.{qid}"
        require_id(qid, path)
        require_object(query, path, allowed={"title", "description", "narrative"}, required={"title"})
        cleaned[qid] = {
            key: require_text(query[key], f"{path}.{key}")
            for key in ("title", "description", "narrative")
            if key in query
        }
    return cleaned, documents


def ranked(ranking: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, then document id descending."""
    return sorted(ranking, key=lambda pair: (pair[1], pair[0]), reverse=True)


def pools(
    runs: Mapping[str, Mapping[str, list[tuple[str, float]]]], depth: int | None
) -> dict[str, dict[str, list[str]]]:
    """``{qid: {docid: [systems]}}``: the union of every run's top ``depth`` per topic (None: whole runs)."""
    pooled: dict[str, dict[str, list[str]]] = {}
    for system, topics in runs.items():
        for qid, ranking in topics.items():
            for docid, _ in ranked(ranking)[:depth]:
                pooled.setdefault(qid, {}).setdefault(docid, []).append(system)
    return pooled


@dataclass
class FirstLines:
    """Where each tag, (tag, qid) and (qid, docid) first occurs (1-based lines), to name them in errors."""

    tags: dict[str, int] = field(default_factory=dict)
    topics: dict[tuple[str, str], int] = field(default_factory=dict)
    documents: dict[tuple[str, str], int] = field(default_factory=dict)

    def noting(self, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        """``lines`` passed on as they are read, noting where each first occurs."""
        for number, line in lines:
            columns = line.split()
            if len(columns) == 6:
                qid, _, docid, _, _, tag = columns
                self.tags.setdefault(tag, number)
                self.topics.setdefault((tag, qid), number)
                self.documents.setdefault((qid, docid), number)
            yield number, line


def plan(
    *, campaign: Campaign, run_text: bytes | str, topics_file: Any, depth: int | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The topics (pooled) and runs to import, checked; nothing is written. ``run_text``:
    the run file as uploaded (read line by line through concord.reading) or its text."""
    if campaign.kind != RelevanceKind.name:
        raise InvalidInput("campaign", f"TREC runs go into graded relevance campaigns, not {campaign.kind} ones")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise InvalidInput("depth", "expected a whole number >= 1, or nothing to pool whole runs")
    queries, texts = read_topics(topics_file)
    first = FirstLines()
    try:
        runs = ireval.parse_run_lines(first.noting(reading.numbered(run_text, "runs")))
    except ValueError as error:
        raise InvalidInput("runs", str(error)) from None
    if not runs:
        raise InvalidInput("runs", "the run file has no line")
    tags, topic_lines, document_lines = first.tags, first.topics, first.documents
    taken = set(campaign.runs.values_list("name", flat=True))
    for tag, line in tags.items():
        try:
            require_id(tag, "tag")
        except InvalidInput as error:
            raise InvalidInput("runs", f"line {line}: tag (the system's name) {tag!r}: {error.message}") from None
        if tag in taken:
            raise InvalidInput("runs", f"line {line}: a run named {tag!r} already exists in this campaign")
    for (_tag, qid), line in topic_lines.items():
        if qid not in queries:
            raise InvalidInput("runs", f"line {line}: topic {qid!r} is not in the topics file")
    for (_qid, docid), line in document_lines.items():
        try:
            require_id(docid, "docid")
        except InvalidInput as error:
            raise InvalidInput("runs", f"line {line}: document id {docid!r}: {error.message}") from None
    pooled = pools(runs, depth)
    topics = []
    for qid, query in queries.items():
        if qid not in pooled:
            raise InvalidInput(f"topics_file.topics.{qid}", "no run retrieved a document for this topic")
        documents = []
        for docid in sorted(pooled[qid]):
            text = texts.get(docid)
            if not isinstance(text, str):
                raise InvalidInput(
                    "runs",
                    f"line {document_lines[qid, docid]}: document {docid!r} is pooled for "
                    f"topic {qid!r} but has no text in the topics file's documents",
                )
            documents.append({"id": docid, "text": text, "runs": sorted(pooled[qid][docid])})
        topics.append({"external_id": qid, "title": query["title"], "data": {**query, "documents": documents}})
    stored = [
        {
            "name": tag,
            "data": {
                "ranking": {qid: [[docid, score] for docid, score in ranking] for qid, ranking in by_topic.items()}
            },
        }
        for tag, by_topic in runs.items()
    ]
    return topics, stored


def import_trec_runs(
    *, campaign: Campaign, run_text: bytes | str, topics_file: Any, depth: int | None = None
) -> tuple[list[Topic], list[Run]]:
    """Pool the runs into topics, assign them and store the runs (all or nothing:
    both checked, then written in one short transaction)."""
    topics, runs = plan(campaign=campaign, run_text=run_text, topics_file=topics_file, depth=depth)
    checked = check_topics(campaign, topics)
    imported = write_checked(checked, runs=check_runs(campaign, runs, topics=checked))
    return imported.topics, imported.runs


#: The uploads page's options for TREC run files (the command's ``--depth``).
UPLOAD_OPTIONS = ParamsSchema(
    Int("depth", None, min=1, max=1_000_000, help="Pool each run's top N documents per topic; empty: whole runs."),
)


def upload_trec_runs(campaign: Campaign, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's TREC runs (``KindSpec.uploads``): the run file and the
    topics file, pooled to ``options["depth"]`` by :func:`import_trec_runs`."""
    topics_file = reading.read_json(files["topics_file"][0][1], "topics_file")
    created, runs = import_trec_runs(
        campaign=campaign, run_text=files["runs"][0][1], topics_file=topics_file, depth=options.get("depth")
    )
    pooled = sum(len(t.data["documents"]) for t in created)
    return f"Imported {len(runs)} runs and {len(created)} topics with {pooled} pooled documents to grade."
