"""Files of the clustering kind: AIPHES hierarchical-summarisation trees and system clusterings as CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from annotate.importers import check_columns, csv_rows, decode
from concord.digits import whole_number
from concord.errors import InvalidInput


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


def read_runs_csv(text: str) -> list[dict[str, Any]]:
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
